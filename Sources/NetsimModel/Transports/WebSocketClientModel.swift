import NetsimCore

/// The WebSocket app as a state machine, which both engines play (the live bench through an
/// `AppDriver` over `LiveWebSocketTransport`, on hummingbird-websocket, whose auto-ping plays
/// this machine's pings there): one connection that receives pushed events and sends the outbox;
/// after the upgrade it pings every ping interval (16 random bytes), and a ping still unanswered
/// when the next is due closes the connection ("Ping timeout", close code 1001). Whenever the
/// connection ends it reconnects after a jittered backoff (the first retry after a connection
/// that had opened waits the initial backoff) and resumes where its `ClientSettings.Reconnect`
/// says: after the last event received, or (naive, with its fixed retry) from now.
/// The library has no upgrade timeout: an upgrade that never gets through waits, as live.
/// With batching, each batch goes as one text frame (a JSON array) when it is due.
/// With `watchNetwork` (a resilient client only), it makes no upgrade attempt while the phone
/// is offline: a connection that ends offline waits for the network instead of its backoff, and
/// a retry that comes due offline waits too; back online, it connects at once, its backoff's
/// count started over. A backoff already running is waited out, as the live loop sleeps it.
public struct WebSocketClientModel: Sendable {
    public enum Phase: Sendable, Equatable {
        case idle
        case upgrading
        case open(awaitingPong: Bool)
        case backingOff
        /// Watching the network, offline: no attempt until it returns.
        case suspended
    }

    public private(set) var phase = Phase.idle
    let settings: ClientSettings.WebSocketSettings
    private var random: SeededRandom
    private var reconnection: Reconnection
    /// Uplink messages sent in batches, one frame each; nil: a frame per message.
    let batching: ClientSettings.Batching?
    /// Where an upgrade resumes, and the backoff between attempts.
    let reconnect: ClientSettings.Reconnect
    private var generation = 0
    /// Whether the app asks for the network before each attempt (`watchNetwork`, resilient only).
    private let watchesNetwork: Bool
    private var networkAvailable = true

    public init(
        settings: ClientSettings.WebSocketSettings, batching: ClientSettings.Batching? = nil,
        reconnect: ClientSettings.Reconnect = .resilient, seed: UInt64
    ) {
        self.settings = settings
        self.batching = batching
        self.reconnect = reconnect
        self.random = SeededRandom(seed: seed)
        self.reconnection = Reconnection(reconnect.backoff(settings.backoff))
        self.watchesNetwork = settings.watchNetwork && reconnect == .resilient
    }

    public mutating func start(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        connect(ledger: &ledger, into: &actions)
    }

    public mutating func received(_ frame: Frame, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        switch (phase, frame) {
        case (.upgrading, .accepted):
            phase = .open(awaitingPong: false)
            reconnection.startOver()
            sendOutbox(now: now, ledger: &ledger, into: &actions)
            if let interval = settings.pingInterval { actions.append(.setTimer(.ping, at: now + interval)) }
        case (.open, .pong(toClient: true)):
            phase = .open(awaitingPong: false)
        case (.open, .ping(fromClient: false)):
            actions.append(.send(.pong(toClient: false)))
        case (.open, .close):
            end(now: now, ledger: &ledger, closing: true, into: &actions)
        default:
            break
        }
    }

    public mutating func messageProduced(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        guard case .open = phase else { return }
        sendOutbox(now: now, ledger: &ledger, into: &actions)
    }

    public mutating func timerFired(_ timer: TransportTimer, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        switch (timer, phase) {
        case (.ping, .open(let awaitingPong)):
            if awaitingPong {
                actions.append(.send(.close))
                end(now: now, ledger: &ledger, closing: true, into: &actions)
                return
            }
            phase = .open(awaitingPong: true)
            actions.append(.send(.ping(fromClient: true)))
            if let interval = settings.pingInterval { actions.append(.setTimer(.ping, at: now + interval)) }
        case (.retry, .backingOff):
            connect(ledger: &ledger, into: &actions)
        case (.flush, .open):
            sendOutbox(now: now, ledger: &ledger, into: &actions)
        default:
            break
        }
    }

    public mutating func connectionEnded(
        _ end: ConnectionEnd, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {
        switch phase {
        case .upgrading, .open: self.end(now: now, ledger: &ledger, closing: false, into: &actions)
        case .idle, .backingOff, .suspended: break
        }
    }

    /// Only a watching app hears of it, and only a suspended one acts: back online, it connects
    /// at once, its backoff's count started over.
    public mutating func networkChanged(
        available: Bool, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {
        networkAvailable = available
        guard available, phase == .suspended else { return }
        reconnection.startOver()
        connect(ledger: &ledger, into: &actions)
    }

    /// A watching app with no network: it makes no attempt until the network returns.
    private var isOffline: Bool { watchesNetwork && !networkAvailable }

    private mutating func connect(ledger: inout AppLedger, into actions: inout [TransportAction]) {
        guard !isOffline else {
            phase = .suspended
            return
        }
        generation = ledger.beginConnection()
        phase = .upgrading
        actions.append(.connect)
        actions.append(.send(.open(after: reconnect.resumeCursor(highestReceived: ledger.highestSequence), newConnection: true)))
    }

    private mutating func sendOutbox(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        while let batch = ledger.dueMessages(for: generation, batching: batching, now: now, into: &actions),
            let first = batch.first?.id, let last = batch.last?.id
        {
            actions.append(.send(batching == nil ? .message(first) : .messageBatch(first: first, last: last)))
        }
    }

    private mutating func end(now: Double, ledger: inout AppLedger, closing: Bool, into actions: inout [TransportAction]) {
        ledger.countFailedAttempt()
        phase = .backingOff
        actions.append(.cancelTimer(.ping))
        if closing { actions.append(.closeConnection) }
        // Offline, the wait for the network replaces the backoff.
        if isOffline {
            phase = .suspended
            return
        }
        actions.append(.setTimer(.retry, at: now + reconnection.failed(random: &random)))
    }
}
