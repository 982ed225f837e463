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
/// ```
public struct ClientSettings: Sendable, Equatable {
    /// Where the settings came from: a file path, or `built-in` for the defaults.
    public var source = "built-in"
    public var rest = RESTSettings()
    /// The `websocket` section, for `BenchTransport.ws`.
    public var ws = WebSocketSettings()
    public var grpc = GRPCClientSettings()

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
        public var receiveBuffer = 64

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
