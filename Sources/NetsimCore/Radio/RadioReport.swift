/// What a radio did over a run: the `radio` object of every netsim report (run, bench, analyze).
public struct RadioReport: Sendable, Equatable, Codable {
    /// The radio model(s): `lte`, or `wifi+lte` when handovers moved the device between radios.
    public var model: String
    /// The time the figures cover.
    public var durationSeconds: Double
    /// All time not IDLE, promotions included.
    public var wakeSeconds: Double
    /// Promotions from IDLE.
    public var promotions: Int
    /// Promotions by the state they started from (`IDLE`; `FACH` on UMTS; `INACTIVE` on 5G SA).
    /// This and the per-state figures encode as JSON objects keyed by the states' names
    /// (`RadioState` is `CodingKeyRepresentable`); a report naming a state netsim does not know
    /// is refused as unreadable.
    public var promotionsByOrigin: [RadioState: Int]
    public var energyJoules: Double
    /// The part of `energyJoules` that the throughput terms (alpha) add.
    public var transferEnergyJoules: Double
    public var secondsByState: [RadioState: Double]
    public var energyJoulesByState: [RadioState: Double]
    /// Transport payload on air within `durationSeconds`, counted when it went on air (so also
    /// bytes the other side had not yet received when the report ended). A run report's
    /// top-level `bytes` counts the payload delivered to the other side; `analyze` counts the
    /// payload of the device's packets, which is this.
    public var bytes: PerDirection<Int>
    /// Bytes the model had accepted but not yet put on air when the figures end: held by an
    /// outage or a handover gap until TCP's retransmission, by a promotion, or by the link.
    /// Neither in `bytes` nor charged: the run did not reach the time they would go on air.
    public var heldAtEnd: HeldTraffic
    /// Every state change, when recording was asked for.
    public var timeline: [RadioStateSegment]?
    /// With more than one radio (a run over WiFi and LTE): each radio's share of the figures,
    /// in the order the device first used them; nil with one radio.
    public var byRadio: [RadioShare]?

    /// One radio's part of a report that spans several.
    public struct RadioShare: Sendable, Equatable, Codable {
        public var model: String
        public var durationSeconds: Double
        public var wakeSeconds: Double
        public var promotions: Int
        public var energyJoules: Double
    }

    public var meanPowerMilliwatts: Double {
        durationSeconds > 0 ? energyJoules / durationSeconds * 1000 : 0
    }

    /// Chunks and their bytes per direction, for traffic not yet on air.
    public typealias HeldTraffic = PerDirection<HeldCount>

    /// Chunks held in one direction and their bytes.
    public struct HeldCount: Sendable, Equatable, Codable {
        public var chunks = 0
        public var bytes = 0

        public init(chunks: Int = 0, bytes: Int = 0) {
            self.chunks = chunks
            self.bytes = bytes
        }
    }

    public init(
        model: String, durationSeconds: Double, wakeSeconds: Double, promotions: Int,
        promotionsByOrigin: [RadioState: Int], energyJoules: Double, transferEnergyJoules: Double,
        secondsByState: [RadioState: Double], energyJoulesByState: [RadioState: Double], bytes: PerDirection<Int>,
        heldAtEnd: HeldTraffic = HeldTraffic(), timeline: [RadioStateSegment]?
    ) {
        self.model = model
        self.durationSeconds = durationSeconds
        self.wakeSeconds = wakeSeconds
        self.promotions = promotions
        self.promotionsByOrigin = promotionsByOrigin
        self.energyJoules = energyJoules
        self.transferEnergyJoules = transferEnergyJoules
        self.secondsByState = secondsByState
        self.energyJoulesByState = energyJoulesByState
        self.bytes = bytes
        self.heldAtEnd = heldAtEnd
        self.timeline = timeline
    }

    /// A device with no radio: nothing wakes, nothing is spent.
    public static func noRadio(durationSeconds: Double, bytes: PerDirection<Int>) -> RadioReport {
        RadioReport(
            model: RadioTechnology.none.rawValue, durationSeconds: durationSeconds, wakeSeconds: 0, promotions: 0,
            promotionsByOrigin: [:], energyJoules: 0, transferEnergyJoules: 0, secondsByState: [:],
            energyJoulesByState: [:], bytes: bytes, timeline: nil)
    }

    /// The reports of the radios a device used one after another (handovers), as one.
    public static func sequential(_ reports: [RadioReport]) -> RadioReport {
        guard var total = reports.first else { return .noRadio(durationSeconds: 0, bytes: .init(up: 0, down: 0)) }
        var models = [total.model]
        var shares: [RadioShare] = []
        for report in reports.flatMap({ $0.byRadio ?? [$0.share] }) where report.model != RadioTechnology.none.rawValue {
            if let index = shares.firstIndex(where: { $0.model == report.model }) {
                shares[index].durationSeconds += report.durationSeconds
                shares[index].wakeSeconds += report.wakeSeconds
                shares[index].promotions += report.promotions
                shares[index].energyJoules += report.energyJoules
            } else {
                shares.append(report)
            }
        }
        for report in reports.dropFirst() {
            if !models.contains(report.model) { models.append(report.model) }
            total.durationSeconds += report.durationSeconds
            total.wakeSeconds += report.wakeSeconds
            total.promotions += report.promotions
            total.promotionsByOrigin.merge(report.promotionsByOrigin, uniquingKeysWith: +)
            total.energyJoules += report.energyJoules
            total.transferEnergyJoules += report.transferEnergyJoules
            total.secondsByState.merge(report.secondsByState, uniquingKeysWith: +)
            total.energyJoulesByState.merge(report.energyJoulesByState, uniquingKeysWith: +)
            total.bytes.up += report.bytes.up
            total.bytes.down += report.bytes.down
            total.heldAtEnd = total.heldAtEnd + report.heldAtEnd
            if let segments = report.timeline { total.timeline = (total.timeline ?? []) + segments }
        }
        total.model = models.filter { $0 != RadioTechnology.none.rawValue }.joined(separator: "+")
        if total.model.isEmpty { total.model = RadioTechnology.none.rawValue }
        total.byRadio = shares.count > 1 ? shares : nil
        return total
    }

    /// This report as one radio's share.
    private var share: RadioShare {
        RadioShare(
            model: model, durationSeconds: durationSeconds, wakeSeconds: wakeSeconds, promotions: promotions, energyJoules: energyJoules)
    }

    enum CodingKeys: String, CodingKey {
        case model, durationSeconds, wakeSeconds, promotions, promotionsByOrigin, energyJoules
        case transferEnergyJoules, meanPowerMilliwatts, secondsByState, energyJoulesByState, bytes, heldAtEnd, timeline, byRadio
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(model, forKey: .model)
        try container.encode(durationSeconds, forKey: .durationSeconds)
        try container.encode(wakeSeconds, forKey: .wakeSeconds)
        try container.encode(promotions, forKey: .promotions)
        try container.encode(promotionsByOrigin, forKey: .promotionsByOrigin)
        try container.encode(energyJoules, forKey: .energyJoules)
        try container.encode(transferEnergyJoules, forKey: .transferEnergyJoules)
        try container.encode(meanPowerMilliwatts, forKey: .meanPowerMilliwatts)
        try container.encode(secondsByState, forKey: .secondsByState)
        try container.encode(energyJoulesByState, forKey: .energyJoulesByState)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(heldAtEnd, forKey: .heldAtEnd)
        try container.encodeIfPresent(timeline, forKey: .timeline)
        try container.encodeIfPresent(byRadio, forKey: .byRadio)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        model = try container.decode(String.self, forKey: .model)
        durationSeconds = try container.decode(Double.self, forKey: .durationSeconds)
        wakeSeconds = try container.decode(Double.self, forKey: .wakeSeconds)
        promotions = try container.decode(Int.self, forKey: .promotions)
        promotionsByOrigin = try container.decode([RadioState: Int].self, forKey: .promotionsByOrigin)
        energyJoules = try container.decode(Double.self, forKey: .energyJoules)
        transferEnergyJoules = try container.decode(Double.self, forKey: .transferEnergyJoules)
        secondsByState = try container.decode([RadioState: Double].self, forKey: .secondsByState)
        energyJoulesByState = try container.decode([RadioState: Double].self, forKey: .energyJoulesByState)
        bytes = try container.decode(PerDirection<Int>.self, forKey: .bytes)
        // Reports written before netsim said what was held (baselines) held nothing it knew of.
        heldAtEnd = try container.decodeIfPresent(HeldTraffic.self, forKey: .heldAtEnd) ?? HeldTraffic()
        timeline = try container.decodeIfPresent([RadioStateSegment].self, forKey: .timeline)
        byRadio = try container.decodeIfPresent([RadioShare].self, forKey: .byRadio)
    }
}

/// A span of time in one state. In JSON the state is its name (`RadioState`'s raw value).
public struct RadioStateSegment: Sendable, Equatable, Codable {
    public var state: RadioState
    public var start: Double
    public var end: Double

    public init(state: RadioState, start: Double, end: Double) {
        self.state = state
        self.start = start
        self.end = end
    }
}

/// Collects state spans, merging a span into the previous one when the state is the same and
/// they touch. Keeps the first `segmentLimit` spans: a proxy that runs for days records its
/// phone's timeline with a bounded memory (a wake-up makes four or five spans on LTE).
public struct StateTimelineRecorder: Sendable, Codable {
    private(set) var segments: [RadioStateSegment] = []

    /// The most spans kept; later ones are in the radio's totals, not in its timeline.
    public static let segmentLimit = 100_000

    mutating func append(_ state: RadioState, from start: Double, to end: Double) {
        guard end > start else { return }
        if let last = segments.last, last.state == state, abs(last.end - start) < 1e-9 {
            segments[segments.count - 1].end = end
        } else if segments.count < Self.segmentLimit {
            segments.append(RadioStateSegment(state: state, start: start, end: end))
        }
    }
}

extension PerDirection where Value == RadioReport.HeldCount {
    public init() { self.init(up: Value(), down: Value()) }

    public mutating func add(_ bytes: Int, _ direction: Direction) {
        self[direction].chunks += 1
        self[direction].bytes += bytes
    }

    public static func + (lhs: Self, rhs: Self) -> Self {
        var sum = lhs
        for direction in Direction.allCases {
            sum[direction].chunks += rhs[direction].chunks
            sum[direction].bytes += rhs[direction].bytes
        }
        return sum
    }

    public var isEmpty: Bool { self == Self() }
}
