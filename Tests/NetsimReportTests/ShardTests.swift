import Foundation
import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@testable import NetsimReport

/// `--shard INDEX/COUNT`: which devices a part plays, and what a bad shard is told.
@Suite(.computes) struct ShardTests {
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

/// Bounds on what a shard may claim, and how missing ones are named.
@Suite(.computes) struct ShardBoundTests {
    @Test func aRunHasAtMostTenThousandShards() throws {
        #expect(throws: Shard.Problem.tooMany(1_000_000_000)) { try Shard(parsing: "0/1000000000") }
        #expect(try Shard(parsing: "9999/10000").count == Shard.mostParts)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Shard.self, from: Data(#"{"index": 0, "count": 10001}"#.utf8)) }
    }

    @Test func missingShardsAreNamedAsRanges() {
        let problem = ShardMergeProblem.missing([3, 4, 5, 6, 7, 8, 9, 12], count: 20)
        #expect("\(problem)".hasPrefix("missing shard(s) 3-9, 12 of 20 (numbered 0 to 19)"), "\(problem)")
        #expect("\(ShardMergeProblem.missing(Array(1..<10_000), count: 10_000))".hasPrefix("missing shard(s) 1-9999 of 10000"))
    }

    @Test func aProfileNameIsOnePathComponent() {
        for name in ["lte-good", "my_profile.v2", "A1"] { #expect(ProfileName.problem(with: name) == nil, "\(name)") }
        for name in ["", "x/../../name", "..", ".hidden", "-rf", "a b", "<img>", "x\u{0}y", String(repeating: "a", count: 65)] {
            #expect(ProfileName.problem(with: name) != nil, "\(name)")
        }
        // The profile reader checks it, where the name is.
        #expect(throws: InputFileError.self) {
            try ProfileLoader.load(
                yaml: "name: x/../../name\ndescription: d\nnetworks: {lte: {radio: lte}}\n", source: "p.yaml", readTrace: { _ in "" })
        }
    }
}
