import NetsimCore

/// How a gRPC server polices and probes its clients' connections (gRFC A8): the least interval
/// between client pings it accepts, whether pings without an open call are allowed (if not,
/// one per two hours), how many bad pings it tolerates before GOAWAY ENHANCE_YOUR_CALM
/// "too_many_pings", and its own keepalive (a PING after that long without reading anything).
/// Bad-ping strikes and the last accepted ping are forgotten whenever the server writes
/// HEADERS or DATA, as both gRPC core and grpc-swift-nio-transport do.
public struct GRPCServerPolicy: Sendable, Equatable, Codable {
    public var name: String
    /// Nil: pings are never policed.
    public var minPingInterval: Double?
    public var allowWithoutCalls: Bool
    public var maxPingStrikes: Int
    /// Nil: the server sends no keepalive pings.
    public var keepaliveTime: Double?
    public var keepaliveTimeout: Double

    /// A8: with no call open and pings without calls not permitted, one ping per two hours.
    public static let intervalWithoutCalls = 7200.0

    public init(
        name: String, minPingInterval: Double?, allowWithoutCalls: Bool, maxPingStrikes: Int, keepaliveTime: Double?,
        keepaliveTimeout: Double
    ) {
        self.name = name
        self.minPingInterval = minPingInterval
        self.allowWithoutCalls = allowWithoutCalls
        self.maxPingStrikes = maxPingStrikes
        self.keepaliveTime = keepaliveTime
        self.keepaliveTimeout = keepaliveTimeout
    }

    /// gRPC core's and grpc-java's server defaults (grpc/grpc doc/keepalive.md):
    /// `GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS` 5 min, `..._MAX_PING_STRIKES` 2,
    /// `GRPC_ARG_KEEPALIVE_TIME_MS` 2 h, `..._TIMEOUT_MS` 20 s, permit without calls 0.
    public static let grpcCore = GRPCServerPolicy(
        name: "grpc-core", minPingInterval: 300, allowWithoutCalls: false, maxPingStrikes: 2, keepaliveTime: 7200,
        keepaliveTimeout: 20)

    /// grpc-swift-2's server transport defaults (grpc-swift-nio-transport 2.9.2,
    /// `HTTP2ServerTransport.Config.Keepalive.defaults`): keepalive 2 h / 20 s,
    /// `minPingIntervalWithoutCalls` 5 min, `allowWithoutCalls` false; strikes fixed at 2.
    public static let grpcSwift = GRPCServerPolicy(
        name: "grpc-swift", minPingInterval: 300, allowWithoutCalls: false, maxPingStrikes: 2, keepaliveTime: 7200,
        keepaliveTimeout: 20)

    /// No enforcement and no server pings.
    public static let none = GRPCServerPolicy(
        name: "none", minPingInterval: nil, allowWithoutCalls: true, maxPingStrikes: 2, keepaliveTime: nil, keepaliveTimeout: 20)

    /// The live bench's server (`EventStreamService.transport`): accepts pings as often as the
    /// client's keepalive time, with or without calls as the client is configured, and pings
    /// after twice that time without reads.
    public static func matching(_ client: ClientSettings.GRPCClientSettings) -> GRPCServerPolicy {
        GRPCServerPolicy(
            name: "matching-client", minPingInterval: client.keepaliveTime, allowWithoutCalls: client.permitWithoutCalls,
            maxPingStrikes: 2, keepaliveTime: client.keepaliveTime * 2, keepaliveTimeout: client.keepaliveTimeout)
    }
}

/// The server's ping policing on one HTTP/2 connection, as a value.
struct PingPolicing: Sendable, Equatable {
    private var lastAcceptedPing: Double?
    private var strikes = 0

    /// Whether a client ping at `time` is one too many (the connection gets GOAWAY).
    mutating func receivedPing(at time: Double, callOpen: Bool, policy: GRPCServerPolicy) -> Bool {
        guard let minimum = policy.minPingInterval else { return false }
        let interval = callOpen || policy.allowWithoutCalls ? minimum : GRPCServerPolicy.intervalWithoutCalls
        if let last = lastAcceptedPing, last + interval > time {
            strikes += 1
            return strikes > policy.maxPingStrikes
        }
        lastAcceptedPing = time
        return false
    }

    /// The server wrote HEADERS or DATA.
    mutating func wroteHeadersOrData() {
        lastAcceptedPing = nil
        strikes = 0
    }
}
