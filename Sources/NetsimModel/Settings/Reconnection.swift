import NetsimCore

/// The one reconnection rule of every client, modelled and live, whatever its transport:
/// attempts that fail in a row wait longer and longer (`Backoff`, by their count), and the
/// count starts over once a connection opens, a request is answered or the phone's network
/// returns. What counts as a failure is the transport's: a REST request or a WebSocket that
/// fails or drops waits; a gRPC call or a heartbeat connection that had opened and then ended
/// is opened again at once (the count starts over), and only its failed attempts wait.
public struct Reconnection: Sendable, Equatable {
    public let backoff: Backoff
    /// Failed attempts since the count last started over.
    public private(set) var failures = 0

    public init(_ backoff: Backoff) {
        self.backoff = backoff
    }

    /// A connection opened, a request was answered or the network returned: the next failure
    /// waits the shortest time again.
    public mutating func startOver() {
        failures = 0
    }

    /// An attempt failed or a connection was lost: how long to wait before the next attempt,
    /// jittered from `random`.
    public mutating func failed(random: inout SeededRandom) -> Double {
        failures += 1
        return backoff.delay(afterAttempt: failures, random: &random)
    }
}
