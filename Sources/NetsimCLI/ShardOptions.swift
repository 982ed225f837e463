import ArgumentParser
import Foundation
import NetsimCore

/// `--shard INDEX/COUNT`, or `--shards COUNT` with the index from `JOB_COMPLETION_INDEX` (what
/// a Kubernetes Indexed Job sets in each pod): one part of a run that several processes or
/// machines share, merged with `netsim report merge` (docs/fleets.md).
struct ShardOptions: ParsableArguments {
    /// The environment variable a Kubernetes Indexed Job numbers its pods with.
    static let indexVariable = "JOB_COMPLETION_INDEX"

    @Option(
        help: ArgumentHelp(
            "Play part INDEX of COUNT (a bench's devices, a sweep's scenarios INDEX, INDEX+COUNT, ... with their seeds in the whole run) and write it for netsim report merge. Default: the whole run.",
            valueName: "index/count"),
        transform: { text in try Shard(parsing: text) })
    var shard: Shard?

    @Option(
        help: ArgumentHelp(
            "With a Kubernetes Indexed Job: play part $JOB_COMPLETION_INDEX of COUNT (as --shard INDEX/COUNT). Default: the whole run.",
            valueName: "count"))
    var shards: Int?

    /// The part to play; nil for the whole run.
    func chosen(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Shard? {
        switch (shard, shards) {
        case (nil, nil): return nil
        case (let shard?, nil): return shard
        case (nil, let count?):
            guard let text = environment[Self.indexVariable] else {
                throw ValidationError("--shards \(count) takes the shard's index from \(Self.indexVariable), which is not set")
            }
            guard let index = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("\(Self.indexVariable)='\(text.escapingControlCharacters)' is not a shard index")
            }
            do {
                return try Shard(index: index, count: count)
            } catch {
                throw ValidationError("--shards \(count) with \(Self.indexVariable)=\(index): \(error)")
            }
        case (_?, _?): throw ValidationError("--shard and --shards are two ways to say one thing: give one")
        }
    }
}

/// A shard writes its part only (`OUT/NAME`): the reports and the gates are the merge's, on
/// the whole run. A part a signal stopped is written all the same, and the exit status says so
/// (the merge refuses it).
func writeShardPart(_ json: Data, named name: String, out: String, stoppedBy signalName: String?) throws {
    let path = URL(fileURLWithPath: out, isDirectory: true).appendingPathComponent(name).path
    do {
        try writeAtomically(json, toPath: path)
    } catch {
        printError("cannot write the part: \(error)")
        throw ExitCode(1)
    }
    if let signalName {
        printError("stopped by \(signalName): \(path) holds what was played, and netsim report merge refuses it; run the shard again")
        throw ExitCode.stoppedEarly
    }
    printError("part: \(path) (merge every part with: netsim report merge \(out) --out DIR)")
}
