import NetsimCore

/// What goes wrong with the network in every scenario of `netsim tune keepalive`, as rates per
/// hour: so a scenario of one hour meets as many impairments per hour as one of six, and the
/// tuner's per-hour figures do not depend on `--horizon` or `--seeds`.
///
/// Placement: each impairment is laid on one line of `seeds x horizon`, one in every
/// `1 / perHour` hours at a place drawn (seeded) within that interval, and the line is cut into
/// the seeds' horizons. A sweep therefore meets every impairment `perHour x seeds x horizon`
/// times to within one, however it is split, while each seed's times stay random. An impairment
/// that would begin while another holds the network begins when that one ends.
public struct Impairments: Sendable, Codable, Equatable {
    public struct Impairment: Sendable, Codable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// As a profile timeline's outage.
            case outage(duration: Double, mode: OutageMode)
            /// The phone changes its address and stays on its network (the profile's start):
            /// a handover to where it is, as a move between cells or a new bearer.
            case handover(mode: HandoverMode, gap: Double)
        }

        public var kind: Kind
        public var perHour: Double

        public init(_ kind: Kind, perHour: Double) {
            self.kind = kind
            self.perHour = perHour
        }

        /// How long it keeps the phone off the network, as its timeline event says.
        public var gap: Double { TimelineEvent(at: 0, kind: timelineKind(network: "")).connectivityGap }

        public var label: String {
            switch kind {
            case .outage(let duration, let mode): "\(mode.rawValue) outage of \(Quantity.formatDuration(duration))"
            case .handover(let mode, let gap): "handover (\(mode.rawValue), \(Quantity.formatDuration(gap)) gap)"
            }
        }
    }

    /// `default`, `none` or the file it was read from.
    public var name: String
    public var list: [Impairment]

    public init(name: String, list: [Impairment]) {
        self.name = name
        self.list = list
    }

    /// A clean network: nothing but the NAT.
    public static let none = Impairments(name: "none", list: [])

    /// Blackhole outages of 5 s (a lift), 30 s (a tunnel, as `lte-tunnel`'s), 2 min and 10 min
    /// (an underground ride, as `subway`'s), each once in 6 hours: netsim's choice, as no
    /// published per-hour rate of coverage holes on phones was found. Handovers that reset
    /// connections (2 s gap) 10 times a day: Urban Airship's push connections (2011, "connection
    /// durability", reported by ReadWrite on 13 July 2011) reconnected fewer than 10 times a day
    /// on most devices, one every 2.4 h on average; some of those reconnects had other causes,
    /// so this is an upper bound on address changes.
    public static let standard = Impairments(
        name: "default",
        list: [5.0, 30, 120, 600].map { Impairment(.outage(duration: $0, mode: .blackhole), perHour: 1.0 / 6) }
            + [Impairment(.handover(mode: .reset, gap: 2), perHour: 10.0 / 24)])

    /// One line for a report: "blackhole outage of 5 s 0.167/h, ... (default)".
    public var summary: String {
        guard !list.isEmpty else { return "no impairments besides the NAT (\(name))" }
        return "per hour: " + list.map { "\($0.label) \(String(format: "%.3g", $0.perHour))" }.joined(separator: ", ") + " (\(name))"
    }

    /// The most an impairment may come: once a minute.
    public static let maximumPerHour = 60.0

    /// Why these impairments cannot be played, or nil: a rate that is not positive or above
    /// `maximumPerHour`, or impairments that keep the phone off the network for more than half
    /// of every hour (then they would mostly wait for each other).
    public var problem: String? {
        if let bad = list.first(where: { !($0.perHour > 0) || $0.perHour > Self.maximumPerHour }) {
            return "\(bad.label): perHour must be above 0 and at most \(Int(Self.maximumPerHour)), not \(bad.perHour)"
        }
        let offline = list.reduce(0) { $0 + $1.perHour * $1.gap }
        if offline > 1800 {
            return
                "the impairments keep the phone off the network for \(Quantity.formatDuration(offline)) of every hour: at most \(Quantity.formatDuration(1800))"
        }
        return nil
    }

    /// Seed `seed`'s timeline over `horizon` seconds on a phone on `network`: its piece of every
    /// impairment's line. `stream` tells scenarios apart that should not share times (the
    /// profile); every configuration of a seed meets the same impairments.
    public func timeline(seed: Int, horizon: Double, network: String, stream: UInt64) -> Timeline {
        let start = Double(seed) * horizon
        var events: [TimelineEvent] = []
        for (index, impairment) in list.enumerated() {
            let interval = 3600 / impairment.perHour
            let first = Int((start / interval).rounded(.down))
            let last = Int(((start + horizon) / interval).rounded(.up))
            for slot in first..<max(first, last) {
                var random = SeededRandom(seed: stream &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(index) &* 0xBF58_476D_1CE4_E5B9 &+ UInt64(slot))
                let at = (Double(slot) + random.unitInterval()) * interval - start
                guard at >= 0, at < horizon else { continue }
                events.append(TimelineEvent(at: at, kind: impairment.timelineKind(network: network)))
            }
        }
        return Timeline(events: Self.separated(events.sorted { $0.at < $1.at }, horizon: horizon))
    }

    /// Moves an event that begins during an earlier one's gap to that gap's end, and drops it
    /// when that is past the horizon: two overlapping outages have no clear meaning.
    private static func separated(_ events: [TimelineEvent], horizon: Double) -> [TimelineEvent] {
        var kept: [TimelineEvent] = []
        var free = 0.0
        for var event in events {
            event.at = max(event.at, free)
            guard event.at < horizon else { continue }
            free = event.at + event.connectivityGap
            kept.append(event)
        }
        return kept
    }
}

/// Written as an impairments file says it: `{"outage": {"duration": 30, "mode": "blackhole"},
/// "perHour": 0.5}`.
extension Impairments.Impairment {
    private enum CodingKeys: String, CodingKey { case outage, handover, perHour }
    private struct Outage: Codable {
        var duration: Double
        var mode: OutageMode
    }
    private struct Handover: Codable {
        var mode: HandoverMode
        var gap: Double
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        perHour = try container.decode(Double.self, forKey: .perHour)
        if let outage = try container.decodeIfPresent(Outage.self, forKey: .outage) {
            kind = .outage(duration: outage.duration, mode: outage.mode)
        } else {
            let handover = try container.decode(Handover.self, forKey: .handover)
            kind = .handover(mode: handover.mode, gap: handover.gap)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(perHour, forKey: .perHour)
        switch kind {
        case .outage(let duration, let mode): try container.encode(Outage(duration: duration, mode: mode), forKey: .outage)
        case .handover(let mode, let gap): try container.encode(Handover(mode: mode, gap: gap), forKey: .handover)
        }
    }

    func timelineKind(network: String) -> TimelineEvent.Kind {
        switch kind {
        case .outage(let duration, let mode): .outage(duration: duration, mode: mode)
        case .handover(let mode, let gap): .handover(to: network, mode: mode, gap: gap)
        }
    }
}
