import Foundation
import NetsimCore
import NetsimReport

/// What one part of a keepalive sweep played: what `netsim tune keepalive --shard I/N` writes
/// (`tune-keepalive-TRANSPORT.shard-I-of-N.json`) and `netsim report merge` reads. It holds
/// the sweep itself and each scenario's figures (per hour, and every detection time), never a
/// percentile or a summary, so that the parts merged give the sweep's results: every sweep,
/// sharded or not, is analysed as the merge of its parts.
public struct KeepaliveShard: Sendable, Codable {
    /// Says what the file is, so a merge handed another JSON file says so.
    public static let kindName = "netsim tune shard"
    /// Bumped when the layout changes: a merge refuses parts of another layout.
    public static let layoutVersion = 2

    public var kind = KeepaliveShard.kindName
    public var layout = KeepaliveShard.layoutVersion
    public var netsimVersion = NetsimVersion.current
    public var shard: Shard
    /// The whole sweep: every part of one sweep holds the same.
    public var sweep: KeepaliveSweep
    /// In scenario order.
    var played: [PlayedScenario]
    /// A signal stopped this part between seeds: it holds the seeds played.
    public var stopped: Bool

    struct PlayedScenario: Sendable, Codable, Equatable {
        /// The scenario's place in the whole sweep (`KeepaliveSweep.scenarios`).
        var index: Int
        var metrics: ScenarioMetrics
    }

    /// The file a part is written to.
    public var fileName: String { "tune-keepalive-\(sweep.transport.rawValue).\(shard.fileLabel).json" }

    public func json() throws -> Data {
        try ShardParts.json(self)
    }

    /// One part as `json()` wrote it, alone; `source` names it in errors.
    public static func decode(_ data: Data, source: String) throws(ShardMergeProblem) -> KeepaliveShard {
        try decode([(source: source, data: data)])[0].shard
    }

    /// The parts as `json()` wrote them, their figures (the scenarios played) checked across
    /// all of them; `source` names each in errors.
    public static func decode(
        _ files: [(source: String, data: Data)]
    ) throws(ShardMergeProblem) -> [(source: String, shard: KeepaliveShard)] {
        try ShardParts.decode(
            KeepaliveShard.self, from: files, kind: kindName, layout: layoutVersion, run: "keepalive sweep", figures: ["played"]
        ).map { (source: $0.source, shard: $0.part) }
    }
}

/// `netsim report merge` of a keepalive sweep's parts, and the analysis of every sweep: every
/// scenario's figures in scenario order into the results the unsharded sweep gives.
public enum KeepaliveShardMerge {
    /// Merges the parts of one sweep (`source` names each in errors) into its results.
    public static func merge(_ parts: [(source: String, shard: KeepaliveShard)]) throws(ShardMergeProblem) -> KeepaliveResults {
        guard let (firstSource, first) = parts.first else { throw .noParts }
        for (source, part) in parts.dropFirst() {
            if let field = difference(part, first) { throw .otherRun(source, field: field, first: firstSource) }
        }
        let ordered = try ShardParts.inOrder(parts.map { (source: $0.source, part: $0.shard) }, shard: \.shard)
        let sweep = first.sweep
        let scenarios = sweep.scenarios
        var played: [KeepaliveShard.PlayedScenario] = []
        played.reserveCapacity(scenarios.count)
        for (source, part) in ordered {
            // A sweep stopped by a signal is reported as partial; a stopped part of several is
            // not a report of anything.
            if part.stopped, part.shard.count > 1 { throw .stopped(source, part.shard) }
            let indices = part.played.map(\.index)
            let expected = scenarios.indices.filter(part.shard.includes)
            let complete = part.stopped ? indices == Array(expected.prefix(indices.count)) : indices == expected
            if !complete { throw .wrongItems(source, part.shard, items: "scenarios") }
            played += part.played
        }
        played.sort { $0.index < $1.index }
        let perSeed = scenarios.count / sweep.seeds
        // A stopped sweep covers whole seeds.
        let seedsPlayed = played.count / perSeed
        let metrics = played.prefix(seedsPlayed * perSeed).map(\.metrics)
        return KeepaliveResults(
            sweep: sweep, keepalives: sweep.keepalives, scenarios: Array(scenarios.prefix(metrics.count)), metrics: Array(metrics),
            seedsPlayed: seedsPlayed)
    }

    /// The first thing that makes `part` a part of another sweep than `first`; nil when they
    /// are parts of one sweep.
    private static func difference(_ part: KeepaliveShard, _ first: KeepaliveShard) -> String? {
        let (a, b) = (part.sweep, first.sweep)
        let fields: [(String, Bool)] = [
            ("netsim version (\(part.netsimVersion), not \(first.netsimVersion))", part.netsimVersion == first.netsimVersion),
            ("transport (\(a.transport.rawValue), not \(b.transport.rawValue))", a.transport == b.transport),
            (
                "profiles (\(a.profiles.map(\.name).joined(separator: ",")), not \(b.profiles.map(\.name).joined(separator: ",")))",
                a.profiles.map(\.name) == b.profiles.map(\.name)
            ),
            ("profiles' contents", a.profiles == b.profiles),
            ("NAT timeouts", a.natTimeouts == b.natTimeouts),
            ("keepalive grid", a.keepalives == b.keepalives),
            ("seeds (\(a.seeds), not \(b.seeds))", a.seeds == b.seeds),
            ("horizon (\(a.horizon) s, not \(b.horizon) s)", a.horizon == b.horizon),
            ("server policy", a.serverPolicy == b.serverPolicy),
            (
                "gRPC reconnection (\(a.grpcReconnection.rawValue), not \(b.grpcReconnection.rawValue))",
                a.grpcReconnection == b.grpcReconnection
            ),
            ("workload", a.workload == b.workload),
            ("impairments (\(a.impairments.name), not \(b.impairments.name))", a.impairments == b.impairments),
            ("detection bound (--detect-within)", a.detectWithin == b.detectWithin),
            ("shard count (\(part.shard.count), not \(first.shard.count))", part.shard.count == first.shard.count),
        ]
        return fields.first { !$0.1 }?.0 ?? (a == b ? nil : "sweep")
    }
}
