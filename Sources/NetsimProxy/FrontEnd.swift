import Logging
import NIOCore

/// A proxy protocol in which clients name their own destinations, so that one listening
/// address serves every host an app talks to (TLS included: the tunnel carries the client's
/// own handshake, so hostname checks pass).
public enum FrontEndProtocol: Sendable, Equatable {
    /// SOCKS5 (RFC 1928) CONNECT, without authentication or, given credentials, with
    /// username and password (RFC 1929).
    case socks5(credentials: SOCKSCredentials?)
    /// HTTP/1.1 CONNECT tunnels, and plain-HTTP requests in absolute form.
    case httpProxy
}

/// The username and password a SOCKS5 client must give (RFC 1929).
public struct SOCKSCredentials: Sendable, Equatable {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

/// One listening address and the proxy protocol its clients speak.
public struct FrontEndRule: Sendable, Equatable {
    public var listen: HostPort
    public var frontEnd: FrontEndProtocol

    public init(listen: HostPort, frontEnd: FrontEndProtocol) {
        self.listen = listen
        self.frontEnd = frontEnd
    }
}

extension HostPort {
    /// Where a front end's client asked to go, if `host` is an IP address or a host name
    /// (`HostName`) and `port` is 1 to 65535; nil for anything else. A front end's client names
    /// its own destination, so the name is checked before any rule or resolver sees it, and a
    /// port of 0 (which `HostPort` allows for listening) is no place to connect to.
    init?(validatingDestination host: String, port: Int) {
        guard (1...65535).contains(port), IPAddressBytes(host) != nil || HostName.isValid(host) else { return nil }
        self.init(host: host, port: port)
    }
}

/// Why a front end could not give its client the destination it asked for; each has its own
/// reply in each protocol.
enum DialRefusal: Error, Equatable {
    /// The access policy refuses the destination, for this reason.
    case notAllowed(AccessPolicy.Refusal)
    /// The name did not resolve.
    case unresolvable
    /// The destination refused the connection or did not answer.
    case unreachable
    /// The proxy is at its connection limit.
    case busy
    /// The client left while its destination was dialed.
    case clientLeft
}

/// How long a front end's client has to complete its handshake (greeting, authentication,
/// request) before it is closed, so that idle or stuck clients do not hold descriptors.
let frontEndHandshakeTimeout = TimeAmount.seconds(10)

/// Closes `context`'s client, with a log line naming `frontEnd`, if its handshake is not done
/// within `frontEndHandshakeTimeout`; `expired` runs first, for the handler to mark itself done.
/// The handler cancels the returned task when the handshake is over or the handler is removed.
func scheduleHandshakeTimeout(
    _ context: ChannelHandlerContext, frontEnd: String, logger: Logger, expired: @escaping () -> Void
) -> Scheduled<Void> {
    context.eventLoop.assumeIsolated().scheduleTask(in: frontEndHandshakeTimeout) {
        logger.info("\(frontEnd) client \(frontEndPeer(context)): no request within the handshake timeout; closing")
        expired()
        context.close(promise: nil)
    }
}

/// A front end's client as log lines name it.
func frontEndPeer(_ context: ChannelHandlerContext) -> String {
    context.channel.remoteAddress?.description ?? "?"
}

/// One read per readable event while a front end reads its client's handshake. NIO otherwise
/// reads up to `maxMessagesPerRead` times per event whatever the pipeline asked for, and bytes
/// a client sends right behind its request would reach the handshake parser (which rejects
/// them) instead of waiting, unread, for the tunnel. Once the client joins its connection it
/// reads as usual again.
struct HandshakeReadLimit {
    private let usual: UInt

    /// Limits `channel`'s reads; call as it is set up.
    init(limiting channel: any Channel) throws {
        guard let options = channel.syncOptions else { throw ChannelError.operationUnsupported }
        usual = try options.getOption(ChannelOptions.maxMessagesPerRead)
        try options.setOption(ChannelOptions.maxMessagesPerRead, value: 1)
    }

    func lift(on channel: any Channel) throws {
        try channel.syncOptions?.setOption(ChannelOptions.maxMessagesPerRead, value: usual)
    }
}

/// A front end's handler leaves a closed channel's pipeline as soon as the channel is
/// inactive, before NIO tears the pipeline down: the handshake handler ahead of it (NIOSOCKS'
/// or the HTTP decoder) hands over the bytes it still holds as it goes, as a `ByteBuffer`,
/// which the front end's handler, taking parsed messages, must not be the one to receive.
func leaveBeforeTeardown(_ context: ChannelHandlerContext) {
    context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
}
