import Foundation
import NetsimCore

/// How each transport's client behaves (`--client FILE.yaml`; every key optional). The gRPC
/// section is the mobile client the field recommends; REST and WebSocket get the knobs their
/// protocols have. Shipped files: clients/grpc-tuned.yaml (the defaults below) and
/// clients/grpc-alternative.yaml.
/// ```yaml
/// rest:
///   pollInterval: 1s
///   requestTimeout: 10s
///   backoff: {initial: 500ms, max: 30s, multiplier: 2, jitter: 0.2}
/// websocket:
///   pingInterval: 30s   # a pong missing by the next ping closes the connection
///   backoff: {initial: 500ms, max: 30s, multiplier: 2, jitter: 0.2}
/// grpc:
///   keepalive: {time: 60s, timeout: 10s, permitWithoutCalls: false}
///   backoff: {initial: 500ms, max: 30s, multiplier: 2, jitter: 0.2}
///   callTimeLimit: 10m  # or none
///   receiveBuffer: 64   # events between the network and the app; the oldest is dropped
///                       # (or unbounded, or pull; see `ReceiveBuffer`)
/// # Strategies (issue 12), off by default:
/// batching: {maxMessages: 10, flushAfter: 500ms}   # uplink messages sent in batches
/// consumer: {rate: 50/s}                            # how fast the app handles events
/// ```
public struct ClientSettings: Sendable, Equatable {
    /// Where the settings came from: a file path, or `built-in` for the defaults.
    public var source = "built-in"
    public var rest = RESTSettings()
    /// The `websocket` section, for `BenchTransport.ws`.
    public var ws = WebSocketSettings()
    public var grpc = GRPCClientSettings()

    // MARK: Strategies: batching (2) and slow consumers (5)

    /// Uplink messages sent in batches (every transport); nil: each as soon as it is produced.
    public var batching: Batching?
    /// How fast the app handles events (every transport); nil: as fast as they come.
    public var consumer: Consumer?

    public init() {}

    public struct RESTSettings: Sendable, Equatable {
        public var pollInterval = 1.0
        public var requestTimeout = 10.0
        public var backoff = Backoff()

        public init() {}
    }

    public struct WebSocketSettings: Sendable, Equatable {
        public var pingInterval = 30.0
        public var backoff = Backoff()
        /// Between the network and the app: by default the app handles each event before the
        /// connection reads the next (`pull`).
        public var receiveBuffer = ReceiveBuffer.pull

        public init() {}
    }

    public struct GRPCClientSettings: Sendable, Equatable {
        /// gRPC keepalive: a ping after `keepaliveTime` without reads, the connection closed when
        /// no answer comes within `keepaliveTimeout`. The server's enforcement policy matches it.
        public var keepaliveTime = 60.0
        public var keepaliveTimeout = 10.0
        public var permitWithoutCalls = false
        /// Both the reconnection state machine's backoff between stream attempts and the
        /// transport's between connection attempts.
        public var backoff = Backoff()
        /// The deadline of one streaming call; when it passes the client opens a new call at once
        /// (a renewal, resuming from its last offset). Nil: no deadline.
        public var callTimeLimit: Double? = 600
        /// Events held between the network and the app; when full the oldest is dropped.
        public var receiveBuffer = ReceiveBuffer.bounded(64)

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

/// Exponential backoff between reconnection attempts: `initial` before the second attempt,
/// times `multiplier` for each one after, capped at `maximum`, each spread by up to `jitter`
/// (a fraction) either way so a fleet that lost its network together does not return in step.
public struct Backoff: Sendable, Equatable {
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
    public struct Batching: Sendable, Equatable {
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
    public struct Consumer: Sendable, Equatable {
        public var eventsPerSecond: Double

        public init(eventsPerSecond: Double) {
            self.eventsPerSecond = eventsPerSecond
        }
    }

    /// What a push transport's client holds between the network and the app.
    public enum ReceiveBuffer: Sendable, Equatable, CustomStringConvertible {
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
