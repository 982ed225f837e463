import Foundation
import NetsimCore
import NetsimModel

/// A finished sweep: each configuration's metrics per profile and NAT timeout (over the
/// seeds), which configurations are viable, the Pareto front of energy against detection
/// time, and the recommendation.
public struct KeepaliveResults: Sendable {
    public let sweep: KeepaliveSweep
    public let keepalives: [KeepaliveSweep.Keepalive]
    /// One row per keepalive, profile and NAT timeout.
    public let rows: [Row]
    /// One summary per keepalive over every profile and NAT timeout.
    public let summaries: [Summary]
    /// Viable summaries on the front, by energy.
    public let pareto: [Summary]
    public let recommended: Summary?
    /// The seeds played: `sweep.seeds`, or fewer when SIGINT or SIGTERM stopped the sweep.
    public let seedsPlayed: Int
    /// Whether the sweep was stopped before every seed had played.
    public var isPartial: Bool { seedsPlayed < sweep.seeds }

    public struct Metrics: Sendable, Codable, Equatable {
        public var energyJoulesPerHour: Double
        public var wakeSecondsPerHour: Double
        public var promotionsPerHour: Double
        public var bytesPerHour: Double
        public var natExpiriesPerHour: Double
        public var detectionSeconds: Percentiles
        public var blackoutSecondsPerHour: Double
        public var reconnectsPerHour: Double
        /// QUIC: connections moved to a new address of the phone (a handover, a NAT rebinding);
        /// absent for the TCP transports.
        public var migrationsPerHour: Double? = nil
        public var goaways: Double
        public var serverPingsPerSecondPerMillionClients: Double
    }

    public struct Percentiles: Sendable, Codable, Equatable {
        public var p50: Double
        public var p95: Double
        public var max: Double
        public var mean: Double
        public var count: Int
    }

    public struct Row: Sendable {
        public var keepalive: KeepaliveSweep.Keepalive
        public var profile: String
        public var natTimeoutSeconds: Double?
        public var metrics: Metrics
    }

    public struct Summary: Sendable {
        public var keepalive: KeepaliveSweep.Keepalive
        public var metrics: Metrics
        /// Why it is not viable (empty when it is), one reason per constraint in `ruledOutBy`.
        public var disqualified: [String]
        /// The constraints it fails, in `Constraint`'s order.
        public var ruledOutBy: [Constraint] = []
        public var viable: Bool { disqualified.isEmpty }
    }

    /// What makes a configuration not viable.
    public enum Constraint: String, Sendable, CaseIterable, Codable {
        /// The server's ping policy answered with GOAWAY too_many_pings.
        case serverPolicy
        /// Connections died to NAT expiry (QUIC: the NAT forgot the phone).
        case natExpiry
        /// The p95 time to notice a dead connection missed `--detect-within`.
        case detection

        /// The constraint in a sentence's words, for `policy`'s server.
        func failure(policy: String, detectWithin: Double) -> String {
            switch self {
            case .serverPolicy: "drew GOAWAY too_many_pings from the \(policy) server policy"
            case .natExpiry: "lost connections to NAT expiry"
            case .detection: "missed detection within \(KeepaliveRendering.seconds(detectWithin)) at p95"
            }
        }
    }

    /// How many configurations each constraint ruled out (a configuration may fail several),
    /// in `Constraint`'s order, the ones that ruled out none left out.
    public var ruledOut: [(constraint: Constraint, count: Int)] {
        Constraint.allCases.compactMap { constraint in
            let count = summaries.count { $0.ruledOutBy.contains(constraint) }
            return count > 0 ? (constraint, count) : nil
        }
    }

    /// When no configuration is viable: the best one the server's ping policy allows, marked a
    /// compromise in every report: of those that draw no GOAWAY, the one failing the fewest
    /// constraints, then the one whose app spends the least time holding a dead connection
    /// unaware (blackout per hour: NAT expiries per hour alone would favour the longest
    /// keepalive, which loses fewer connections an hour only by sitting dead longer), then the
    /// one noticing soonest at p95, then the cheapest. Nil when a configuration is viable, or
    /// when every one draws a GOAWAY.
    public let compromise: Summary?

    /// What `tune keepalive` and `report merge` exit 0 with: a recommendation or a compromise.
    public var advice: Summary? { recommended ?? compromise }

    /// The recommendation behind one NAT timeout alone: what a fleet that meets only that NAT
    /// should use.
    public struct NATRecommendation: Sendable {
        public var natTimeoutSeconds: Double?
        public var recommended: Summary?
    }

    /// The NAT timeout without which the grid would recommend another configuration.
    public struct DecidingNAT: Sendable {
        public var natTimeoutSeconds: Double?
        /// What would be recommended without it, with its figures over the whole grid.
        public var instead: Summary
    }

    /// One recommendation per NAT timeout of the sweep, in the sweep's order.
    public let perNAT: [NATRecommendation]
    /// The NAT timeout that decides the overall recommendation. Of several, the one whose
    /// absence changes the energy most; nil when no single NAT decides.
    public let drivingNAT: DecidingNAT?

    init(
        sweep: KeepaliveSweep, keepalives: [KeepaliveSweep.Keepalive], scenarios: [KeepaliveSweep.Scenario], metrics: [ScenarioMetrics],
        seedsPlayed: Int
    ) {
        self.sweep = sweep
        self.keepalives = keepalives
        self.seedsPlayed = seedsPlayed
        var groups: [Int: [Int: [Int: [ScenarioMetrics]]]] = [:]
        for (scenario, measured) in zip(scenarios, metrics) {
            groups[scenario.keepalive, default: [:]][scenario.profile, default: [:]][scenario.nat, default: []].append(measured)
        }
        let judge = Judge(sweep: sweep, keepalives: keepalives, groups: groups)
        rows = judge.rows
        let allNATs = Array(sweep.natTimeouts.indices)
        summaries = judge.summaries(natIndices: allNATs)
        pareto = Self.front(summaries.filter(\.viable))
        let recommended = Self.knee(pareto)
        self.recommended = recommended
        compromise = recommended != nil ? nil : Self.compromise(summaries)
        perNAT = allNATs.map {
            NATRecommendation(natTimeoutSeconds: sweep.natTimeouts[$0], recommended: judge.recommendation(natIndices: [$0]))
        }
        let summaries = summaries
        let deciding: [DecidingNAT] =
            allNATs.count < 2 || recommended == nil
            ? []
            : allNATs.compactMap { nat in
                guard let alternative = judge.recommendation(natIndices: allNATs.filter { $0 != nat }),
                    alternative.keepalive != recommended?.keepalive,
                    let instead = summaries.first(where: { $0.keepalive == alternative.keepalive })
                else { return nil }
                return DecidingNAT(natTimeoutSeconds: sweep.natTimeouts[nat], instead: instead)
            }
        let energy = recommended?.metrics.energyJoulesPerHour ?? 0
        // The first of equals, as the sweep orders its NATs.
        drivingNAT =
            deciding.enumerated().max { lhs, rhs in
                let (a, b) = (
                    abs(lhs.element.instead.metrics.energyJoulesPerHour - energy),
                    abs(rhs.element.instead.metrics.energyJoulesPerHour - energy)
                )
                return a != b ? a < b : lhs.offset > rhs.offset
            }?.element
    }

    /// Rows per keepalive, profile and NAT timeout, and summaries over any set of NAT timeouts,
    /// each judged viable or not by the same rules.
    private struct Judge {
        let sweep: KeepaliveSweep
        let keepalives: [KeepaliveSweep.Keepalive]
        let groups: [Int: [Int: [Int: [ScenarioMetrics]]]]
        let rows: [Row]

        init(sweep: KeepaliveSweep, keepalives: [KeepaliveSweep.Keepalive], groups: [Int: [Int: [Int: [ScenarioMetrics]]]]) {
            self.sweep = sweep
            self.keepalives = keepalives
            self.groups = groups
            rows = keepalives.indices.flatMap { index in
                sweep.profiles.indices.flatMap { profile in
                    sweep.natTimeouts.indices.map { nat in
                        Row(
                            keepalive: keepalives[index], profile: sweep.profiles[profile].name, natTimeoutSeconds: sweep.natTimeouts[nat],
                            metrics: KeepaliveResults.combine(groups[index]?[profile]?[nat] ?? []))
                    }
                }
            }
        }

        /// The knee of the viable front behind the NAT timeouts `natIndices`.
        func recommendation(natIndices: [Int]) -> Summary? {
            KeepaliveResults.knee(KeepaliveResults.front(summaries(natIndices: natIndices).filter(\.viable)))
        }

        /// Each keepalive over every profile behind the NAT timeouts `natIndices`, with why it
        /// is not viable there.
        func summaries(natIndices: [Int]) -> [Summary] {
            let timeouts = natIndices.map { sweep.natTimeouts[$0] }
            return keepalives.enumerated().map { index, keepalive in
                let measured = sweep.profiles.indices.flatMap { profile in natIndices.flatMap { groups[index]?[profile]?[$0] ?? [] } }
                let metrics = KeepaliveResults.combine(measured)
                var disqualified: [String] = []
                var ruledOutBy: [Constraint] = []
                if metrics.goaways > 0 {
                    disqualified.append("GOAWAY too_many_pings from the \(sweep.serverPolicy.name) server")
                    ruledOutBy.append(.serverPolicy)
                }
                if metrics.natExpiriesPerHour > 0 {
                    ruledOutBy.append(.natExpiry)
                    let expiring = rows.filter {
                        $0.keepalive == keepalive && $0.metrics.natExpiriesPerHour > 0 && timeouts.contains($0.natTimeoutSeconds)
                    }
                    let named = Set(expiring.compactMap(\.natTimeoutSeconds)).sorted().map(KeepaliveRendering.natTimeout)
                    disqualified.append(
                        sweep.transport == .quic
                            ? "the NAT forgets the phone at \(named.joined(separator: ", ")) (unreachable until its next PING)"
                            : "connections die to NAT expiry at \(named.joined(separator: ", "))")
                }
                if metrics.detectionSeconds.p95 > sweep.detectWithin {
                    ruledOutBy.append(.detection)
                    disqualified.append(
                        "p95 detection \(KeepaliveRendering.seconds(metrics.detectionSeconds.p95)) misses \(KeepaliveRendering.seconds(sweep.detectWithin))"
                    )
                }
                return Summary(keepalive: keepalive, metrics: metrics, disqualified: disqualified, ruledOutBy: ruledOutBy)
            }
        }
    }

    /// Means over the scenarios; detection percentiles pooled over their deaths.
    static func combine(_ scenarios: [ScenarioMetrics]) -> Metrics {
        let count = Double(max(1, scenarios.count))
        func mean(_ value: (ScenarioMetrics) -> Double) -> Double { scenarios.reduce(0) { $0 + value($1) } / count }
        let detections = scenarios.flatMap(\.detections).sorted()
        /// The nearest-rank percentile.
        func percentile(_ p: Double) -> Double {
            guard !detections.isEmpty else { return 0 }
            let rank = Int((p * Double(detections.count)).rounded(.up))
            return detections[min(detections.count, max(rank, 1)) - 1]
        }
        return Metrics(
            energyJoulesPerHour: mean(\.energyJoulesPerHour), wakeSecondsPerHour: mean(\.wakeSecondsPerHour),
            promotionsPerHour: mean(\.promotionsPerHour), bytesPerHour: mean(\.bytesPerHour),
            natExpiriesPerHour: mean(\.natExpiriesPerHour),
            detectionSeconds: Percentiles(
                p50: percentile(0.5), p95: percentile(0.95), max: detections.last ?? 0,
                mean: detections.isEmpty ? 0 : detections.reduce(0, +) / Double(detections.count), count: detections.count),
            blackoutSecondsPerHour: mean(\.blackoutSecondsPerHour),
            reconnectsPerHour: mean(\.reconnectsPerHour),
            migrationsPerHour: scenarios.contains { $0.migrationsPerHour != nil } ? mean { $0.migrationsPerHour ?? 0 } : nil,
            goaways: mean { Double($0.goaways) },
            serverPingsPerSecondPerMillionClients: mean(\.serverPingsPerSecond) * 1e6)
    }

    /// `compromise`'s choice among `summaries`.
    static func compromise(_ summaries: [Summary]) -> Summary? {
        summaries.filter { !$0.ruledOutBy.contains(.serverPolicy) }.min { lhs, rhs in
            let (a, b) = (lhs.metrics, rhs.metrics)
            if lhs.ruledOutBy.count != rhs.ruledOutBy.count { return lhs.ruledOutBy.count < rhs.ruledOutBy.count }
            if a.blackoutSecondsPerHour != b.blackoutSecondsPerHour { return a.blackoutSecondsPerHour < b.blackoutSecondsPerHour }
            if a.detectionSeconds.p95 != b.detectionSeconds.p95 { return a.detectionSeconds.p95 < b.detectionSeconds.p95 }
            return a.energyJoulesPerHour < b.energyJoulesPerHour
        }
    }

    /// The configurations no other beats on both energy per hour and p95 detection time.
    static func front(_ summaries: [Summary]) -> [Summary] {
        summaries.filter { candidate in
            !summaries.contains { other in
                let energy = other.metrics.energyJoulesPerHour
                let detection = other.metrics.detectionSeconds.p95
                let mine = candidate.metrics.energyJoulesPerHour
                let myDetection = candidate.metrics.detectionSeconds.p95
                return energy <= mine && detection <= myDetection && (energy < mine || detection < myDetection)
            }
        }.sorted { $0.metrics.energyJoulesPerHour < $1.metrics.energyJoulesPerHour }
    }

    /// The front's knee: with both axes scaled to the front's range, the point farthest below
    /// the straight line between its two ends (where a little more energy stops buying much
    /// faster detection). Two points or fewer: the cheaper.
    static func knee(_ front: [Summary]) -> Summary? {
        guard front.count > 2, let first = front.first, let last = front.last else { return front.first }
        let energies = front.map(\.metrics.energyJoulesPerHour)
        let detections = front.map(\.metrics.detectionSeconds.p95)
        let energySpan = max(energies.max()! - energies.min()!, 1e-9)
        let detectionSpan = max(detections.max()! - detections.min()!, 1e-9)
        func point(_ summary: Summary) -> (x: Double, y: Double) {
            (
                (summary.metrics.energyJoulesPerHour - energies.min()!) / energySpan,
                (summary.metrics.detectionSeconds.p95 - detections.min()!) / detectionSpan
            )
        }
        let a = point(first)
        let b = point(last)
        return front.max { lhs, rhs in
            distanceBelow(point(lhs), a, b) < distanceBelow(point(rhs), a, b)
        }
    }

    private static func distanceBelow(_ p: (x: Double, y: Double), _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        let dx = b.x - a.x
        let dy = b.y - a.y
        return ((p.x - a.x) * dy - (p.y - a.y) * dx) / max((dx * dx + dy * dy).squareRoot(), 1e-9)
    }

    public func summary(for keepalive: KeepaliveSweep.Keepalive) -> Summary? {
        summaries.first { $0.keepalive == keepalive }
    }
}
