import Foundation
import NetsimCore
import Testing

/// `--shard INDEX/COUNT`: which devices a part plays, and what a bad shard is told.
@Suite struct ShardTests {
    @Test func aShardPlaysEveryCountthItemFromItsIndex() throws {
        let shard = try Shard(parsing: "1/4")
        #expect((0..<10).filter(shard.includes) == [1, 5, 9])
        #expect(shard.share(of: 10) == 3)
        #expect(try Shard(parsing: "3/4").share(of: 10) == 2)
        #expect(try Shard(parsing: "3/4").share(of: 3) == 0)
        // Every item in exactly one part.
        let parts = try (0..<4).map { try Shard(index: $0, count: 4) }
        for item in 0..<40 { #expect(parts.count { $0.includes(item) } == 1) }
        #expect(parts.map { $0.share(of: 41) }.reduce(0, +) == 41)
        #expect(Shard.whole.includes(12_345) && Shard.whole.isWhole)
        #expect(shard.fileLabel == "shard-1-of-4" && shard.description == "1/4")
    }

    @Test func badShardsSayWhatIsWrong() {
        #expect(throws: Shard.Problem.indexOutOfRange(index: 4, count: 4)) { try Shard(parsing: "4/4") }
        #expect(throws: Shard.Problem.noShards(0)) { try Shard(parsing: "0/0") }
        #expect(throws: Shard.Problem.notAShard("a/b")) { try Shard(parsing: "a/b") }
        #expect(throws: Shard.Problem.notAShard("2")) { try Shard(parsing: "2") }
        #expect(throws: Shard.Problem.indexOutOfRange(index: -1, count: 4)) { try Shard(parsing: "-1/4") }
        #expect("\(Shard.Problem.indexOutOfRange(index: 4, count: 4))" == "shard index 4 is out of range: 4 shard(s) are numbered 0 to 3")
    }

    @Test func aShardReadBackIsCheckedAsTheCommandLineChecksIt() throws {
        let decoder = JSONDecoder()
        #expect(try decoder.decode(Shard.self, from: Data(#"{"index": 2, "count": 3}"#.utf8)) == Shard(index: 2, count: 3))
        #expect(throws: DecodingError.self) { try decoder.decode(Shard.self, from: Data(#"{"index": 0, "count": 0}"#.utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Shard.self, from: Data(#"{"index": 5, "count": 3}"#.utf8)) }
    }
}
