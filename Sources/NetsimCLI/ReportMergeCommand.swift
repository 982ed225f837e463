import ArgumentParser
import Foundation
import NetsimBench
import NetsimCore
import NetsimReport
import NetsimTune

/// `netsim report merge PARTS...`: the parts of a sharded bench (`netsim bench --shard`) into
/// the reports the unsharded run writes, identical in every figure, gated on the whole.
public struct ReportMergeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the parts of a sharded bench or keepalive sweep into the whole run's reports, and gate them.",
        discussion: """
            Each part holds its devices' counts, sums, radio and latency histogram buckets, never \
            a percentile, so the merged reports are the unsharded run's, figure for figure \
            (percentiles included). Every part of the run must be given once: a part missing, \
            given twice, of another run (version, engine, profile, seed, duration, devices, \
            workload, client) or stopped by a signal is refused, and the message names it. \
            Reports go to --out as bench-PROFILE.md, .json and .html, as netsim bench writes them. \
            The parts of a keepalive sweep (netsim tune keepalive --shard) merge the same way, into \
            tune-keepalive-TRANSPORT.md, .json and .html with the sweep's recommendation; the gates \
            then name the tune report's keys.

            Exit status: 0 when every gate holds; 1 when the parts cannot be read or merged, or a \
            merged sweep has no viable configuration; 3 when a --fail-if threshold or the \
            --baseline comparison was breached; 64 for a usage error.

            Example: netsim report merge shards/ --out reports --fail-if 'grpc.events.lost > 0'
            """)

    @Argument(
        help:
            "Parts (bench-PROFILE.shard-I-of-N.json, tune-keepalive-TRANSPORT.shard-I-of-N.json), or directories: every such file in them.")
    var parts: [String]

    @Option(help: "Where to write the reports.")
    var out = "reports"

    @Option(help: "Report formats, comma-separated: md, json, html, benchmark-json.")
    var format = "md,json,html"

    @OptionGroup(title: "Gates") var gates: GateOptions

    public init() {}

    public func validate() throws {
        guard !parts.isEmpty else { throw ValidationError("name the parts to merge (files, or directories holding them)") }
        _ = try ReportFormat.list(format, known: ReportFormat.allCases)
    }

    public func run() async throws {
        let files = try partFiles()
        var contents: [(source: String, data: Data)] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                printError("cannot merge: \(file) cannot be read")
                throw ExitCode(1)
            }
            contents.append((file, data))
        }
        let formats = try ReportFormat.list(format, known: ReportFormat.allCases)
        let isSweep = contents.contains { ShardParts.kind(of: $0.data) == KeepaliveShard.kindName }
        // The gates name the keys of the report the parts make.
        let schema: ReportSchema = isSweep ? .tune : .bench
        try gates.check(schema)
        let verdicts: [GateVerdict]
        let suite: String
        var viable = true
        do {
            if isSweep {
                let parts = try KeepaliveShard.decode(contents)
                let results = try KeepaliveShardMerge.merge(parts)
                printError("merged \(parts.count) part(s) of the \(results.sweep.transport.rawValue) keepalive sweep")
                verdicts = try writeTuneReports(results, verification: nil, out: out, formats: formats, gates: gates)
                suite = "netsim report merge tune keepalive \(results.sweep.transport.rawValue)"
                viable = results.advice != nil
            } else {
                let parts = try BenchShard.decode(contents)
                let result = try BenchShardMerge.merge(parts)
                printError("merged \(parts.count) part(s) of bench \(result.report.profile) (seed \(result.report.seed))")
                verdicts = try writeBenchReports(result, out: out, formats: formats, gates: gates)
                suite = "netsim report merge \(result.report.profile)"
            }
        } catch let problem as ShardMergeProblem {
            printError("cannot merge: \(problem)")
            throw ExitCode(1)
        }
        let breaches = try gates.conclude(verdicts, suite: suite)
        if !viable { throw ExitCode(1) }
        if !breaches.isEmpty { throw ExitCode(3) }
    }

    /// The files named, and in each directory named its parts (`*.shard-*-of-*.json`), in name
    /// order.
    private func partFiles() throws -> [String] {
        var files: [String] = []
        for path in parts {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                printError("cannot merge: \(path) does not exist")
                throw ExitCode(1)
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            let found = names.filter { $0.hasSuffix(".json") && $0.contains(".shard-") && $0.contains("-of-") }.sorted()
            guard !found.isEmpty else {
                printError("cannot merge: \(path) holds no parts (bench-PROFILE.shard-I-of-N.json)")
                throw ExitCode(1)
            }
            files += found.map { URL(fileURLWithPath: path, isDirectory: true).appendingPathComponent($0).path }
        }
        return files
    }
}
