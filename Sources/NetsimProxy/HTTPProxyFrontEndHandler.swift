import Logging
import NIOCore
import NIOHTTP1
import NetsimCore

/// The HTTP proxy front end's server side, behind NIOHTTP1's request decoder (which parses
/// the request). A `CONNECT host:port` request becomes a tunnel: once the upstream is
/// connected the client gets `200 Connection Established`, the HTTP handlers leave the
/// pipeline, and the client's channel is an ordinary side of an emulated connection. A
/// plain-HTTP request in absolute form (`GET http://host/path`) gets a connection of its own
/// to its origin: the decoder stays, and `OriginFormRequestEncoder` passes the request on in
/// origin form with `Connection: close`, so the origin's answer ends the connection.
///
/// Replies are written as bytes (the front end has no response encoder: after a `200` the
/// client's bytes are its own). Reads are pulled only while the request head is awaited:
/// while the destination is dialed the client is not read, so what it sent ahead is at most
/// what the decoder already holds (the rest of one read), handed on when the decoder leaves.
final class HTTPProxyFrontEndHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = Never
    typealias OutboundOut = ByteBuffer

    private enum State {
        case awaitingHead
        /// Dialing a CONNECT tunnel's destination.
        case dialingTunnel(HostPort)
        /// Dialing a plain request's origin; its parts so far, in order.
        case dialingOrigin(HostPort, parts: [HTTPServerRequestPart])
        /// Replied with an error, or the client left: nothing more happens.
        case done
    }

    private let phones: PhoneSet
    private let readLimit: HandshakeReadLimit
    private var state = State.awaitingHead
    private var handshakeTimeout: Scheduled<Void>?

    init(phones: PhoneSet, readLimit: HandshakeReadLimit) {
        self.phones = phones
        self.readLimit = readLimit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        handshakeTimeout = scheduleHandshakeTimeout(context, frontEnd: "HTTP proxy", logger: phones.logger) { [self] in
            state = .done
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        handshakeTimeout?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch (state, part) {
        case (.awaitingHead, .head(let head)):
            handle(head, context: context)
        case (.dialingOrigin(let destination, var parts), _):
            parts.append(part)
            state = .dialingOrigin(destination, parts: parts)
        case (.dialingTunnel, _), (.done, _):
            // The end of a CONNECT request; nothing comes after it before the reply.
            break
        case (.awaitingHead, .body), (.awaitingHead, .end):
            reply(.badRequest, "a request body without its head", context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch (state, error) {
        case (_, is IOError), (.dialingTunnel, _), (.done, _):
            state = .done
            context.close(promise: nil)
        case (.awaitingHead, _), (.dialingOrigin, _):
            // A head, or a plain request's body (a bad chunk size), that cannot be decoded: the
            // origin has seen nothing of the request yet.
            reply(.badRequest, "malformed request (\(error))", context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        state = .done
        context.fireChannelInactive()
        leaveBeforeTeardown(context)
    }

    func read(context: ChannelHandlerContext) {
        if case .awaitingHead = state { context.read() }
    }

    // MARK: Steps

    private func handle(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let destination: HostPort
        switch ProxyRequestTarget(head) {
        case .tunnel(let target):
            destination = target
            state = .dialingTunnel(target)
        case .origin(let target):
            destination = target
            state = .dialingOrigin(target, parts: [.head(head)])
        case .invalid(let why):
            return reply(.badRequest, why, context: context)
        }
        let user = phones.clientsChoose ? PhoneSet.proxyUser(head.headers) : nil
        let device: EmulatedDevice
        switch phones.device(named: user, client: context.channel) {
        case .success(let named): device = named
        case .failure(let refusal): return reply(.forbidden, "\(refusal)", context: context)
        }
        handshakeTimeout?.cancel()
        device.dial(destination, from: context.channel) { [self] result in
            switch result {
            case .success(let connection): joinOrLeave(connection, context: context)
            case .failure(let refusal): refuse(refusal, context: context)
            }
        }
    }

    private func joinOrLeave(_ connection: ProxiedConnection, context: ChannelHandlerContext) {
        let channel = context.channel
        let pipeline = context.pipeline.syncOperations
        do {
            switch state {
            case .dialingTunnel:
                state = .done
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 Connection Established\r\n\r\n")), promise: nil)
                let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                pipeline.removeHandler(context: context, promise: nil)
                try connection.join(channel)
                // Hands what the client sent after its request to the tunnel, in order.
                pipeline.removeHandler(decoder, promise: nil)
            case .dialingOrigin(_, let parts):
                state = .done
                try pipeline.addHandler(OriginFormRequestEncoder(logger: phones.logger), position: .after(self))
                try connection.join(channel)
                for part in parts { context.fireChannelRead(wrapInboundOut(part)) }
                pipeline.removeHandler(context: context, promise: nil)
            case .awaitingHead, .done:
                return connection.clientLeft()
            }
            try readLimit.lift(on: channel)
            channel.read()
        } catch {
            phones.logger.warning("HTTP proxy client: cannot hand the connection over (\(error)); closing")
            channel.close(promise: nil)
        }
    }

    private func refuse(_ refusal: DialRefusal, context: ChannelHandlerContext) {
        guard let destination = Self.destination(of: state) else { return }
        switch refusal {
        case .notAllowed(let why): reply(.forbidden, "\(destination) is refused: \(why)", context: context)
        case .unresolvable: reply(.badGateway, "\(destination.host) does not resolve", context: context)
        case .unreachable: reply(.badGateway, "\(destination) is unreachable", context: context)
        case .busy: reply(.serviceUnavailable, "the proxy is at its connection limit", context: context)
        case .clientLeft: break
        }
    }

    /// An error reply with `why` as its plain-text body, then a close.
    private func reply(_ status: HTTPResponseStatus, _ why: String, context: ChannelHandlerContext) {
        state = .done
        replyWithError(status, why, context: context, logger: phones.logger)
    }

    private static func destination(of state: State) -> HostPort? {
        switch state {
        case .dialingTunnel(let destination), .dialingOrigin(let destination, _): destination
        case .awaitingHead, .done: nil
        }
    }
}

/// Answers an HTTP proxy client with an error: a log line, `why` as the plain-text body, then
/// a close.
func replyWithError(_ status: HTTPResponseStatus, _ why: String, context: ChannelHandlerContext, logger: Logger) {
    logger.warning("HTTP proxy client \(frontEndPeer(context)): \(status.code) \(why)")
    let body = "netsim: \(why)\n"
    let response =
        "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\nContent-Type: text/plain; charset=utf-8\r\n"
        + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    context.writeAndFlush(NIOAny(ByteBuffer(string: response))).assumeIsolated().whenComplete { _ in
        context.close(promise: nil)
    }
}

/// What an HTTP proxy request asks for: a tunnel (`CONNECT host:port`), a plain request to an
/// origin (`GET http://host[:port]/path`), or nothing a proxy serves.
enum ProxyRequestTarget: Equatable {
    case tunnel(HostPort)
    case origin(HostPort)
    case invalid(String)

    /// Reads the request target; the reasons given for `.invalid` quote the client's target
    /// escaped (`escapingControlCharacters`), ready for a log line and the reply.
    init(_ head: HTTPRequestHead) {
        let quoted = "'\(head.uri.escapingControlCharacters)'"
        if head.method == .CONNECT {
            guard let target = HostPort(head.uri), !head.uri.hasPrefix(":"),
                let destination = HostPort(validatingDestination: target.host, port: target.port)
            else {
                self = .invalid("CONNECT needs HOST:PORT with a host name or IP address, got \(quoted)")
                return
            }
            self = .tunnel(destination)
            return
        }
        guard let authority = Self.splitAbsoluteURI(head.uri)?.authority else {
            self = .invalid("a proxy request needs an absolute http:// URI or CONNECT, got \(quoted)")
            return
        }
        let target =
            authority.contains("]") || authority.filter({ $0 == ":" }).count == 1 ? HostPort(authority) : HostPort("\(authority):80")
        guard let target, !authority.contains("@"), let destination = HostPort(validatingDestination: target.host, port: target.port) else {
            self = .invalid("cannot read a host name or IP address and port in \(quoted)")
            return
        }
        self = .origin(destination)
    }

    /// `http://AUTHORITY/PATH?QUERY` as its authority and its origin form (`/PATH?QUERY`, `/`
    /// when empty); nil for anything else.
    static func splitAbsoluteURI(_ uri: String) -> (authority: String, originForm: String)? {
        let scheme = "http://"
        guard uri.lowercased().hasPrefix(scheme) else { return nil }
        let rest = uri.dropFirst(scheme.count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = String(rest[..<authorityEnd])
        var originForm = String(rest[authorityEnd...].prefix { $0 != "#" })
        if !originForm.hasPrefix("/") { originForm = "/" + originForm }
        return authority.isEmpty ? nil : (authority, originForm)
    }
}

/// Passes a plain-HTTP proxy request on to its origin as bytes, in origin form: the request
/// line names the path only, the hop-by-hop headers (`Connection` and those it lists,
/// `Proxy-*`, `Keep-Alive`) are dropped, and `Connection: close` asks the origin to end the
/// connection after its answer, so that one connection carries one request (a client's next
/// request opens a new one). A chunked body is chunked again as the decoder hands it over. A
/// second request on the same client connection is not passed on: the origin closes after the
/// first answer, and the client retries on a new connection as HTTP/1.1 clients do.
final class OriginFormRequestEncoder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = ByteBuffer

    private enum State {
        case awaitingHead
        case body(chunked: Bool)
        case finished
    }

    private let logger: Logger
    private var state = State.awaitingHead

    init(logger: Logger) {
        self.logger = logger
    }

    func channelInactive(context: ChannelHandlerContext) {
        context.fireChannelInactive()
        leaveBeforeTeardown(context)
    }

    /// A body the decoder cannot read (a bad chunk size) after the head went on to the origin:
    /// the client gets a 400 saying so, rather than a bare reset.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.fireErrorCaught(error) }
        state = .finished
        replyWithError(.badRequest, "malformed request body (\(error))", context: context, logger: logger)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (state, unwrapInboundIn(data)) {
        case (.awaitingHead, .head(let head)):
            let chunked = head.headers["transfer-encoding"].contains { $0.lowercased().contains("chunked") }
            state = .body(chunked: chunked)
            context.fireChannelRead(wrapInboundOut(ByteBuffer(string: Self.originFormHead(head))))
        case (.body(let chunked), .body(var bytes)):
            guard bytes.readableBytes > 0 else { return }
            guard chunked else { return context.fireChannelRead(wrapInboundOut(bytes)) }
            var chunk = ByteBuffer(string: String(bytes.readableBytes, radix: 16) + "\r\n")
            chunk.writeBuffer(&bytes)
            chunk.writeString("\r\n")
            context.fireChannelRead(wrapInboundOut(chunk))
        case (.body(let chunked), .end(let trailers)):
            state = .finished
            guard chunked else { return }
            let trailerLines = trailers.map { $0.map { "\($0.name): \($0.value)\r\n" }.joined() } ?? ""
            context.fireChannelRead(wrapInboundOut(ByteBuffer(string: "0\r\n\(trailerLines)\r\n")))
        case (.finished, .head(let head)):
            logger.info(
                "HTTP proxy: a second request (\(head.method) \(head.uri.escapingControlCharacters)) on a connection whose origin closes after its first answer; not passed on"
            )
        case (.finished, _), (.awaitingHead, _), (.body, .head):
            break
        }
    }

    /// The request head as the origin gets it. `Host` is the request target's authority, in
    /// place of whatever `Host` headers the client sent (RFC 9112 section 3.2.2: a proxy
    /// replaces it); the hop-by-hop headers stop here (RFC 9110 section 7.6.1: `Connection` and
    /// the headers it names, `Keep-Alive`, `Proxy-*`, `TE`, and `Upgrade`, which a connection
    /// that closes after one answer cannot honour); `Transfer-Encoding` stays, as the body is
    /// passed on in the framing it names.
    static func originFormHead(_ head: HTTPRequestHead) -> String {
        let (authority, originForm) = ProxyRequestTarget.splitAbsoluteURI(head.uri) ?? ("", head.uri)
        let listed = Set(
            head.headers["connection"].flatMap { $0.split(separator: ",") }.map { $0.filter { !$0.isWhitespace }.lowercased() })
        var text = "\(head.method.rawValue) \(originForm) HTTP/\(head.version.major).\(head.version.minor)\r\nHost: \(authority)\r\n"
        for (name, value) in head.headers {
            let lowered = name.lowercased()
            if hopByHop.contains(lowered) || lowered == "host" || lowered.hasPrefix("proxy-") || listed.contains(lowered) { continue }
            text += "\(name): \(value)\r\n"
        }
        return text + "Connection: close\r\n\r\n"
    }

    /// The headers that belong to one hop, whatever `Connection` says.
    private static let hopByHop: Set<String> = ["connection", "keep-alive", "te", "upgrade"]
}
