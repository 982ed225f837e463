/// The JSON report of `netsim run --report` (schema in docs/run-report.md).
public struct RunReport: Sendable, Codable, Equatable {
    /// Which phone of a run of several (`--phones N`) this is, from 1; absent in a one-phone run.
    public var phone: Int?
    public var netsimVersion: String
    public var profile: String
    public var seed: UInt64
    public var durationSeconds: Double
    public var connections: ConnectionCounters
    /// Payload bytes delivered through the proxy, per direction.
    public var bytes: PerDirection<Int>
    /// How those bytes were delivered: chunks and the TCP segments they make on the emulated path
    /// (what an on-the-wire estimate needs besides the payload: headers per segment, ACKs per burst).
    public var segments: SegmentCounts
    public var radio: RadioReport
    /// Delay the radio added to chunks (paging, promotion, DRX), apart from the links' delay.
    public var radioLatency: RadioWaitTotals
    /// Per direction, the delay netsim added to each chunk delivered (median, 95th percentile,
    /// maximum), and its radio and link parts. Absent from a model bench's per-device reports.
    public var chunkDelays: PerDirection<ChunkDelayFigures>?
    /// Per destination, what its chunks waited for (radio, outage, queue), the longest waits
    /// first. Absent from a model bench's per-device reports.
    public var destinations: [DestinationFigures]?
    /// The first `DeviceModel.eventListLimit` events, in order.
    public var events: [DeviceEvent]
    /// Every event by kind, including those not listed.
    public var eventCounts: [DeviceEvent.Kind: Int]
    /// Events beyond the list's limit: counted in `eventCounts`, not listed.
    public var eventsNotListed: Int
    /// When the profile's timeline was paused (`POST /timeline/pause`) and resumed; absent if
    /// it never was. Scripted events after a pause happened that much later than scripted.
    public var timelinePauses: [TimelinePause]?
    /// How late the profile's timeline started for this phone (`--timeline-phase staggered`);
    /// absent when it started as scripted.
    public var timelineDelaySeconds: Double?
    /// The UDP datagrams the run carried and dropped (`--udp-forward`); absent if it carried none.
    public var datagrams: DatagramFigures?
    /// The gates the run was given (`--fail-if`, `--baseline`, the wrapped command's exit) and
    /// how each came out; absent when it had none.
    public var gates: [GateOutcome]? = nil
    /// With `--junit-in`: the radio's promotions, wake time and energy per test case of the
    /// user's runner, the last row what fell outside every test; absent otherwise.
    public var tests: [TestRadioFigures]? = nil
    /// Per direction, what the receiving app held up: chunks the link had delivered that waited
    /// for the receiving socket to take them (a slow reader). Absent from a model bench's
    /// per-device reports.
    public var readerWait: PerDirection<ReaderWaitFigures>?

    public init(
        netsimVersion: String, profile: String, seed: UInt64, durationSeconds: Double, connections: ConnectionCounters,
        bytes: PerDirection<Int>, segments: SegmentCounts, radio: RadioReport, radioLatency: RadioWaitTotals,
        chunkDelays: PerDirection<ChunkDelayFigures>? = nil, destinations: [DestinationFigures]? = nil, events: [DeviceEvent],
        eventCounts: [DeviceEvent.Kind: Int], eventsNotListed: Int, phone: Int? = nil, timelinePauses: [TimelinePause]? = nil,
        timelineDelaySeconds: Double? = nil, datagrams: DatagramFigures? = nil, readerWait: PerDirection<ReaderWaitFigures>? = nil
    ) {
        self.datagrams = datagrams
        self.readerWait = readerWait
        self.phone = phone
        self.timelineDelaySeconds = timelineDelaySeconds
        self.timelinePauses = timelinePauses
        self.destinations = destinations
        self.netsimVersion = netsimVersion
        self.profile = profile
        self.seed = seed
        self.durationSeconds = durationSeconds
        self.connections = connections
        self.bytes = bytes
        self.segments = segments
        self.radio = radio
        self.radioLatency = radioLatency
        self.chunkDelays = chunkDelays
        self.events = events
        self.eventCounts = eventCounts
        self.eventsNotListed = eventsNotListed
    }
}

public struct ConnectionCounters: Sendable, Codable, Equatable {
    public var opened = 0
    public var closed = 0
    /// Reset by the profile (outage or handover in reset mode, or a resetting NAT).
    public var reset = 0
    /// Silenced by the profile (blackhole outage or handover, or the NAT forgetting them).
    public var blackholed = 0

    public init(opened: Int = 0, closed: Int = 0, reset: Int = 0, blackholed: Int = 0) {
        self.opened = opened
        self.closed = closed
        self.reset = reset
        self.blackholed = blackholed
    }
}

/// Delivered chunks and segments per direction.
public typealias SegmentCounts = PerDirection<DeliveredSegments>

/// Delivered chunks and segments in one direction.
public struct DeliveredSegments: Sendable, Codable, Equatable {
    /// Chunks the proxy delivered: each is a burst of back-to-back segments.
    public var chunks = 0
    /// Full or partial segments of at most `TCPSegmentation.maximumSegmentSize` bytes those chunks make.
    public var segments = 0

    public init(chunks: Int = 0, segments: Int = 0) {
        self.chunks = chunks
        self.segments = segments
    }

    /// The delayed ACKs the other side sends for them: one per two segments of each chunk,
    /// rounded up per chunk (chunks are mostly one segment, so the sum is close to
    /// (segments + chunks) / 2). The bench's wire estimate and the tuner's bytes both count it.
    public var acknowledgements: Int { (segments + chunks + 1) / 2 }
}

extension PerDirection where Value == DeliveredSegments {
    public init() { self.init(up: Value(), down: Value()) }

    /// Counts a delivered chunk of `bytes` (the proxy and the model engine call this for each
    /// one they deliver; inlinable, so the engine's every delivery is not a call).
    @inlinable
    package mutating func add(_ bytes: Int, _ direction: Direction) {
        update(direction) {
            $0.chunks += 1
            $0.segments += TCPSegmentation.segments(bytes)
        }
    }
}

/// A radio wake-up the phone's traffic started: what `GET /events` sends as `radio-woken`, and
/// `/status` lists for the latest ones (so a dashboard opened late still names them).
public struct WakeUp: Sendable, Codable, Equatable {
    /// When the promotion began.
    public var at: Double
    public var cause: WakeCause
    /// Nil for a front end's name lookup (before its connection opens).
    public var connection: ConnectionID?
    /// The connection's name when the bytes were read: a SYN goes before the `Host` or SNI
    /// that names it, so it carries the address or the name dialed.
    public var destination: String
    public var direction: Direction

    public init(at: Double, cause: WakeCause, connection: ConnectionID?, destination: String, direction: Direction) {
        self.at = at
        self.cause = cause
        self.connection = connection
        self.destination = destination
        self.direction = direction
    }
}

/// What bytes woke the radio (`WakeUp`).
public enum WakeCause: String, Sendable, Codable {
    /// A connection's SYN.
    case handshake
    /// A front end's name lookup (a DNS query).
    case lookup
    /// A chunk of a connection's bytes.
    case data
    /// A connection's FIN.
    case close
    /// A UDP datagram (`--udp-forward`, SOCKS5 UDP ASSOCIATE).
    case datagram
}

/// The live state, for the status line and the admin API.
public struct ProxyStatus: Sendable, Codable, Equatable {
    public var elapsedSeconds: Double
    public var network: String
    /// The profile's networks, each a `to` that `POST /network` takes.
    public var networks: [String]
    /// The radio's state now; nil without a radio model (encoded `NONE`).
    public var radioState: RadioState?
    /// The radio's totals so far (zero without a radio model), as the report counts them.
    public var wakeSeconds: Double
    public var energyJoules: Double
    public var promotions: Int
    public var openConnections: Int
    public var bytes: PerDirection<Int>
    /// Bytes the proxy has read and not yet delivered, over every open connection.
    public var queuedBytes: PerDirection<Int>
    /// Whether the device has no connectivity right now (an outage or a handover gap).
    public var disconnected: Bool
    public var lastEvent: DeviceEvent?
    /// The current network's link now, `set` steps included.
    public var link: PerDirection<LinkFigures>
    /// The open connections, oldest first, at most `connectionListLimit` of them
    /// (`openConnections` counts them all).
    public var connections: [ConnectionStatus]
    /// The latest radio wake-ups, oldest first, at most `wakeUpListLimit` of them.
    public var recentWakeUps: [WakeUp]
    /// The profile's timeline: `none` (no events), `playing`, `paused` or `over` (all played).
    public var timeline: TimelineState

    /// Where the profile's timeline is.
    public enum TimelineState: String, Sendable, Codable, Equatable {
        case none, playing, paused, over
    }

    /// The most connections `/status` lists.
    public static let connectionListLimit = 100
    /// The most wake-ups `/status` lists.
    public static let wakeUpListLimit = 32

    /// One open connection as `/status` lists it.
    public struct ConnectionStatus: Sendable, Codable, Equatable {
        public var id: ConnectionID
        /// As the report's `destinations` name it: SNI, Host or `:authority`, else the name or
        /// address dialed, with the port.
        public var destination: String
        /// When it was accepted, in emulated seconds from the start.
        public var openedAt: Double
        /// Bytes written to the other side so far.
        public var bytes: PerDirection<Int>
        /// Bytes read and not yet delivered.
        public var queuedBytes: PerDirection<Int>

        package init(id: ConnectionID, destination: String, openedAt: Double, bytes: PerDirection<Int>, queuedBytes: PerDirection<Int>) {
            self.id = id
            self.destination = destination
            self.openedAt = openedAt
            self.bytes = bytes
            self.queuedBytes = queuedBytes
        }
    }

    package init(
        elapsedSeconds: Double, network: String, networks: [String], radioState: RadioState?, radio: RadioReport, openConnections: Int,
        bytes: PerDirection<Int>, queuedBytes: PerDirection<Int>, disconnected: Bool, lastEvent: DeviceEvent?,
        link: PerDirection<LinkFigures>, connections: [ConnectionStatus], recentWakeUps: [WakeUp], timeline: TimelineState
    ) {
        self.timeline = timeline
        self.elapsedSeconds = elapsedSeconds
        self.network = network
        self.networks = networks
        self.radioState = radioState
        self.wakeSeconds = radio.wakeSeconds
        self.energyJoules = radio.energyJoules
        self.promotions = radio.promotions
        self.openConnections = openConnections
        self.bytes = bytes
        self.queuedBytes = queuedBytes
        self.disconnected = disconnected
        self.lastEvent = lastEvent
        self.link = link
        self.connections = connections
        self.recentWakeUps = recentWakeUps
    }

    private enum CodingKeys: String, CodingKey {
        case elapsedSeconds, network, networks, radioState, wakeSeconds, energyJoules, promotions, openConnections, bytes, queuedBytes
        case disconnected, lastEvent, link, connections, recentWakeUps, timeline
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        elapsedSeconds = try container.decode(Double.self, forKey: .elapsedSeconds)
        network = try container.decode(String.self, forKey: .network)
        networks = try container.decode([String].self, forKey: .networks)
        radioState = RadioState?(reportName: try container.decode(String.self, forKey: .radioState))
        wakeSeconds = try container.decode(Double.self, forKey: .wakeSeconds)
        energyJoules = try container.decode(Double.self, forKey: .energyJoules)
        promotions = try container.decode(Int.self, forKey: .promotions)
        openConnections = try container.decode(Int.self, forKey: .openConnections)
        bytes = try container.decode(PerDirection<Int>.self, forKey: .bytes)
        queuedBytes = try container.decode(PerDirection<Int>.self, forKey: .queuedBytes)
        disconnected = try container.decode(Bool.self, forKey: .disconnected)
        lastEvent = try container.decodeIfPresent(DeviceEvent.self, forKey: .lastEvent)
        link = try container.decode(PerDirection<LinkFigures>.self, forKey: .link)
        connections = try container.decode([ConnectionStatus].self, forKey: .connections)
        recentWakeUps = try container.decode([WakeUp].self, forKey: .recentWakeUps)
        timeline = try container.decode(TimelineState.self, forKey: .timeline)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(elapsedSeconds, forKey: .elapsedSeconds)
        try container.encode(network, forKey: .network)
        try container.encode(networks, forKey: .networks)
        try container.encode(radioState.reportName, forKey: .radioState)
        try container.encode(wakeSeconds, forKey: .wakeSeconds)
        try container.encode(energyJoules, forKey: .energyJoules)
        try container.encode(promotions, forKey: .promotions)
        try container.encode(openConnections, forKey: .openConnections)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(queuedBytes, forKey: .queuedBytes)
        try container.encode(disconnected, forKey: .disconnected)
        try container.encodeIfPresent(lastEvent, forKey: .lastEvent)
        try container.encode(link, forKey: .link)
        try container.encode(connections, forKey: .connections)
        try container.encode(recentWakeUps, forKey: .recentWakeUps)
        try container.encode(timeline, forKey: .timeline)
    }
}

/// One phone of a run of several (`netsim run --phones N`) in a line: `GET /phones` lists them
/// all, for the dashboard's one strip per phone. The figures are `ProxyStatus`'s.
public struct PhoneSummary: Sendable, Codable, Equatable {
    /// The phone's number, from 1.
    public var phone: Int
    public var network: String
    /// The radio's state now; nil without a radio model (encoded `NONE`).
    public var radioState: RadioState?
    public var disconnected: Bool
    public var wakeSeconds: Double
    public var energyJoules: Double
    public var promotions: Int
    public var openConnections: Int
    public var bytes: PerDirection<Int>

    public init(phone: Int, status: ProxyStatus) {
        self.phone = phone
        network = status.network
        radioState = status.radioState
        disconnected = status.disconnected
        wakeSeconds = status.wakeSeconds
        energyJoules = status.energyJoules
        promotions = status.promotions
        openConnections = status.openConnections
        bytes = status.bytes
    }

    private enum CodingKeys: String, CodingKey {
        case phone, network, radioState, disconnected, wakeSeconds, energyJoules, promotions, openConnections, bytes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        phone = try container.decode(Int.self, forKey: .phone)
        network = try container.decode(String.self, forKey: .network)
        radioState = RadioState?(reportName: try container.decode(String.self, forKey: .radioState))
        disconnected = try container.decode(Bool.self, forKey: .disconnected)
        wakeSeconds = try container.decode(Double.self, forKey: .wakeSeconds)
        energyJoules = try container.decode(Double.self, forKey: .energyJoules)
        promotions = try container.decode(Int.self, forKey: .promotions)
        openConnections = try container.decode(Int.self, forKey: .openConnections)
        bytes = try container.decode(PerDirection<Int>.self, forKey: .bytes)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(phone, forKey: .phone)
        try container.encode(network, forKey: .network)
        try container.encode(radioState.reportName, forKey: .radioState)
        try container.encode(disconnected, forKey: .disconnected)
        try container.encode(wakeSeconds, forKey: .wakeSeconds)
        try container.encode(energyJoules, forKey: .energyJoules)
        try container.encode(promotions, forKey: .promotions)
        try container.encode(openConnections, forKey: .openConnections)
        try container.encode(bytes, forKey: .bytes)
    }
}
