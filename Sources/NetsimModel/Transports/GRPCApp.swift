import NetsimCore

/// The gRPC bidi app's policy as a state machine, played by both engines: the model engine
/// plays it over its model of grpc-swift's channel (`GRPCClientModel`), the live bench over
/// grpc-swift itself (an `AppDriver`). grpc-swift owns the HTTP/2 connections under a call, so
/// to the app its connection is its call:
///
/// - `.connect` and `.send(.open(after:newConnection:))` open a call that subscribes after
///   `after` (`newConnection` is the channel's to say: the app sends false); the call's answer,
///   `.accepted`, is the call opening;
/// - `.send(.message(id))` writes an uplink message on it (a batch goes back to back: the
///   contract has no batch frame);
/// - `.closeConnection` cancels it (RST_STREAM);
/// - `connectionEnded` is the call ending, with an error or by the server.
///
/// What it decides:
/// - A lost call is reopened at once, resuming from the last event received, and the backoff's
///   count starts over (`Reconnection`).
/// - A failed attempt waits a jittered exponential backoff, then tries again.
/// - While the phone reports no network it is suspended: no attempts, no growing backoff; when
///   the network returns it tries at once (a mobile OS's reachability callback).
/// - A naive app (`reconnect: naive`) opens every call from now, waits the fixed naive retry
///   and does not hear of the network.
/// - A call reaching its time limit is cancelled and renewed at once, resuming from the last
///   event received.
/// - With batching, a batch's messages go when it is due (`AppLedger.dueMessages`).
public struct GRPCApp: Sendable {
    public enum Call: Sendable, Equatable {
        case none
        case opening
        case open
        case backingOff
        case suspended
    }

    public private(set) var call = Call.none
    private var random: SeededRandom
    private var reconnection: Reconnection
    /// The call's time limit (`ClientSettings.GRPCClientSettings.callTimeLimit`); nil: none.
    let callTimeLimit: Double?
    /// Uplink messages sent in batches; nil: each as soon as it is produced.
    let batching: ClientSettings.Batching?
    /// Where a call resumes, the backoff between attempts and whether it hears of the network.
    let reconnect: ClientSettings.Reconnect
    private var generation = 0
    private var networkAvailable = true

    public init(
        settings: ClientSettings.GRPCClientSettings, batching: ClientSettings.Batching? = nil,
        reconnect: ClientSettings.Reconnect = .resilient, seed: UInt64
    ) {
        self.callTimeLimit = settings.callTimeLimit
        self.batching = batching
        self.reconnect = reconnect
        self.random = SeededRandom(seed: seed)
        self.reconnection = Reconnection(reconnect.backoff(settings.backoff))
    }

    public mutating func start(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        openCall(startingOver: true, now: now, ledger: &ledger, into: &actions)
    }

    /// The call's answer: it opened, and what the outbox holds goes on it.
    public mutating func received(_ frame: Frame, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        guard case .accepted = frame, call == .opening else { return }
        call = .open
        sendOutbox(now: now, ledger: &ledger, into: &actions)
    }

    public mutating func messageProduced(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        if call == .open { sendOutbox(now: now, ledger: &ledger, into: &actions) }
    }

    /// Events and acknowledgements reach the app only on an open call: those of a call the
    /// client cancelled (a renewal) arrive on a closed HTTP/2 stream and are dropped.
    public func delivers(_ frame: Frame) -> Bool {
        switch frame {
        case .event, .ack: call == .open
        default: true
        }
    }

    public mutating func timerFired(_ timer: TransportTimer, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        switch timer {
        case .callDeadline where call == .open || call == .opening:
            ledger.countCallRenewal()
            call = .none
            actions.append(.closeConnection)
            openCall(startingOver: true, now: now, ledger: &ledger, into: &actions)
        case .retry where call == .backingOff:
            openCall(startingOver: false, now: now, ledger: &ledger, into: &actions)
        case .flush where call == .open:
            sendOutbox(now: now, ledger: &ledger, into: &actions)
        default:
            break
        }
    }

    /// The call ended: reopened at once if it had opened, else after backoff (or, offline, when
    /// the network returns).
    public mutating func connectionEnded(
        _ end: ConnectionEnd, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {
        switch call {
        case .open:
            ledger.countFailedAttempt()
            actions.append(.cancelTimer(.callDeadline))
            openCall(startingOver: true, now: now, ledger: &ledger, into: &actions)
        case .opening:
            ledger.countFailedAttempt()
            actions.append(.cancelTimer(.callDeadline))
            guard networkAvailable else {
                call = .suspended
                return
            }
            call = .backingOff
            actions.append(.setTimer(.retry, at: now + reconnection.failed(random: &random)))
        case .none, .backingOff, .suspended:
            break
        }
    }

    /// The phone's network went away or came back; a naive app does not hear of it.
    public mutating func networkChanged(
        available: Bool, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {
        guard reconnect == .resilient else { return }
        networkAvailable = available
        switch (call, available) {
        case (.backingOff, false):
            call = .suspended
            actions.append(.cancelTimer(.retry))
        case (.suspended, true):
            openCall(startingOver: true, now: now, ledger: &ledger, into: &actions)
        default:
            // A live call may survive a stall; an attempt in flight ends by itself.
            break
        }
    }

    /// Opens a call: `startingOver` after one that had opened, at the start and when the
    /// network returns (the backoff's count starts over), not on a retry after a failed attempt.
    private mutating func openCall(
        startingOver: Bool, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {
        if startingOver { reconnection.startOver() }
        guard networkAvailable else {
            call = .suspended
            return
        }
        generation = ledger.beginConnection()
        call = .opening
        actions.append(.connect)
        actions.append(
            .send(.open(after: reconnect.resumeCursor(highestReceived: ledger.highestSequence), newConnection: false)))
        if let callTimeLimit { actions.append(.setTimer(.callDeadline, at: now + callTimeLimit)) }
    }

    private mutating func sendOutbox(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        while let batch = ledger.dueMessages(for: generation, batching: batching, now: now, into: &actions) {
            for message in batch { actions.append(.send(.message(message.id))) }
        }
    }
}

extension GRPCApp: TransportClientModel {}
