import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NetsimCore
import NetsimProxy
import Synchronization

/// A small HTTP API over a running proxy, so a test suite can read the live status and drive
/// conditions from outside, and a page that shows the phone live and drives it:
///
/// - `GET /`: the live dashboard (`DashboardPage`), with `/dashboard.js` and `/dashboard.css`.
/// - `GET /status`: the live `ProxyStatus` as JSON.
/// - `GET /report?format=json|html`: the `RunReport` so far (HTML: as `netsim report show`).
/// - `GET /metrics`: the proxy's metrics in the Prometheus text format (`ProxyMetrics`).
/// - `GET /events`: what the phone does, as server-sent events (`PhoneEvent`).
/// - `POST /outage?duration=10s&mode=stall|blackhole|reset`: an outage now.
/// - `POST /outage/end`: ends the outage (or handover gap) triggered here that is in force, now
///   (`NetsimProxy.endOutage`).
/// - `POST /set` with a YAML or JSON body: a profile timeline's `set` step now, e.g.
///   `{"link": {"delay": "200ms", "down": {"rate": "1Mbps"}}}` or with `"network": "wifi"`,
///   read and checked by the `SetChangeReader` the server was started with (the CLI's and the
///   tests' is the profile reader's `ProfileLoader.setChange`: the proxy reads no YAML).
/// - `POST /set/undo`: takes back the latest `/set` step not yet undone (`NetsimProxy.undoSet`).
/// - `POST /network?to=NETWORK&mode=reset|blackhole|keep&gap=1s`: a handover now, as the
///   timeline's `handover`.
///
/// Every answer is JSON; a bad request gets a 400 with `{"error": "..."}` saying what is wrong
/// (durations follow the profile rules: see `Quantity`; an unknown query parameter is an error,
/// not ignored), an unknown path a 404, a known path with the wrong method a 405 and a body over
/// 64 KiB a 413. Who may ask is `AdminAccess`'s to say (a 401 or 403 otherwise); every answer
/// carries the dashboard's Content-Security-Policy and is never cached.
///
/// It is built to stay up whatever local clients do: a connection has `AdminLimits.requestTimeout`
/// to send its request, at most `AdminLimits.maximumConnections` are open at once (a new one
/// closes the oldest, so that idle connections cannot lock out a real request), a malformed
/// request gets a 400 and is closed, and accepts back off when the process runs out of file
/// descriptors. An event stream, once answered, is out of that cap (it is meant to stay open)
/// and within `AdminLimits.maximumEventStreams` instead.
public final class AdminServer: Sendable {
    /// Reads a `POST /set` body into the `set` step it asks for, or throws what is wrong with it
    /// (the 400's message): the body, the name to call it in errors (`the /set body`) and the
    /// profile's network names (which its `network` must be one of). The proxy takes the parsed
    /// step and reads no YAML itself; the callers hand it `ProfileLoader.setChange`.
    public typealias SetChangeReader = @Sendable (_ text: String, _ source: String, _ networkNames: [String]) throws -> TimelineEvent.Kind

    private let channel: any Channel
    private let tasks: AdminTasks
    public let address: HostPort

    private init(channel: any Channel, tasks: AdminTasks, address: HostPort) {
        self.channel = channel
        self.tasks = tasks
        self.address = address
    }

    /// Listens at `address`; beyond loopback only with a token in `access` (else
    /// `AdminNeedsToken`), and never with a token too short to guard it (`AdminTokenTooWeak`).
    /// `readSetChange` reads the `/set` bodies.
    public static func start(
        at address: HostPort, proxy: NetsimProxy, readSetChange: @escaping SetChangeReader, group: any EventLoopGroup,
        limits: AdminLimits = AdminLimits(), access: AdminAccess = AdminAccess(), logger: Logger = Logger(label: "netsim.admin")
    ) async throws -> AdminServer {
        guard address.isLoopback || access.token != nil else { throw AdminNeedsToken(address: address) }
        if let token = access.token, let weakness = AdminAccess.weakness(of: token, source: "the admin token") { throw weakness }
        let openConnections = OpenConnections(limits: limits)
        let tasks = AdminTasks()
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
                            AdminRequestHandler(
                                proxy: proxy, readSetChange: readSetChange, limits: limits, access: access,
                                openConnections: openConnections, tasks: tasks))
                    }
                }
                .bind(host: address.host, port: address.port)
                .get()
            do {
                // No front end may carry a client here.
                try await proxy.protect(channel)
            } catch {
                try? await channel.close()
                throw error
            }
            return AdminServer(
                channel: channel, tasks: tasks, address: HostPort(host: address.host, port: channel.localAddress?.port ?? address.port))
        } catch {
            throw ProxyError.cannotListen(address, because: error)
        }
    }

    /// Stops listening and ends every answer in progress (event streams included), closing its
    /// connection; returns once none is left, so that the event loops may stop next. Stopped
    /// after the proxy, the streams have carried its last events.
    public func stop() async {
        try? await channel.close()
        await tasks.stop()
    }
}

/// What the admin API allows its clients.
public struct AdminLimits: Sendable {
    /// How long a connection has to send a whole request; then it is closed.
    public var requestTimeout = TimeAmount.seconds(5)
    /// The most connections open at once; a new one beyond it closes the oldest. An event
    /// stream (`GET /events`) leaves this count once its request is answered: it is meant to
    /// stay open, and counts against `maximumEventStreams` instead.
    public var maximumConnections = 64
    /// The most `GET /events` streams at once; one more takes the place of a stream that does
    /// not keep up, else of the oldest (`EventStreamRoster`).
    public var maximumEventStreams = 16
    /// How often an idle event stream gets a comment line, so that a client gone without a
    /// word is found (the write fails) and its subscription ends.
    public var eventStreamHeartbeat = TimeAmount.seconds(15)

    public init() {}
}

/// The admin connections open now, oldest first, for the cap, and the event streams apart
/// (`EventStreamRoster`). (Their channels live on several event loops, hence the lock.)
private final class OpenConnections: Sendable {
    private struct State {
        var requests: [any Channel] = []
        var streams: EventStreamRoster<ObjectIdentifier>
        var streamChannels: [ObjectIdentifier: any Channel] = [:]
    }

    private let state: Mutex<State>

    init(limits: AdminLimits) {
        state = Mutex(State(streams: EventStreamRoster(limit: limits.maximumEventStreams, heartbeat: limits.eventStreamHeartbeat)))
    }

    /// Adds a connection; at the limit, the oldest one is closed to make room.
    func add(_ channel: any Channel, limit: Int) {
        let evicted = state.withLock { state -> (any Channel)? in
            state.requests.append(channel)
            return state.requests.count > limit ? state.requests.removeFirst() : nil
        }
        evicted?.close(promise: nil)
    }

    /// Moves a connection whose request was answered with an event stream out of the cap on
    /// requests, into the streams, closing the stream it takes the place of if the streams are
    /// full (`EventStreamRoster`).
    func becomeStream(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let evicted = state.withLock { state -> (any Channel)? in
            let admission = state.streams.admit(id, now: .now())
            state.requests.removeAll { $0 === channel }
            state.streamChannels[id] = channel
            guard case .admittedInPlaceOf(let old) = admission else { return nil }
            return state.streamChannels.removeValue(forKey: old)
        }
        evicted?.close(promise: nil)
    }

    /// What happened to a stream, for its roster entry (`EventStreamRoster`).
    enum StreamNews {
        case writeStarted, writeFinished, dropped, heartbeat
    }

    func stream(_ channel: any Channel, _ news: StreamNews) {
        let id = ObjectIdentifier(channel)
        state.withLock { state in
            switch news {
            case .writeStarted: state.streams.writeStarted(id, now: .now())
            case .writeFinished: state.streams.writeFinished(id)
            case .dropped: state.streams.dropped(id)
            case .heartbeat: state.streams.heartbeat(id)
            }
        }
    }

    /// Writes `text` to an event stream, its wait for the socket told to the roster (a write
    /// that waits is a client that does not read).
    @discardableResult
    func writeToStream(_ text: String, on channel: any Channel) -> EventLoopFuture<Void> {
        stream(channel, .writeStarted)
        let written = channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: text))))
        written.whenComplete { _ in self.stream(channel, .writeFinished) }
        return written
    }

    func remove(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { state in
            state.requests.removeAll { $0 === channel }
            // Only the channel's own entry: an identifier is reused once its channel is freed.
            if state.streamChannels[id] === channel {
                state.streamChannels[id] = nil
                state.streams.remove(id)
            }
        }
    }
}

/// Answers one request per connection, which must arrive within the request timeout.
private final class AdminRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let proxy: NetsimProxy
    private let readSetChange: AdminServer.SetChangeReader
    private let limits: AdminLimits
    private let access: AdminAccess
    private let openConnections: OpenConnections
    private let tasks: AdminTasks
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    private var bodyTooLarge = false
    private var answered = false
    private var timeout: Scheduled<Void>?

    /// The largest request body taken (a `POST /set` change is a few hundred bytes).
    static let bodyLimit = 64 * 1024

    init(
        proxy: NetsimProxy, readSetChange: @escaping AdminServer.SetChangeReader, limits: AdminLimits, access: AdminAccess,
        openConnections: OpenConnections, tasks: AdminTasks
    ) {
        self.proxy = proxy
        self.readSetChange = readSetChange
        self.limits = limits
        self.access = access
        self.openConnections = openConnections
        self.tasks = tasks
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timeout = context.eventLoop.scheduleTask(in: limits.requestTimeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeout?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body(var chunk):
            // Beyond the limit the rest is read and dropped: the answer is a 413 either way.
            if body.readableBytes + chunk.readableBytes > Self.bodyLimit {
                bodyTooLarge = true
            } else {
                body.writeBuffer(&chunk)
            }
        case .end:
            // One request per connection: anything after the first is ignored until the close.
            if let request = head, !answered {
                head = nil
                answered = true
                timeout?.cancel()
                let request = AdminRequest(head: request, body: bodyTooLarge ? nil : String(buffer: body))
                let channel = context.channel
                if let refusal = access.refusal(of: request.head, needsToken: request.route?.holdsData ?? true) {
                    let status = HTTPResponseStatus(statusCode: refusal.status)
                    var headers = HTTPHeaders()
                    if status == .unauthorized { headers.add(name: "www-authenticate", value: "Bearer") }
                    Self.send(
                        status, Self.errorJSON(refusal.message), contentType: "application/json", headers: headers, for: request,
                        on: channel)
                } else if request.route == .events, request.head.method == .GET {
                    startEventStream(request, on: channel)
                } else {
                    Self.startResponse(to: request, on: channel, proxy: proxy, readSetChange: readSetChange, tasks: tasks)
                }
            }
        }
    }

    /// A malformed request has had its 400 (from NIO's protocol error handler); close.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    // MARK: Event streams

    /// Answers `GET /events` with a server-sent event stream of the proxy's events, one JSON
    /// object per `data:` line, each under its `event:` name, until the proxy stops or the
    /// client goes. The events are written one at a time, each after the previous one was taken
    /// by the socket: a client that does not read holds them in its subscription's bounded
    /// buffer, where later ones are dropped and counted (an `event: dropped`), never in memory
    /// without bound.
    private func startEventStream(_ request: AdminRequest, on channel: any Channel) {
        let phone: Int?
        do {
            let query = try request.query(allowed: AdminRoute.events.parameters)
            phone = try query["phone"].map { try Self.phone($0, of: proxy) }
        } catch {
            Self.startResponse(to: request, on: channel, proxy: proxy, readSetChange: readSetChange, tasks: tasks)
            return
        }
        openConnections.becomeStream(channel)
        // Subscribed before the head goes out: whatever happens after the 200 is in the stream.
        let events = proxy.events(phone: phone)
        // One phone's events are as a one-phone run's; all of several phones' name theirs.
        let numbered = phone == nil && proxy.phoneCount > 1
        var headers = Self.commonHeaders
        headers.add(name: "content-type", value: "text/event-stream")
        headers.add(name: "connection", value: "close")
        channel.write(
            HTTPServerResponsePart.head(HTTPResponseHead(version: request.head.version, status: .ok, headers: headers)), promise: nil)
        channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: ": netsim events\n\n"))), promise: nil)

        let openConnections = self.openConnections
        let heartbeat = channel.eventLoop.scheduleRepeatedTask(
            initialDelay: limits.eventStreamHeartbeat, delay: limits.eventStreamHeartbeat
        ) { _ in
            openConnections.stream(channel, .heartbeat)
            guard channel.isWritable else { return }
            openConnections.writeToStream(": heartbeat\n\n", on: channel)
        }
        let writer = tasks.run(on: channel) {
            for await numberedEvent in events {
                let data = numbered ? numberedEvent.jsonWithPhone : numberedEvent.event.json
                let text = "event: \(numberedEvent.event.name)\ndata: \(data)\n\n"
                if numberedEvent.event.isDroppedNotice { openConnections.stream(channel, .dropped) }
                do {
                    try await openConnections.writeToStream(text, on: channel).get()
                } catch {
                    break
                }
            }
            // The proxy stopped (or the client went, or the server stops): end the response
            // and close, awaited, so that nothing is left for the event loop after the task.
            try? await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
            try? await channel.close()
        }
        // A client that goes ends the subscription: its task is cancelled, the stream ends.
        channel.closeFuture.whenComplete { _ in
            heartbeat.cancel()
            writer?.cancel()
        }
    }

    // MARK: Requests

    private static func startResponse(
        to request: AdminRequest, on channel: any Channel, proxy: NetsimProxy, readSetChange: @escaping AdminServer.SetChangeReader,
        tasks: AdminTasks
    ) {
        tasks.run(on: channel) { await respond(to: request, on: channel, proxy: proxy, readSetChange: readSetChange) }
    }

    private static func respond(
        to request: AdminRequest, on channel: any Channel, proxy: NetsimProxy, readSetChange: AdminServer.SetChangeReader
    ) async {
        let (status, body, contentType) = await answer(request, proxy: proxy, readSetChange: readSetChange)
        send(status, body, contentType: contentType, for: request, on: channel)
    }

    /// What every answer carries: the dashboard's policy (only this API's own script, style and
    /// requests; no framing), no sniffing of content types, no caching, no referrer.
    private static var commonHeaders: HTTPHeaders {
        [
            "content-security-policy": DashboardPage.contentSecurityPolicy, "x-content-type-options": "nosniff",
            "cache-control": "no-store", "referrer-policy": "no-referrer", "x-frame-options": "DENY",
        ]
    }

    /// Sends a whole response and closes the connection.
    private static func send(
        _ status: HTTPResponseStatus, _ body: String, contentType: String, headers extra: HTTPHeaders = [:], for request: AdminRequest,
        on channel: any Channel
    ) {
        var headers = commonHeaders
        headers.add(contentsOf: extra)
        headers.add(name: "content-type", value: contentType)
        headers.add(name: "content-length", value: "\(body.utf8.count)")
        headers.add(name: "connection", value: "close")
        if status == .methodNotAllowed, let route = request.route {
            headers.add(name: "allow", value: route.method.rawValue)
        }
        let response = HTTPResponseHead(version: request.head.version, status: status, headers: headers)
        channel.write(HTTPServerResponsePart.head(response), promise: nil)
        channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body))), promise: nil)
        channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in channel.close(promise: nil) }
    }

    /// The answer to every request but an event stream: its status, body and content type
    /// (JSON but for the dashboard's files, the HTML report and the metrics).
    private static func answer(
        _ request: AdminRequest, proxy: NetsimProxy, readSetChange: AdminServer.SetChangeReader
    ) async -> (HTTPResponseStatus, String, String) {
        let path = request.path
        guard let route = request.route else {
            let known = AdminRoute.allCases.map { "\($0.method.rawValue) \($0.rawValue)" }.sorted()
            return (.notFound, errorJSON("unknown endpoint \(path); try \(known.joined(separator: ", "))"), jsonType)
        }
        guard request.head.method == route.method else {
            return (.methodNotAllowed, errorJSON("\(path) takes \(route.method.rawValue), not \(request.head.method.rawValue)"), jsonType)
        }
        do {
            let query = try request.query(allowed: route.parameters)
            let phone = try query["phone"].map { try Self.phone($0, of: proxy) } ?? 1
            switch route {
            case .dashboard: return (.ok, DashboardPage.html, "text/html; charset=utf-8")
            case .dashboardScript: return (.ok, DashboardPage.script, "text/javascript; charset=utf-8")
            case .dashboardStyle: return (.ok, DashboardPage.css, "text/css; charset=utf-8")
            case .report:
                switch query["format"] ?? "json" {
                case "json": return (.ok, try json(try await proxy.report(phone: phone)), jsonType)
                case "html": return (.ok, try await proxy.report(phone: phone).document.html, "text/html; charset=utf-8")
                case let format: throw AdminError("format must be json or html, not '\(format)'")
                }
            case .metrics: return (.ok, try await proxy.metricsText(), "text/plain; version=0.0.4; charset=utf-8")
            case .status: return (.ok, try json(try await proxy.status(phone: phone)), jsonType)
            case .phones: return (.ok, try json(try await proxy.phoneSummaries()), jsonType)
            case .events:
                // A valid GET /events is a stream (`startEventStream`); only its bad query gets here.
                return (.badRequest, errorJSON("\(path) is an event stream"), jsonType)
            case .outage:
                // Admin defaults: a 10 s stall.
                let duration = try Quantity.duration(query["duration"] ?? "10s")
                let mode = try choice(OutageMode.self, query["mode"] ?? "stall")
                return (.ok, try json(try await proxy.outage(seconds: duration, mode: mode, phone: phone)), jsonType)
            case .outageEnd:
                return (.ok, try json(try await proxy.endOutage(phone: phone)), jsonType)
            case .set:
                guard let body = request.body else {
                    return (.payloadTooLarge, errorJSON("the change is larger than \(bodyLimit) bytes"), jsonType)
                }
                let change = try readSetChange(body, "the /set body", proxy.profile.networks.map(\.name))
                return (.ok, try json(try await proxy.trigger(change, phone: phone)), jsonType)
            case .undoSet:
                return (.ok, try json(try await proxy.undoSet(phone: phone)), jsonType)
            case .timelinePause:
                return (.ok, try json(try await proxy.pauseTimeline(phone: phone)), jsonType)
            case .timelineResume:
                return (.ok, try json(try await proxy.resumeTimeline(phone: phone)), jsonType)
            case .network:
                // The timeline's handover, now. Admin defaults: connections kept, no gap.
                let mode = try choice(HandoverMode.self, query["mode"] ?? "keep")
                let gap = try Quantity.duration(query["gap"] ?? "0s")
                return (
                    .ok, try json(try await proxy.handover(to: query["to"] ?? "", mode: mode, gapSeconds: gap, phone: phone)), jsonType
                )
            }
        } catch {
            return (.badRequest, errorJSON("\(error)"), jsonType)
        }
    }

    private static let jsonType = "application/json"

    /// The `phone` parameter: a phone's number, 1 to the run's count.
    private static func phone(_ text: String, of proxy: NetsimProxy) throws -> Int {
        guard let phone = Int(text), (1...proxy.phoneCount).contains(phone) else {
            throw AdminError("phone must be a number from 1 to \(proxy.phoneCount), not '\(text.escapingControlCharacters)'")
        }
        return phone
    }

    private static func choice<Choice: RawRepresentable & CaseIterable>(_ type: Choice.Type, _ text: String) throws -> Choice
    where Choice.RawValue == String {
        guard let value = Choice(rawValue: text) else {
            throw AdminError("mode must be one of \(Choice.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
        }
        return value
    }

    private static func errorJSON(_ message: String) -> String {
        (try? json(["error": message])) ?? #"{"error": "bad request"}"#
    }

    private static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// The admin API's endpoints, each with the one method it answers and the query parameters it
/// takes (any other is a 400, so that a typo is not silently a default).
private enum AdminRoute: String, CaseIterable {
    case dashboard = "/"
    case dashboardScript = "/dashboard.js"
    case dashboardStyle = "/dashboard.css"
    case status = "/status"
    /// Every phone in a line (`PhoneSummary`): the dashboard's strips in a run of several.
    case phones = "/phones"
    case report = "/report"
    case metrics = "/metrics"
    case events = "/events"
    case outage = "/outage"
    case outageEnd = "/outage/end"
    case set = "/set"
    case undoSet = "/set/undo"
    case timelinePause = "/timeline/pause"
    case timelineResume = "/timeline/resume"
    case network = "/network"

    var method: HTTPMethod {
        switch self {
        case .dashboard, .dashboardScript, .dashboardStyle, .status, .phones, .report, .metrics, .events: .GET
        case .outage, .outageEnd, .set, .undoSet, .network, .timelinePause, .timelineResume: .POST
        }
    }

    /// The query parameters. `phone` picks one phone of a run of several (phone 1 if absent);
    /// `GET /events` without it follows every phone.
    var parameters: [String] {
        switch self {
        case .dashboard, .dashboardScript, .dashboardStyle, .metrics, .phones: []
        case .status, .events, .outageEnd, .set, .undoSet, .timelinePause, .timelineResume: ["phone"]
        case .report: ["format", "phone"]
        case .outage: ["duration", "mode", "phone"]
        case .network: ["to", "mode", "gap", "phone"]
        }
    }

    /// Whether the endpoint tells or changes something: all but the dashboard's files, which
    /// are the same for everyone. What a token guards.
    var holdsData: Bool {
        switch self {
        case .dashboard, .dashboardScript, .dashboardStyle: false
        case .status, .phones, .report, .metrics, .events, .outage, .outageEnd, .set, .undoSet, .network, .timelinePause, .timelineResume:
            true
        }
    }
}

/// A whole request: its head and, within `AdminRequestHandler.bodyLimit`, its body (nil beyond).
private struct AdminRequest: Sendable {
    let head: HTTPRequestHead
    let body: String?

    private var components: URLComponents? { URLComponents(string: head.uri) }

    var path: String { components?.path ?? head.uri }

    /// The endpoint the path names, if any.
    var route: AdminRoute? { AdminRoute(rawValue: path) }

    /// The query parameters, each of them one of `allowed` and given once: of two values, which
    /// one was meant is a guess, as with a duplicate key in YAML.
    func query(allowed: [String]) throws -> [String: String] {
        let items = components?.queryItems ?? []
        if let unknown = items.first(where: { !allowed.contains($0.name) }) {
            let takes = allowed.isEmpty ? "no parameters" : allowed.joined(separator: ", ")
            throw AdminError("unknown parameter '\(unknown.name)' for \(path); it takes \(takes)")
        }
        var query: [String: String] = [:]
        for item in items {
            guard query.updateValue(item.value ?? "", forKey: item.name) == nil else {
                throw AdminError("duplicate parameter '\(item.name)' for \(path): give each parameter once")
            }
        }
        return query
    }
}

private struct AdminError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
