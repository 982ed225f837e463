/// Scripted events on a device's network, optionally repeating.
public struct Timeline: Sendable, Equatable, Codable {
    /// Events sorted by time (the loader sorts them; equal times keep profile order).
    public var events: [TimelineEvent]
    /// When set, the events repeat with this period (which is at least as long as the last
    /// event and its duration, and at least `minimumRepeatPeriod`).
    public var repeatPeriod: Double?

    /// The shortest period a profile may repeat its timeline with. Shorter ones fire events
    /// faster than connections can act on them, and grow the event record without bound.
    public static let minimumRepeatPeriod: Double = 1

    public init(events: [TimelineEvent] = [], repeatPeriod: Double? = nil) {
        self.events = events
        self.repeatPeriod = repeatPeriod
    }

    /// How long one pass of the timeline lasts: its period if it repeats, else until its last
    /// event ends (an outage's or a handover gap's end); 0 without events.
    public var span: Double {
        repeatPeriod ?? events.map { $0.at + $0.connectivityGap }.max() ?? 0
    }

    /// How late a phone's timeline starts when a run's phones are staggered
    /// (`netsim run --timeline-phase staggered`): uniform in [0, `span`), drawn from its own
    /// generator of `seed` (the phone's), so the phone's other draws are a one-phone run's.
    public func staggerDelay(seed: UInt64) -> Double {
        var random = SeededRandom(seed: seed ^ Self.staggerSeedSalt)
        return random.unitInterval() * span
    }

    /// Keeps the stagger draw apart from the phone's own stream of the same seed.
    static let staggerSeedSalt: UInt64 = 0x5354_4147_4745_5221
}

public struct TimelineEvent: Sendable, Equatable, Codable {
    /// Seconds from the start of the run (or of the repetition).
    public var at: Double
    public var kind: Kind

    public init(at: Double, kind: Kind) {
        self.at = at
        self.kind = kind
    }

    public enum Kind: Sendable, Equatable, Codable {
        /// No connectivity for `duration`; `mode` says what happens to the connections open at
        /// its start.
        case outage(duration: Double, mode: OutageMode)
        /// The device moves to another network after `gap` with no connectivity. Its radio
        /// there starts IDLE. `mode` says what happens to the connections open at the time.
        case handover(to: String, mode: HandoverMode, gap: Double)
        /// Changes link parameters from now on, on the named network (default: the current one).
        case set(network: String?, up: LinkChange, down: LinkChange)
        /// The phone's signal strength (SS-RSRP, dBm) on its current network from now on: the
        /// radio's connected power follows it (`RadioStateMachine.signal`), as a phone walking
        /// away from its cell draws more. A handover's new network starts at its radio's `rsrp`.
        case signal(rsrp: Double)

        /// Whether datagrams sent during the event's gap wait for its end: the phone keeps its
        /// path through a `stall` outage and a `keep` handover, and loses it in the others
        /// (`ConnectivityGaps.Gap.holdsDatagrams`).
        public var holdsDatagrams: Bool {
            switch self {
            case .outage(_, let mode): mode == .stall
            case .handover(_, let mode, _): mode == .keep
            case .set, .signal: true
            }
        }
    }

    /// How long the event holds connectivity down (0 for `set` and `signal`).
    public var connectivityGap: Double {
        switch kind {
        case .outage(let duration, _): duration
        case .handover(_, _, let gap): gap
        case .set, .signal: 0
        }
    }

    public var kindName: String {
        switch kind {
        case .outage: "outage"
        case .handover: "handover"
        case .set: "set"
        case .signal: "signal"
        }
    }
}

/// What an outage does to the connections that are open when it starts.
public enum OutageMode: String, Sendable, CaseIterable, Equatable, Codable {
    /// The link is down; bytes wait and flow again afterwards, as TCP retransmission delivers them.
    case stall
    /// Open connections never deliver another byte; no FIN or RST reaches either side.
    case blackhole
    /// Both sides of every open connection get a RST.
    case reset
}

/// What a handover does to the connections that are open at the time.
public enum HandoverMode: String, Sendable, CaseIterable, Equatable, Codable {
    /// The old address is gone: connections are reset.
    case reset
    /// The old address is gone and nobody says so: connections go silent.
    case blackhole
    /// Same address (a handover between cells): connections stall for the gap and go on.
    case keep
}

/// The link fields a `set` event changes; nil fields keep their value.
public struct LinkChange: Sendable, Equatable, Codable {
    public var capacity: LinkCapacity?
    public var delay: Double?
    public var jitter: Jitter??
    public var loss: LossModel?
    public var queueLimit: Int??

    public init(
        capacity: LinkCapacity? = nil, delay: Double? = nil, jitter: Jitter?? = nil,
        loss: LossModel? = nil, queueLimit: Int?? = nil
    ) {
        self.capacity = capacity
        self.delay = delay
        self.jitter = jitter
        self.loss = loss
        self.queueLimit = queueLimit
    }

    public var isEmpty: Bool { self == LinkChange() }

    public func applied(to link: LinkParameters) -> LinkParameters {
        var result = link
        if let capacity { result.capacity = capacity }
        if let delay { result.delay = delay }
        if let jitter { result.jitter = jitter }
        if let loss { result.loss = loss }
        if let queueLimit { result.queueLimit = queueLimit }
        return result
    }

    /// The change that puts back what this one sets, as `link` had it before: the same fields,
    /// their earlier values. Fields this change leaves alone stay out of it, so that undoing it
    /// keeps what later changes set there.
    public func undoing(on link: LinkParameters) -> LinkChange {
        LinkChange(
            capacity: capacity.map { _ in link.capacity }, delay: delay.map { _ in link.delay },
            jitter: jitter.map { _ in link.jitter }, loss: loss.map { _ in link.loss },
            queueLimit: queueLimit.map { _ in link.queueLimit })
    }
}
