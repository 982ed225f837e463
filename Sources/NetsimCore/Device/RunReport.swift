/// The JSON report of `netsim run --report` (schema in docs/run-report.md).
public struct RunReport: Sendable, Codable, Equatable {
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

    public init(
        netsimVersion: String, profile: String, seed: UInt64, durationSeconds: Double, connections: ConnectionCounters,
        bytes: PerDirection<Int>, segments: SegmentCounts, radio: RadioReport, radioLatency: RadioWaitTotals,
        chunkDelays: PerDirection<ChunkDelayFigures>? = nil, destinations: [DestinationFigures]? = nil, events: [DeviceEvent],
        eventCounts: [DeviceEvent.Kind: Int], eventsNotListed: Int
    ) {
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
    /// one they deliver).
    package mutating func add(_ bytes: Int, _ direction: Direction) {
        self[direction].chunks += 1
        self[direction].segments += TCPSegmentation.segments(bytes)
    }
}

/// The live state, for the status line and the admin API.
public struct ProxyStatus: Sendable, Codable, Equatable {
    public var elapsedSeconds: Double
    public var network: String
    /// The radio's state now; nil without a radio model (encoded `NONE`).
    public var radioState: RadioState?
    public var openConnections: Int
    public var bytes: PerDirection<Int>
    /// Whether the device has no connectivity right now (an outage or a handover gap).
    public var disconnected: Bool
    public var lastEvent: DeviceEvent?
    /// The current network's link now, `set` steps included.
    public var link: PerDirection<LinkFigures>

    package init(
        elapsedSeconds: Double, network: String, radioState: RadioState?, openConnections: Int,
        bytes: PerDirection<Int>, disconnected: Bool, lastEvent: DeviceEvent?, link: PerDirection<LinkFigures>
    ) {
        self.link = link
        self.elapsedSeconds = elapsedSeconds
        self.network = network
        self.radioState = radioState
        self.openConnections = openConnections
        self.bytes = bytes
        self.disconnected = disconnected
        self.lastEvent = lastEvent
    }

    private enum CodingKeys: String, CodingKey {
        case elapsedSeconds, network, radioState, openConnections, bytes, disconnected, lastEvent, link
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        elapsedSeconds = try container.decode(Double.self, forKey: .elapsedSeconds)
        network = try container.decode(String.self, forKey: .network)
        radioState = RadioState?(reportName: try container.decode(String.self, forKey: .radioState))
        openConnections = try container.decode(Int.self, forKey: .openConnections)
        bytes = try container.decode(PerDirection<Int>.self, forKey: .bytes)
        disconnected = try container.decode(Bool.self, forKey: .disconnected)
        lastEvent = try container.decodeIfPresent(DeviceEvent.self, forKey: .lastEvent)
        link = try container.decode(PerDirection<LinkFigures>.self, forKey: .link)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(elapsedSeconds, forKey: .elapsedSeconds)
        try container.encode(network, forKey: .network)
        try container.encode(radioState.reportName, forKey: .radioState)
        try container.encode(openConnections, forKey: .openConnections)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(disconnected, forKey: .disconnected)
        try container.encodeIfPresent(lastEvent, forKey: .lastEvent)
        try container.encode(link, forKey: .link)
    }
}
