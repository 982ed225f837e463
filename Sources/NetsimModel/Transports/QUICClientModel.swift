import NetsimCore

/// How the modelled QUIC client keeps and recovers its connection. The defaults are those of
/// the stacks phones run (docs/model-engine.md cites each): Chromium's (Cronet's) 30 s idle
/// timeout and its PING every 15 s while a stream is open, migration to the new network on a
/// handover, and 0-RTT with the session ticket of the last connection.
public struct QUICSettings: Sendable, Equatable, Codable {
    /// A PING when nothing has been received for this long, at most half the idle timeout
    /// (quic-go's `KeepAlivePeriod`; Chromium pings every 15 s while a stream is open); nil: none.
    public var keepAlivePeriod: Double? = 15
    /// The client's `max_idle_timeout` transport parameter (RFC 9000 section 10.1).
    public var maxIdleTimeout = 30.0
    /// The server's `max_idle_timeout` (aioquic's default). Both ends close after the smaller.
    public var serverIdleTimeout = 60.0
    /// A handshake with no answer for this long fails (quic-go's `HandshakeIdleTimeout`).
    public var handshakeTimeout = 5.0
    /// Reconnect with the last connection's session ticket and send the request as 0-RTT data.
    public var zeroRTT = true
    /// What the client does when a handover changes the phone's address.
    public var onNetworkChange = NetworkChange.migrate
    public var backoff = Backoff()
    /// No connection attempts while the phone has no network, one as soon as it has.
    public var watchNetwork = true

    public init() {}

    /// A QUIC client's answer to a new address of the phone (RFC 9000 section 9).
    public enum NetworkChange: String, Sendable, Equatable, Codable, CaseIterable {
        /// Send from the new address at once (a PING), so the server validates the path and
        /// moves the connection: Cronet on Android (`migrate_sessions_on_network_change_v2`).
        case migrate
        /// Nothing until the next packet the client sends anyway, which the server sees from a
        /// new address and moves the connection for: aioquic, and quic-go without its path API.
        case wait
        /// Close the connection and connect again, as Chromium does with migration off (and as a
        /// TCP connection must).
        case reconnect
    }

    /// The idle timeout both ends apply: the smaller of the two (RFC 9000 section 10.1).
    public var effectiveIdleTimeout: Double { min(maxIdleTimeout, serverIdleTimeout) }
}

/// A push app over QUIC (an HTTP/3 request whose response streams the events, its body the
/// app's messages), as a state machine over one connection:
/// - a new connection is a 1-RTT handshake: the ClientHello, the server's flight, then the
///   client's Finished with the request; with a session ticket (any connection after the
///   first) and 0-RTT on, the request goes with the ClientHello;
/// - a PING every `keepAlivePeriod` while open; nothing answers it but the server's ACK;
/// - nothing received for the idle timeout (counted from the last packet received, or from the
///   first ack-eliciting packet sent after it, RFC 9000 section 10.1) closes the connection
///   silently; a stateless reset closes it at once; either way the client connects again, at
///   once if the connection had opened, after a jittered backoff if the attempt failed;
/// - a handover that changes the phone's address: the client sends a PING from the new address
///   (the server migrates the connection) instead of reconnecting.
public struct QUICClientModel: Sendable {
    public enum Phase: Sendable, Equatable {
        case idle
        case handshaking(resumed: Bool)
        case open
        case backingOff
        /// Waiting for the network to return.
        case suspended
    }

    public private(set) var phase = Phase.idle
    let settings: QUICSettings
    private var random: SeededRandom
    private var reconnection: Reconnection
    /// Uplink messages sent in batches, back to back on the request stream; nil: each as soon
    /// as it is produced.
    let batching: ClientSettings.Batching?
    /// A naive client resumes from now, waits the fixed naive retry and does not watch the
    /// network, as every naive client.
    let reconnect: ClientSettings.Reconnect
    private var generation = 0
    /// A session ticket from an earlier connection.
    private var hasTicket = false
    private var networkAvailable = true
    /// Whether an ack-eliciting packet went out since the last one received (the idle timer
    /// restarts only on the first).
    private var sentSinceReceipt = false
    /// Whether the current connection's handshake is done (its idle timeout is then the
    /// connection's, not the handshake's).
    private var handshakeComplete = false

    public init(
        settings: QUICSettings, batching: ClientSettings.Batching? = nil, reconnect: ClientSettings.Reconnect = .resilient,
        seed: UInt64
    ) {
        self.settings = settings
        self.batching = batching
        self.reconnect = reconnect
        self.random = SeededRandom(seed: seed)
        self.reconnection = Reconnection(reconnect.backoff(settings.backoff))
    }

    public mutating func start(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        connect(now: now, ledger: &ledger, into: &actions)
    }

    public mutating func received(_ frame: Frame, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        switch phase {
        case .handshaking, .open: break
        case .idle, .backingOff, .suspended: return
        }
        if frame == .statelessReset {
            lost(now: now, ledger: &ledger, into: &actions)
            return
        }
        sentSinceReceipt = false
        switch (phase, frame) {
        case (.handshaking(let resumed), .serverHello):
            handshakeComplete = true
            send(.clientFinished, now: now, into: &actions)
            if !resumed { actions.append(.send(request(ledger))) }
            return
        case (.handshaking, .accepted):
            phase = .open
            hasTicket = true
            reconnection.startOver()
            sendOutbox(now: now, ledger: &ledger, into: &actions)
        case (_, .pathChallenge):
            send(.pathResponse, now: now, into: &actions)
        default:
            break
        }
        actions.append(.setTimer(.idle, at: now + idleTimeout))
        if phase == .open, let period = keepAlivePeriod { actions.append(.setTimer(.ping, at: now + period)) }
    }

    public mutating func messageProduced(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        guard phase == .open else { return }
        sendOutbox(now: now, ledger: &ledger, into: &actions)
    }

    public mutating func timerFired(_ timer: TransportTimer, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        switch (timer, phase) {
        case (.ping, .open):
            send(.ping(fromClient: true), now: now, into: &actions)
            if let period = keepAlivePeriod { actions.append(.setTimer(.ping, at: now + period)) }
        case (.idle, .handshaking), (.idle, .open):
            actions.append(.closeConnection)
            lost(now: now, ledger: &ledger, into: &actions)
        case (.retry, .backingOff):
            connect(now: now, ledger: &ledger, into: &actions)
        case (.flush, .open):
            sendOutbox(now: now, ledger: &ledger, into: &actions)
        default:
            break
        }
    }

    /// A QUIC connection ends only by its idle timer or a stateless reset, both handled above;
    /// the engine says nothing else of it.
    public mutating func connectionEnded(
        _ end: ConnectionEnd, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {}

    public mutating func networkChanged(
        available: Bool, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {
        networkAvailable = available
        guard watchesNetwork else { return }
        switch (phase, available) {
        case (.backingOff, false):
            phase = .suspended
            actions.append(.cancelTimer(.retry))
        case (.suspended, true):
            reconnection.startOver()
            connect(now: now, ledger: &ledger, into: &actions)
        default:
            break
        }
    }

    /// The phone's address changed (a handover): per `onNetworkChange`, an open connection
    /// migrates at once, waits for the client's next packet, or is replaced.
    public mutating func addressChanged(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        guard phase == .open else { return }
        switch settings.onNetworkChange {
        case .migrate:
            send(.ping(fromClient: true), now: now, into: &actions)
        case .wait:
            break
        case .reconnect:
            actions.append(.closeConnection)
            lost(now: now, ledger: &ledger, into: &actions)
        }
    }

    /// The HTTP/3 request that subscribes, from where `reconnect` resumes.
    private func request(_ ledger: AppLedger) -> Frame {
        .open(after: reconnect.resumeCursor(highestReceived: ledger.highestSequence), newConnection: true)
    }

    private var watchesNetwork: Bool { settings.watchNetwork && reconnect == .resilient }

    /// The PING interval in force: quic-go's, at most half the idle timeout so that one lost
    /// PING does not cost the connection.
    private var keepAlivePeriod: Double? {
        settings.keepAlivePeriod.map { min($0, settings.effectiveIdleTimeout / 2) }
    }

    /// The idle timeout in force: the handshake's until it is done.
    private var idleTimeout: Double {
        handshakeComplete ? settings.effectiveIdleTimeout : settings.handshakeTimeout
    }

    private mutating func connect(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        guard networkAvailable || !watchesNetwork else {
            phase = .suspended
            return
        }
        generation = ledger.beginConnection()
        let resumed = hasTicket && settings.zeroRTT
        phase = .handshaking(resumed: resumed)
        handshakeComplete = false
        sentSinceReceipt = false
        actions.append(.connect)
        send(.clientHello(resumed: resumed), now: now, into: &actions)
        if resumed { actions.append(.send(request(ledger))) }
    }

    /// The connection is gone: connect again at once if it had opened, else after backoff.
    private mutating func lost(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        let opened = phase == .open
        ledger.countFailedAttempt()
        actions.append(.cancelTimer(.ping))
        actions.append(.cancelTimer(.idle))
        phase = .backingOff
        if opened {
            reconnection.startOver()
            connect(now: now, ledger: &ledger, into: &actions)
            return
        }
        guard networkAvailable || !watchesNetwork else {
            phase = .suspended
            return
        }
        actions.append(.setTimer(.retry, at: now + reconnection.failed(random: &random)))
    }

    /// Sends an ack-eliciting frame; the first since the last packet received restarts the
    /// idle timer.
    private mutating func send(_ frame: Frame, now: Double, into actions: inout [TransportAction]) {
        actions.append(.send(frame))
        guard !sentSinceReceipt else { return }
        sentSinceReceipt = true
        actions.append(.setTimer(.idle, at: now + idleTimeout))
    }

    private mutating func sendOutbox(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        while let batch = ledger.dueMessages(for: generation, batching: batching, now: now, into: &actions) {
            for message in batch { send(.message(message.id), now: now, into: &actions) }
        }
    }
}

extension QUICClientModel: TransportClientModel {}
