import NetsimCore
import NetsimModel

/// The gRPC client's reconnection logic as a value: inputs in, actions out. It does no I/O and
/// never reads a clock (callers pass `now`), so tests drive it with a mock clock; the client
/// around it only opens calls and arms timers as told.
///
/// - A lost call is reopened at once, resuming from the last offset received; the backoff's
///   count starts over (`Reconnection`, every client's rule).
/// - A failed attempt waits `Reconnection.failed` (exponential by the failures in a row,
///   jittered), then tries again.
/// - While the phone reports no network, it is suspended: no attempts, no growing backoff;
///   when the network returns it tries at once.
/// - Where a call resumes is `reconnect`'s rule (`ClientSettings.Reconnect.resumeCursor`, the
///   model engine's too): a naive machine opens every call from "now" instead of from its last
///   offset; its backoff and whether it hears of the network are the caller's choice.
struct ReconnectionStateMachine<C: Clock> where C.Duration == Duration {
    enum State: Equatable {
        case idle
        /// A call is being opened.
        case reconnecting(lastOffset: UInt64)
        case connected(lastOffset: UInt64)
        case backingOff(lastOffset: UInt64, until: C.Instant)
        case suspended(lastOffset: UInt64)
        case stopped
    }

    enum Action: Equatable {
        /// `ClientSettings.Reconnect.fromNow`: from now, skipping what was produced while away
        /// (a naive client).
        case openCall(resumeFrom: UInt64)
        case scheduleRetry(at: C.Instant)
        case cancelRetry
        case doNothing
    }

    private(set) var state = State.idle
    /// Failed attempts since the last call that opened, and the waits they earn.
    private(set) var reconnection: Reconnection
    private var random: SeededRandom
    private var networkAvailable = true
    /// Whether a new call resumes from the last offset (resilient) or starts from now (naive).
    let reconnect: ClientSettings.Reconnect

    init(backoff: Backoff, seed: UInt64, reconnect: ClientSettings.Reconnect = .resilient) {
        self.reconnection = Reconnection(backoff)
        self.random = SeededRandom(seed: seed)
        self.reconnect = reconnect
    }

    mutating func start() -> Action {
        guard state == .idle else { return .doNothing }
        return reconnect(startingOver: true, lastOffset: 0)
    }

    /// The server accepted the call.
    mutating func callOpened() -> Action {
        guard case .reconnecting(let offset) = state else { return .doNothing }
        state = .connected(lastOffset: offset)
        return .doNothing
    }

    /// The call ended (failed, refused, or reached its deadline); `lastOffset` is the last
    /// sequence received.
    mutating func callEnded(lastOffset: UInt64, now: C.Instant) -> Action {
        switch state {
        case .connected:
            return reconnect(startingOver: true, lastOffset: lastOffset)
        case .reconnecting:
            guard networkAvailable else {
                state = .suspended(lastOffset: lastOffset)
                return .doNothing
            }
            let until = now.advanced(by: .seconds(reconnection.failed(random: &random)))
            state = .backingOff(lastOffset: lastOffset, until: until)
            return .scheduleRetry(at: until)
        case .idle, .backingOff, .suspended, .stopped:
            return .doNothing
        }
    }

    /// The retry timer fired (perhaps early: then it is armed again for the rest).
    mutating func retryDue(now: C.Instant) -> Action {
        guard case .backingOff(let offset, let until) = state else { return .doNothing }
        guard now >= until else { return .scheduleRetry(at: until) }
        return reconnect(startingOver: false, lastOffset: offset)
    }

    /// The phone's network went away or came back.
    mutating func networkChanged(available: Bool) -> Action {
        networkAvailable = available
        switch (state, available) {
        case (.backingOff(let offset, _), false):
            state = .suspended(lastOffset: offset)
            return .cancelRetry
        case (.suspended(let offset), true):
            return reconnect(startingOver: true, lastOffset: offset)
        default:
            // A live call may survive a stall; an attempt in flight ends by itself.
            return .doNothing
        }
    }

    mutating func stop() -> Action {
        state = .stopped
        return .cancelRetry
    }

    private mutating func reconnect(startingOver: Bool, lastOffset: UInt64) -> Action {
        if startingOver { reconnection.startOver() }
        guard networkAvailable else {
            state = .suspended(lastOffset: lastOffset)
            return .doNothing
        }
        state = .reconnecting(lastOffset: lastOffset)
        return .openCall(resumeFrom: reconnect.resumeCursor(highestReceived: lastOffset))
    }
}
