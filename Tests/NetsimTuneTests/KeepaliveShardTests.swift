import Foundation
import NetsimCore
import NetsimInput
import NetsimReport
import NetsimTestSupport
import Testing

@testable import NetsimTune

/// A keepalive sweep in shards: the parts, through their file format, merge into the
/// unsharded sweep's results: the recommendation and every configuration's figures.
@Suite(.computes) struct KeepaliveShardTests {
    static func sweep() throws -> KeepaliveSweep {
        var sweep = KeepaliveSweep(profiles: [try ProfileCatalog.builtin(named: "lte-good"), try ProfileCatalog.builtin(named: "subway")])
        sweep.natTimeouts = [30, 300, nil]
        sweep.keepaliveTimes = [20, 60, 300]
        sweep.keepaliveTimeouts = [10]
        sweep.seeds = 3
        sweep.horizon = 3600
        return sweep
    }

    static func parts(_ sweep: KeepaliveSweep, count: Int) throws -> [(source: String, shard: KeepaliveShard)] {
        try (0..<count).map { index in
            let part = sweep.play(try Shard(index: index, count: count))
            return ("part \(index)", try KeepaliveShard.decode(try part.json(), source: "part \(index)"))
        }
    }

    @Test func threePartsMergeIntoTheUnshardedSweep() throws {
        let sweep = try Self.sweep()
        let whole = try sweep.run()
        let merged = try KeepaliveShardMerge.merge(try Self.parts(sweep, count: 3).reversed())
        #expect(try KeepaliveReport(merged).json() == KeepaliveReport(whole).json())
        #expect(KeepaliveRendering.markdown(merged, verification: nil) == KeepaliveRendering.markdown(whole, verification: nil))
        #expect(merged.recommended != nil && merged.recommended?.keepalive == whole.recommended?.keepalive)
        // Three keepalives, the 30 s / 10 s baseline and the C-core one, on two profiles behind
        // three NATs.
        #expect(merged.rows.count == 5 * 2 * 3)
    }

    @Test func aMissingForeignOrStoppedPartIsRefusedByName() throws {
        let sweep = try Self.sweep()
        let parts = try Self.parts(sweep, count: 2)
        #expect(throws: ShardMergeProblem.missing([0], count: 2)) {
            try KeepaliveShardMerge.merge([parts[1]])
        }
        #expect(throws: ShardMergeProblem.duplicated(try Shard(index: 1, count: 2), "part 1", "again")) {
            try KeepaliveShardMerge.merge(parts + [("again", parts[1].shard)])
        }
        var longer = sweep
        longer.horizon = 7200
        #expect(throws: ShardMergeProblem.otherRun("2 h", field: "horizon (7200.0 s, not 3600.0 s)", first: "part 0")) {
            try KeepaliveShardMerge.merge([parts[0], ("2 h", longer.play(try Shard(index: 1, count: 2)))])
        }
        var asked = 0
        let stopped = sweep.play(
            try Shard(index: 1, count: 2),
            shouldStop: {
                asked += 1
                return true
            })
        #expect(stopped.stopped && asked == 1)
        #expect(throws: ShardMergeProblem.stopped("stopped", try Shard(index: 1, count: 2))) {
            try KeepaliveShardMerge.merge([parts[0], ("stopped", stopped)])
        }
        #expect(throws: ShardMergeProblem.notAShard("bench.json", run: "keepalive sweep")) {
            try KeepaliveShard.decode(Data(#"{"kind": "netsim bench shard"}"#.utf8), source: "bench.json")
        }
    }
}
