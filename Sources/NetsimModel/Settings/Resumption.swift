/// Where a client's next subscription or poll starts, the rule both engines play: a resilient
/// client resumes after the highest event it received, so nothing produced while it was away
/// is lost; a naive one asks "from now" (`fromNow`), which the server resolves to its latest
/// event at the time the request reaches it, skipping for good what was produced meanwhile
/// (the report's "lost by skipping").
extension ClientSettings.Reconnect {
    /// The cursor that means "from now": `after=now` in a REST poll or a WebSocket upgrade, the
    /// largest offset in a gRPC Subscribe.
    public static let fromNow = UInt64.max

    /// Where a subscription (a WebSocket upgrade, a gRPC call) starts, given the highest event
    /// the app received.
    public func resumeCursor(highestReceived: UInt64) -> UInt64 {
        self == .resilient ? highestReceived : Self.fromNow
    }

    /// The backoff a client of this strategy waits between attempts: `configured` when
    /// resilient, `Backoff.naiveRetry` when naive.
    public func backoff(_ configured: Backoff) -> Backoff {
        self == .naive ? .naiveRetry : configured
    }
}

/// Where a REST client's next poll starts. A resilient client asks after the highest event it
/// received. A naive one keeps its own cursor, as a first version does: after a failure (and at
/// its start) it asks from now; after an answer, from the answer's last event, or the server's
/// latest when it asked from now.
public struct PollCursor: Sendable, Equatable {
    public let reconnect: ClientSettings.Reconnect
    /// The naive client's cursor; nil: from now.
    private var own: UInt64?

    public init(_ reconnect: ClientSettings.Reconnect) {
        self.reconnect = reconnect
    }

    /// The poll's `after`, `ClientSettings.Reconnect.fromNow` for "now".
    public func after(highestReceived: UInt64) -> UInt64 {
        reconnect == .resilient ? highestReceived : own ?? ClientSettings.Reconnect.fromNow
    }

    /// A poll was answered through `sequence` (its last event, or the server's latest for a poll
    /// from now); nil: an empty answer, the cursor stays.
    public mutating func answered(through sequence: UInt64?) {
        own = sequence ?? own
    }

    /// A request failed: the naive client's next poll asks from now.
    public mutating func failed() {
        own = nil
    }
}
