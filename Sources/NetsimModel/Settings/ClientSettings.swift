import Foundation
import NetsimCore

/// How each transport's client behaves (`--client FILE.yaml`; every key optional). The gRPC
/// section is the mobile client the field recommends; REST and WebSocket get the knobs their
/// protocols have. Shipped files: clients/grpc-tuned.yaml (the defaults below) and
/// clients/grpc-alternative.yaml.
/// ```yaml
/// reconnect: resilient  # or naive (every transport; see `Reconnect`)
/// rest:
///   pollInterval: 1s
///   requestTimeout: 10s  # or none: a request waits as long as its connection does
///   backoff: {initial: 500ms, max: 30s, multiplier: 2, jitter: 0.2}
///   watchNetwork: false # true: no requests while the phone is offline (as gRPC)
/// websocket:
///   pingInterval: 30s   # a pong missing by the next ping closes the connection; or none
///   backoff: {initial: 500ms, max: 30s, multiplier: 2, jitter: 0.2}
///   watchNetwork: false
/// quic:                 # the model engine only
///   keepAlivePeriod: 15s  # a PING after this long without a packet received; or none
///   maxIdleTimeout: 30s   # the client's; the server's is serverIdleTimeout (60s); the smaller wins
///   handshakeTimeout: 5s
///   zeroRTT: true         # reconnect with the session ticket, the request in the first flight
///   onNetworkChange: migrate  # or wait (for the next packet), or reconnect
///   backoff: {initial: 500ms, max: 30s, multiplier: 2, jitter: 0.2}
///   watchNetwork: true
/// grpc:
///   keepalive: {time: 60s, timeout: 10s, permitWithoutCalls: false}
///   backoff: {initial: 500ms, max: 30s, multiplier: 2, jitter: 0.2}
///   callTimeLimit: 10m  # or none
///   receiveBuffer: 64   # events between the network and the app; the oldest is dropped
///                       # (or unbounded, or pull; see `ReceiveBuffer`)
/// # Strategies, off by default:
/// batching: {maxMessages: 10, flushAfter: 500ms}   # uplink messages sent in batches
/// consumer: {rate: 50/s}                            # how fast the app handles events
/// ```
public struct ClientSettings: Sendable, Equatable, Codable {
    /// Where the settings came from: a file path, or `built-in` for the defaults.
    public var source = "built-in"
    public var rest = RESTSettings()
    /// The `websocket` section, for `BenchTransport.ws`.
    public var ws = WebSocketSettings()
    public var grpc = GRPCClientSettings()
    /// The `quic` section, for `BenchTransport.quic` (the model engine only).
    public var quic = QUICSettings()

    // MARK: Reconnection strategy (strategy 1)

    /// How every transport's client gets back after losing its connection.
    public var reconnect = Reconnect.resilient

    // MARK: Strategies: batching (2) and slow consumers (5)

    /// Uplink messages sent in batches (every transport); nil: each as soon as it is produced.
    public var batching: Batching?
    /// How fast the app handles events (every transport); nil: as fast as they come.
    public var consumer: Consumer?

    public init() {}

    /// The shipped file that holds the built-in defaults, for a reader who wants to start
    /// from them (a test keeps the two equal).
    public static let defaultsFile = "clients/grpc-tuned.yaml"

    /// `source` as a report says it: the built-in defaults name their file.
    public static func describe(source: String) -> String {
        source == ClientSettings().source ? "\(source), the values of \(defaultsFile)" : source
    }

    public struct RESTSettings: Sendable, Equatable, Codable {
        public var pollInterval = 1.0
        /// The deadline of one request; nil: none (it waits on a dead connection for good).
        public var requestTimeout: Double? = 10
        public var backoff = Backoff()
        /// Whether the app watches the phone's network as the gRPC client does: no requests
        /// while it is offline, the next at once when it is back (strategy 6).
        public var watchNetwork = false

        public init() {}
    }

    public struct WebSocketSettings: Sendable, Equatable, Codable {
        /// Client and server ping this often, and a pong missing by the next ping closes the
        /// connection; nil: no pings (a dead connection goes unnoticed until a write fails).
        public var pingInterval: Double? = 30
        public var backoff = Backoff()
        /// Whether the app watches the phone's network as the gRPC client does: no connection
        /// attempts while it is offline, one at once when it is back (strategy 6).
        public var watchNetwork = false
        /// Between the network and the app: by default the app handles each event before the
        /// connection reads the next (`pull`).
        public var receiveBuffer = ReceiveBuffer.pull

        public init() {}
    }

    public struct GRPCClientSettings: Sendable, Equatable, Codable {
        /// gRPC keepalive: a ping after `keepaliveTime` without reads, the connection closed when
        /// no answer comes within `keepaliveTimeout`. The server's enforcement policy matches it.
        public var keepaliveTime = 60.0
        public var keepaliveTimeout = 10.0
        public var permitWithoutCalls = false
        /// gRPC C-core's `grpc.http2.max_pings_without_data`: after this many pings with no
        /// HEADERS or DATA written since, the client sends at most one ping a minute until it
        /// writes some (grpcio 1.85.3, measured through netsim: pings at 2 s and 4 s, then 64 s,
        /// with a 2 s keepalive; C-core's `max_pings_wo_data_throttle`). Nil: no limit, as in
        /// grpc-swift, grpc-java and grpc-go, and C-core given 0. C-core's default is 2, so a
        /// client given only `grpc.keepalive_time_ms` under a minute pings once a minute on an
        /// idle stream.
        public var maxPingsWithoutData: Int?
        /// Both the reconnection state machine's backoff between stream attempts and the
        /// transport's between connection attempts.
        public var backoff = Backoff()
        /// The deadline of one streaming call; when it passes the client opens a new call at once
        /// (a renewal, resuming from its last offset). Nil: no deadline.
        public var callTimeLimit: Double? = 600
        /// Events held between the network and the app; when full the oldest is dropped.
        public var receiveBuffer = ReceiveBuffer.bounded(64)
        /// How the client's transport reconnects after an unclean close; nil: grpc-swift 2's, as
        /// the live bench's client does.
        public var reconnection: GRPCReconnection?

        public init() {}

        /// The same client with every timer divided by `timeScale`, for a live run whose clocks
        /// all run `timeScale` times faster than the wall clock (the tuner's `--verify`).
        public func scaled(by timeScale: Double) -> GRPCClientSettings {
            var scaled = self
            scaled.keepaliveTime /= timeScale
            scaled.keepaliveTimeout /= timeScale
            scaled.backoff.initial /= timeScale
            scaled.backoff.maximum /= timeScale
            scaled.callTimeLimit = callTimeLimit.map { $0 / timeScale }
            return scaled
        }
    }
}

// MARK: Reconnection strategy (strategy 1)

extension ClientSettings {
    /// How a client gets back after losing its connection: the two patterns mobile guides
    /// contrast, played against each other by the bench.
    public enum Reconnect: String, Sendable, Equatable, CaseIterable, Codable {
        /// Today's clients: exponential backoff with jitter, suspended while the phone has no
        /// network (gRPC always; REST and WebSocket with `watchNetwork`), and resumption after
        /// the last event received, so nothing produced while away is lost.
        case resilient
        /// What a first version often does: tries again at once in a loop (a fixed
        /// `Backoff.naiveRetry` between failed attempts, no growth, no jitter, network or not)
        /// and subscribes from "now", so events produced while it was away are never delivered.
        case naive
    }

    /// What every client of these settings waits between attempts (`Reconnect.backoff`).
    public func backoff(_ configured: Backoff) -> Backoff {
        reconnect.backoff(configured)
    }
}

extension Backoff {
    /// The naive client's retry loop: 100 ms between failed attempts, always, no jitter. Not
    /// zero: a failed connect to a local proxy returns in microseconds, and a zero wait would
    /// spin a core per device instead of measuring a retry storm; real apps' "retry at once"
    /// loops are bounded the same way by their connect round trip.
    public static let naiveRetry = Backoff(initial: 0.1, maximum: 0.1, multiplier: 1, jitter: 0)
}

/// Exponential backoff between reconnection attempts: `initial` before the second attempt,
/// times `multiplier` for each one after, capped at `maximum`, each spread by up to `jitter`
/// (a fraction) either way so a fleet that lost its network together does not return in step.
public struct Backoff: Sendable, Equatable, Codable {
    public var initial = 0.5
    public var maximum = 30.0
    public var multiplier = 2.0
    public var jitter = 0.2

    public init(initial: Double = 0.5, maximum: Double = 30, multiplier: Double = 2, jitter: Double = 0.2) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// The wait after failed attempt number `attempt` (from 1), before jitter.
    public func baseDelay(afterAttempt attempt: Int) -> Double {
        min(maximum, initial * pow(multiplier, Double(max(0, attempt - 1))))
    }

    /// The wait after failed attempt number `attempt`, jittered from `random`.
    public func delay(afterAttempt attempt: Int, random: inout SeededRandom) -> Double {
        baseDelay(afterAttempt: attempt) * (1 + jitter * (2 * random.unitInterval() - 1))
    }
}

// MARK: Strategies: batching (2) and slow consumers (5)

extension ClientSettings {
    /// A request batcher for uplink messages: unsent messages wait until `maxMessages` of them
    /// are ready or the oldest has waited `flushAfter` seconds, then go together (one POST for
    /// REST, one frame for WebSocket, back-to-back messages on the stream for gRPC). Fewer,
    /// larger sends let the radio sleep between them, at the price of the wait.
    public struct Batching: Sendable, Equatable, Codable {
        public var maxMessages = 10
        public var flushAfter = 0.5

        public init(maxMessages: Int = 10, flushAfter: Double = 0.5) {
            self.maxMessages = maxMessages
            self.flushAfter = flushAfter
        }

        public enum Decision: Sendable, Equatable {
            /// Send the oldest `count` unsent messages now.
            case send(count: Int)
            /// Nothing is due before this time (seconds on the bench clock).
            case wait(until: Double)
            /// No message is waiting.
            case idle
        }

        /// What to do with `pending` unsent messages, the oldest produced at `oldestCreatedAt`,
        /// at `now`. A batch is due when it is full or its oldest message has waited long enough.
        public func decide(pending: Int, oldestCreatedAt: Double, now: Double) -> Decision {
            guard pending > 0 else { return .idle }
            if pending >= maxMessages || now >= oldestCreatedAt + flushAfter { return .send(count: min(pending, maxMessages)) }
            return .wait(until: oldestCreatedAt + flushAfter)
        }
    }

    /// The app's pace: it handles `eventsPerSecond` events a second, however fast they arrive.
    public struct Consumer: Sendable, Equatable, Codable {
        public var eventsPerSecond: Double

        public init(eventsPerSecond: Double) {
            self.eventsPerSecond = eventsPerSecond
        }
    }

    /// What a push transport's client holds between the network and the app.
    public enum ReceiveBuffer: Sendable, Equatable, Codable, CustomStringConvertible {
        /// Everything that arrives waits for the app: memory grows with a burst the app cannot
        /// keep up with. The anti-pattern, kept for demonstration; capped at
        /// `unboundedSafetyLimit` events (then the oldest is dropped and counted) so that the
        /// bench process itself cannot run away.
        case unbounded
        /// At most this many events; when full the oldest is dropped (and counted).
        case bounded(Int)
        /// No buffer: the app handles each event before the client reads the next, so the
        /// transport's flow control (TCP's window, and HTTP/2's for gRPC) holds the server back.
        case pull

        /// The unbounded buffer's safety cap, in events.
        public static let unboundedSafetyLimit = 100_000

        public var description: String {
            switch self {
            case .unbounded: "unbounded"
            case .bounded(let limit): "\(limit)"
            case .pull: "pull"
            }
        }
    }
}

/// How a gRPC client's transport reconnects after an unclean close (a keepalive timeout, or a
/// RST or TCP timeout with a call open). The libraries differ, and the difference decides what
/// a short NAT does to a client (`GRPCClientModel`).
public enum GRPCReconnection: String, Sendable, Codable, CaseIterable {
    /// grpc-swift 2 (grpc-swift-nio-transport 2.9.2): two connections race, and when the
    /// reconnection wins, the other waits idle, without pings unless `permitWithoutCalls`, for
    /// the next call.
    case grpcSwift2 = "grpc-swift-2"
    /// grpc-java and grpc-kotlin, grpc-go, gRPC C-core (grpcio, gRPC-ObjC) and grpc-swift 1.x:
    /// one connection, opened for the call that is reopened.
    case oneConnection = "one-connection"
}
