import NetsimCore
import NetsimModel
import NetsimProxy
import NetsimReport

/// `netsim report merge`, and the analysis of every bench: parts of one run (`BenchShard`)
/// into its report. The devices of all parts are added in device order, their latencies pooled
/// into one histogram, and a modelled device's radio reported until the latest part's stop,
/// so the report of N parts is the unsharded run's, figure for figure.
public enum BenchShardMerge {
    /// Merges the parts of one run (`source` names each in errors) into its report.
    public static func merge(_ parts: [(source: String, shard: BenchShard)]) throws(ShardMergeProblem) -> BenchResult {
        let parts = try checked(parts)
        let first = parts[0].shard
        let end = parts.map(\.shard.endSeconds).max() ?? first.header.durationSeconds
        var report = first.header
        var charts: [BenchTransport: TransportCharts] = [:]
        var devicesPlayed = 0
        for transport in first.transports {
            let fleetParts = parts.compactMap { $0.shard.fleets[transport] }
            devicesPlayed += fleetParts.map(\.devices.count).reduce(0, +)
            var (transportReport, chart) = analyse(fleetParts, end: end, profile: first.header.profile, seed: first.header.seed)
            // The model engine plays receive buffers and watches the server's queue only with a
            // consumer: without one, no figures rather than zeros.
            if first.header.engine == .model, first.clientSettings.consumer == nil { transportReport.buffers = nil }
            report.transports[transport] = transportReport
            charts[transport] = chart
        }
        report.drain.seconds = max(0, end - first.header.durationSeconds)
        if devicesPlayed < first.header.devicesPerTransport * first.transports.count {
            report.partial = true
            report.devicesPlayed = devicesPlayed
        }
        return BenchResult(
            report: report, profile: first.profile, workload: first.workload, clientSettings: first.clientSettings,
            charts: charts, profileEvents: parts.lazy.compactMap(\.shard.profileEvents).first ?? [])
    }

    /// One transport's fleet from its parts: their latencies pooled, their devices added in
    /// device order, a modelled device's radio reported until `end`.
    static func analyse(
        _ parts: [BenchShard.FleetPart], end: Double, profile: String, seed: UInt64
    ) -> (BenchReport.TransportReport, TransportCharts) {
        var fleet = FleetAnalysis()
        for part in parts { fleet.addLatencies(downlink: part.downlink, uplink: part.uplink) }
        for device in parts.flatMap(\.devices).sorted(by: { $0.index < $1.index }) {
            let proxy =
                switch device.radio {
                case .proxyReport(let report): report
                case .modelled(let remains): ModelBenchRunner.proxyReport(remains.outcome(until: end), profile: profile, seed: seed)
                }
            fleet.add(device.share, proxy: proxy)
        }
        return fleet.summary()
    }

    /// The parts in shard order, once it is certain they are every part of one run, each
    /// holding the devices its shard plays.
    private static func checked(
        _ parts: [(source: String, shard: BenchShard)]
    ) throws(ShardMergeProblem) -> [(source: String, shard: BenchShard)] {
        guard let (firstSource, first) = parts.first else { throw .noParts }
        for (source, part) in parts.dropFirst() {
            if let field = difference(part, first) { throw .otherRun(source, field: field, first: firstSource) }
        }
        let ordered = try ShardParts.inOrder(parts.map { (source: $0.source, part: $0.shard) }, shard: \.shard)
        for (source, part) in ordered {
            // A run stopped by a signal is reported as partial; a stopped part of several is not
            // a report of anything.
            if part.stopped, part.shard.count > 1 { throw .stopped(source, part.shard) }
            let expected = (0..<first.header.devicesPerTransport).filter(part.shard.includes)
            for transport in first.transports {
                let devices = part.fleets[transport]?.devices.map(\.index) ?? []
                let complete = part.stopped ? devices.allSatisfy(part.shard.includes) : devices == expected
                if !complete || Set(devices).count != devices.count {
                    throw .wrongItems(source, part.shard, items: "\(transport.rawValue) devices")
                }
            }
            if part.fleets.keys.contains(where: { !first.transports.contains($0) }) {
                throw .otherRun(source, field: "transports", first: firstSource)
            }
        }
        return ordered.map { (source: $0.source, shard: $0.part) }
    }

    /// The first thing that makes `part` a part of another run than `first`, named as a user
    /// knows it; nil when they are parts of one run.
    private static func difference(_ part: BenchShard, _ first: BenchShard) -> String? {
        let (a, b) = (part.header, first.header)
        let fields: [(String, Bool)] = [
            ("netsim version (\(a.netsimVersion), not \(b.netsimVersion))", a.netsimVersion == b.netsimVersion),
            ("engine (\((a.engine ?? .live).rawValue), not \((b.engine ?? .live).rawValue))", a.engine == b.engine),
            ("profile (\(a.profile), not \(b.profile))", a.profile == b.profile),
            ("profile's contents", part.profile == first.profile),
            ("seed (\(a.seed), not \(b.seed))", a.seed == b.seed),
            ("duration (\(a.durationSeconds) s, not \(b.durationSeconds) s)", a.durationSeconds == b.durationSeconds),
            (
                "devices per transport (\(a.devicesPerTransport), not \(b.devicesPerTransport))",
                a.devicesPerTransport == b.devicesPerTransport
            ),
            ("transports", part.transports == first.transports),
            ("workload", part.workload == first.workload && a.workload == b.workload),
            ("client settings (\(a.client), not \(b.client))", part.clientSettings == first.clientSettings && a.client == b.client),
            ("drain limit", a.drain.limitSeconds == b.drain.limitSeconds),
            ("shard count (\(part.shard.count), not \(first.shard.count))", part.shard.count == first.shard.count),
        ]
        return fields.first { !$0.1 }?.0
    }
}
