import NetsimCore

/// The WebSocket app as a state machine, as the live bench's client runs it over
/// hummingbird-websocket: one connection that receives pushed events and sends the outbox;
/// after the upgrade it pings every ping interval (16 random bytes), and a ping still unanswered
/// when the next is due closes the connection ("Ping timeout", close code 1001). Whenever the
/// connection ends it reconnects after a jittered backoff (the first retry after a connection
/// that had opened waits the initial backoff) and resumes after the last event received.
/// The library has no upgrade timeout: an upgrade that never gets through waits, as live.
public struct WebSocketClientModel: Sendable {
    public enum Phase: Sendable, Equatable {
        case idle
        case upgrading
        case open(awaitingPong: Bool)
        case backingOff
    }

    public private(set) var phase = Phase.idle
    let settings: ClientSettings.WebSocketSettings
    private var random: SeededRandom
    private var failures = 0
    private var generation = 0

    public init(settings: ClientSettings.WebSocketSettings, seed: UInt64) {
        self.settings = settings
        self.random = SeededRandom(seed: seed)
    }

    public mutating func start(now: Double, ledger: inout AppLedger) -> [TransportAction] {
        connect(ledger: &ledger)
    }

    public mutating func received(_ frame: Frame, now: Double, ledger: inout AppLedger) -> [TransportAction] {
        switch (phase, frame) {
        case (.upgrading, .accepted):
            phase = .open(awaitingPong: false)
            failures = 0
            return sendOutbox(ledger: &ledger) + (settings.pingInterval.map { [.setTimer(.ping, at: now + $0)] } ?? [])
        case (.open, .pong(toClient: true)):
            phase = .open(awaitingPong: false)
            return []
        case (.open, .ping(fromClient: false)):
            return [.send(.pong(toClient: false))]
        case (.open, .close):
            return end(now: now, ledger: &ledger, closing: true)
        default:
            return []
        }
    }

    public mutating func messageProduced(now: Double, ledger: inout AppLedger) -> [TransportAction] {
        guard case .open = phase else { return [] }
        return sendOutbox(ledger: &ledger)
    }

    public mutating func timerFired(_ timer: TransportTimer, now: Double, ledger: inout AppLedger) -> [TransportAction] {
        switch (timer, phase) {
        case (.ping, .open(let awaitingPong)):
            if awaitingPong {
                return [.send(.close)] + end(now: now, ledger: &ledger, closing: true)
            }
            phase = .open(awaitingPong: true)
            return [.send(.ping(fromClient: true))] + (settings.pingInterval.map { [.setTimer(.ping, at: now + $0)] } ?? [])
        case (.retry, .backingOff):
            return connect(ledger: &ledger)
        default:
            return []
        }
    }

    public mutating func connectionEnded(_ end: ConnectionEnd, now: Double, ledger: inout AppLedger) -> [TransportAction] {
        switch phase {
        case .upgrading, .open: self.end(now: now, ledger: &ledger, closing: false)
        case .idle, .backingOff: []
        }
    }

    private mutating func connect(ledger: inout AppLedger) -> [TransportAction] {
        generation = ledger.beginConnection()
        phase = .upgrading
        return [.connect, .send(.open(after: ledger.highestSequence, newConnection: true))]
    }

    private mutating func sendOutbox(ledger: inout AppLedger) -> [TransportAction] {
        var actions: [TransportAction] = []
        while let id = ledger.nextMessage(for: generation) { actions.append(.send(.message(id))) }
        return actions
    }

    private mutating func end(now: Double, ledger: inout AppLedger, closing: Bool) -> [TransportAction] {
        let wasOpen = if case .open = phase { true } else { false }
        ledger.countFailedAttempt()
        failures = wasOpen ? 1 : failures + 1
        phase = .backingOff
        var actions: [TransportAction] = [.cancelTimer(.ping)]
        if closing { actions.append(.closeConnection) }
        actions.append(.setTimer(.retry, at: now + settings.backoff.delay(afterAttempt: failures, random: &random)))
        return actions
    }
}
