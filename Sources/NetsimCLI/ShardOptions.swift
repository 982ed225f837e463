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
            "Play part INDEX of COUNT (devices INDEX, INDEX+COUNT, ... with their seeds in the whole run) and write it for netsim report merge.",
            valueName: "index/count"),
        transform: { text in try Shard(parsing: text) })
    var shard: Shard?

    @Option(help: "With a Kubernetes Indexed Job: play part $JOB_COMPLETION_INDEX of COUNT (as --shard INDEX/COUNT).")
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
