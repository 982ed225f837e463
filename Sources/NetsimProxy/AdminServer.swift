import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NetsimCore
import Synchronization

/// A small HTTP API over a running proxy, so a test suite can read the live status and drive
/// conditions from outside:
///
/// - `GET /status`: the live `ProxyStatus` as JSON.
/// - `GET /report`: the `RunReport` so far.
/// - `POST /outage?duration=10s&mode=stall|blackhole|reset`: an outage now.
/// - `POST /handover?to=NETWORK&mode=reset|blackhole|keep&gap=1s`: a handover now.
///
/// Every answer is JSON; a bad request gets a 400 with `{"error": "..."}` saying what is wrong
/// (durations follow the profile rules: see `Quantity`), an unknown path a 404 and a known path
/// with the wrong method a 405.
///
/// It is built to stay up whatever local clients do: a connection has `AdminLimits.requestTimeout`
/// to send its request, at most `AdminLimits.maximumConnections` are open at once (a new one
/// closes the oldest, so that idle connections cannot lock out a real request), a malformed
/// request gets a 400 and is closed, and accepts back off when the process runs out of file
/// descriptors.
public final class AdminServer: Sendable {
    private let channel: any Channel
    public let address: HostPort

    private init(channel: any Channel, address: HostPort) {
        self.channel = channel
        self.address = address
    }

    public static func start(
        at address: HostPort, proxy: NetsimProxy, group: any EventLoopGroup, limits: AdminLimits = AdminLimits(),
        logger: Logger = Logger(label: "netsim.admin")
    ) async throws -> AdminServer {
        let openConnections = OpenConnections()
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .serverChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(AcceptBackoff.handler(logger: logger))
                    }
                }
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        openConnections.add(channel, limit: limits.maximumConnections)
                        channel.closeFuture.whenComplete { _ in openConnections.remove(channel) }
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(
                            AdminRequestHandler(proxy: proxy, requestTimeout: limits.requestTimeout))
                    }
                }
                .bind(host: address.host, port: address.port)
                .get()
            return AdminServer(channel: channel, address: HostPort(host: address.host, port: channel.localAddress?.port ?? address.port))
        } catch {
            throw ProxyError.cannotListen(address, reason: "\(error)")
        }
    }

    public func stop() async {
        try? await channel.close()
    }
}

/// What the admin API allows its clients.
public struct AdminLimits: Sendable {
    /// How long a connection has to send a whole request; then it is closed.
    public var requestTimeout = TimeAmount.seconds(5)
    /// The most connections open at once; a new one beyond it closes the oldest.
    public var maximumConnections = 64

    public init() {}
}

/// The admin connections open now, oldest first, for the cap. (Their channels live on
/// several event loops, hence the lock.)
private final class OpenConnections: Sendable {
    private let channels = Mutex<[any Channel]>([])

    /// Adds a connection; at the limit, the oldest one is closed to make room.
    func add(_ channel: any Channel, limit: Int) {
        let evicted = channels.withLock { channels -> (any Channel)? in
            channels.append(channel)
            return channels.count > limit ? channels.removeFirst() : nil
        }
        evicted?.close(promise: nil)
    }

    func remove(_ channel: any Channel) {
        channels.withLock { channels in channels.removeAll { $0 === channel } }
    }
}

/// Answers one request per connection, which must arrive within the request timeout.
private final class AdminRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let proxy: NetsimProxy
    private let requestTimeout: TimeAmount
    private var head: HTTPRequestHead?
    private var answered = false
    private var timeout: Scheduled<Void>?

    init(proxy: NetsimProxy, requestTimeout: TimeAmount) {
        self.proxy = proxy
        self.requestTimeout = requestTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timeout = context.eventLoop.scheduleTask(in: requestTimeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeout?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            // One request per connection: anything after the first is ignored until the close.
            if let request = head, !answered {
                head = nil
                answered = true
                timeout?.cancel()
                Self.startResponse(to: request, on: context.channel, proxy: proxy)
            }
        }
    }

    /// A malformed request has had its 400 (from NIO's protocol error handler); close.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private static func startResponse(to request: HTTPRequestHead, on channel: any Channel, proxy: NetsimProxy) {
        Task { await respond(to: request, on: channel, proxy: proxy) }
    }

    private static func respond(to head: HTTPRequestHead, on channel: any Channel, proxy: NetsimProxy) async {
        let (status, body) = await answer(head, proxy: proxy)
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "content-length", value: "\(body.utf8.count)")
        headers.add(name: "connection", value: "close")
        if status == .methodNotAllowed, let allowed = endpoints[URLComponents(string: head.uri)?.path ?? head.uri] {
            headers.add(name: "allow", value: allowed.rawValue)
        }
        let response = HTTPResponseHead(version: head.version, status: status, headers: headers)
        channel.write(HTTPServerResponsePart.head(response), promise: nil)
        channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body))), promise: nil)
        channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Each endpoint and the one method it answers.
    private static let endpoints: [String: HTTPMethod] = [
        "/status": .GET, "/report": .GET, "/outage": .POST, "/handover": .POST,
    ]

    private static func answer(_ head: HTTPRequestHead, proxy: NetsimProxy) async -> (HTTPResponseStatus, String) {
        let components = URLComponents(string: head.uri)
        let path = components?.path ?? head.uri
        guard let method = endpoints[path] else {
            return (.notFound, #"{"error": "unknown endpoint; try GET /status, GET /report, POST /outage, POST /handover"}"#)
        }
        guard head.method == method else {
            return (.methodNotAllowed, (try? json(["error": "\(path) takes \(method.rawValue), not \(head.method.rawValue)"])) ?? "{}")
        }
        let query = Dictionary(
            (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        do {
            switch path {
            case "/status": return (.ok, try json(try await proxy.status()))
            case "/report": return (.ok, try json(try await proxy.report()))
            case "/outage":
                // The same rules as a profile's outage: a duration above zero, within Quantity's range.
                let duration = try Quantity.duration(query["duration"] ?? "10s")
                guard duration > 0 else { throw AdminError("duration must be longer than zero") }
                guard let mode = OutageMode(rawValue: query["mode"] ?? "stall") else {
                    throw AdminError("mode must be one of \(OutageMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return (.ok, try json(try await proxy.trigger(.outage(duration: duration, mode: mode))))
            default:
                guard let target = query["to"], proxy.profile.network(named: target) != nil else {
                    throw AdminError(
                        "'to' must name one of the profile's networks: \(proxy.profile.networks.map(\.name).joined(separator: ", "))")
                }
                guard let mode = HandoverMode(rawValue: query["mode"] ?? "keep") else {
                    throw AdminError("mode must be one of \(HandoverMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                let gap = try Quantity.duration(query["gap"] ?? "0s")
                return (.ok, try json(try await proxy.trigger(.handover(to: target, mode: mode, gap: gap))))
            }
        } catch {
            return (.badRequest, (try? json(["error": "\(error)"])) ?? #"{"error": "bad request"}"#)
        }
    }

    private static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

private struct AdminError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
