import NetsimCore

/// How a plain long-lived connection is kept alive and checked: an application heartbeat
/// (a small message the server answers), fixed or adaptive, or the kernel's TCP keepalive.
public struct HeartbeatSettings: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A heartbeat every `interval` after the last answer; none within `timeout`: dead.
        case application
        /// TCP keepalive: a probe after `interval` (TCP_KEEPIDLE) without traffic, again every
        /// `timeout` (TCP_KEEPINTVL) while unanswered, dead after `probes` (TCP_KEEPCNT).
        case tcpKeepalive(probes: Int)
    }

    /// An adaptive heartbeat as long-lived push clients run it (Tencent Mars' `smart_heartbeat`,
    /// used by WeChat): start at `initial`, lengthen by `step` after `successesToGrow`
    /// answered heartbeats in a row up to `maximum`; after a failure go back to the last
    /// interval that worked and stay there.
    public struct Adaptive: Sendable, Equatable {
        public var initial: Double
        public var step: Double
        public var successesToGrow: Int
        public var maximum: Double

        /// Mars' figures: 3.5 min, +60 s after 5 successes, up to 10 min.
        public static let mars = Adaptive(initial: 210, step: 60, successesToGrow: 5, maximum: 600)

        public init(initial: Double, step: Double, successesToGrow: Int, maximum: Double) {
            self.initial = initial
            self.step = step
            self.successesToGrow = successesToGrow
            self.maximum = maximum
        }
    }

    public var kind: Kind
    public var interval: Double
    public var timeout: Double
    public var adaptive: Adaptive?
    public var backoff = Backoff()

    public init(kind: Kind, interval: Double, timeout: Double, adaptive: Adaptive? = nil) {
        self.kind = kind
        self.interval = interval
        self.timeout = timeout
        self.adaptive = adaptive
    }
}

/// A long-lived connection kept by heartbeats or TCP keepalive, as a state machine: it opens
/// the connection, probes on its schedule, declares the connection dead when probes go
/// unanswered, and reconnects after a jittered backoff (at once after a connection that had
/// opened).
public struct HeartbeatClientModel: Sendable {
    public enum Phase: Sendable, Equatable {
        case idle
        case opening
        case open
        case backingOff
    }

    public private(set) var phase = Phase.idle
    /// The heartbeat interval in force (the adaptive one moves).
    public private(set) var interval: Double
    let settings: HeartbeatSettings
    private var random: SeededRandom
    private var reconnection: Reconnection
    private var unanswered = 0
    private var successesInRow = 0
    /// The adaptive heartbeat's last interval that was answered, and whether it has settled.
    private var lastGood: Double
    private var settled = false

    public init(settings: HeartbeatSettings, seed: UInt64) {
        self.settings = settings
        self.interval = settings.adaptive?.initial ?? settings.interval
        self.lastGood = interval
        self.random = SeededRandom(seed: seed)
        self.reconnection = Reconnection(settings.backoff)
    }

    public mutating func start(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        connect(into: &actions)
    }

    public mutating func received(_ frame: Frame, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        switch (phase, frame) {
        case (.opening, .accepted):
            phase = .open
            reconnection.startOver()
            unanswered = 0
            actions.append(.setTimer(.ping, at: now + interval))
        case (.open, .heartbeatAck):
            unanswered = 0
            grow()
            actions.append(.cancelTimer(.pingTimeout))
            actions.append(.setTimer(.ping, at: now + interval))
        default:
            break
        }
    }

    public mutating func messageProduced(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {}

    public mutating func timerFired(_ timer: TransportTimer, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        switch (timer, phase) {
        case (.ping, .open):
            unanswered += 1
            actions.append(.send(.heartbeat))
            actions.append(.setTimer(.pingTimeout, at: now + settings.timeout))
        case (.pingTimeout, .open):
            if case .tcpKeepalive(let probes) = settings.kind, unanswered < probes {
                unanswered += 1
                actions.append(.send(.heartbeat))
                actions.append(.setTimer(.pingTimeout, at: now + settings.timeout))
                return
            }
            shrink()
            actions.append(.closeConnection)
            fail(now: now, ledger: &ledger, opened: true, into: &actions)
        case (.retry, .backingOff):
            connect(into: &actions)
        default:
            break
        }
    }

    public mutating func connectionEnded(
        _ end: ConnectionEnd, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {
        switch phase {
        case .opening:
            fail(now: now, ledger: &ledger, opened: false, into: &actions)
        case .open:
            actions.append(.cancelTimer(.ping))
            actions.append(.cancelTimer(.pingTimeout))
            fail(now: now, ledger: &ledger, opened: true, into: &actions)
        case .idle, .backingOff:
            break
        }
    }

    private mutating func connect(into actions: inout [TransportAction]) {
        phase = .opening
        actions.append(.connect)
        actions.append(.send(.open(after: 0, newConnection: true)))
    }

    private mutating func fail(now: Double, ledger: inout AppLedger, opened: Bool, into actions: inout [TransportAction]) {
        ledger.countFailedAttempt()
        phase = .backingOff
        // An open connection that ended is opened again at once; a failed attempt waits.
        guard !opened else {
            connect(into: &actions)
            return
        }
        actions.append(.setTimer(.retry, at: now + reconnection.failed(random: &random)))
    }

    /// An answered heartbeat: the adaptive interval grows after enough in a row.
    private mutating func grow() {
        guard let adaptive = settings.adaptive, !settled else { return }
        lastGood = interval
        successesInRow += 1
        if successesInRow >= adaptive.successesToGrow {
            successesInRow = 0
            interval = min(adaptive.maximum, interval + adaptive.step)
        }
    }

    /// A heartbeat went unanswered: the adaptive interval returns to the last one that worked.
    private mutating func shrink() {
        guard settings.adaptive != nil else { return }
        successesInRow = 0
        if interval > lastGood {
            interval = lastGood
            settled = true
        }
    }
}

extension HeartbeatClientModel: TransportClientModel {}
