import Foundation
import Logging
import NetsimCore
import NetsimInput
import NetsimModel
import NetsimReport
import NetsimTestSupport
import Testing

@testable import NetsimBench

/// Sharded benches: N parts, each written to JSON and read back, merge into the
/// unsharded run's report, figure for figure; a merge of anything but every part of one run
/// is refused, naming the part.
@Suite(.computes) struct BenchShardTests {
    static func configuration(_ profile: String, devices: Int, duration: Double, shard: Shard = .whole) throws -> BenchConfiguration {
        var configuration = BenchConfiguration(profile: try ProfileCatalog.builtin(named: profile))
        configuration.devices = devices
        configuration.duration = duration
        configuration.shard = shard
        return configuration
    }

    /// Each part of a model bench, through its file format.
    static func modelParts(_ profile: String, devices: Int, duration: Double, count: Int) throws -> [(source: String, shard: BenchShard)] {
        try (0..<count).map { index in
            let part = ModelBenchRunner.play(
                try configuration(profile, devices: devices, duration: duration, shard: Shard(index: index, count: count))
            ) { _ in }
            return ("part \(index)", try BenchShard.decode(try part.json(), source: "part \(index)"))
        }
    }

    @Test func fourPartsOfTwoHoursOfTheTunnelMergeIntoTheUnshardedReportExactly() throws {
        let whole = try ModelBenchRunner.run(try Self.configuration("lte-tunnel", devices: 40, duration: 2 * 3600)) { _ in }
        let parts = try Self.modelParts("lte-tunnel", devices: 40, duration: 2 * 3600, count: 4)
        // The parts stop at different times: the merge reports every radio until the latest.
        #expect(Set(parts.map(\.shard.endSeconds)).count > 1)
        let merged = try BenchShardMerge.merge(parts.shuffled())
        #expect(merged.report == whole.report)
        #expect(try merged.report.json() == whole.report.json())
        #expect(MarkdownReport.render(merged) == MarkdownReport.render(whole))
        #expect(whole.report.transports[.grpc]?.latencyMs.count ?? 0 > 1000)
    }

    @Test func chartsAndProfileEventsOfAShortRunMergeToo() throws {
        let whole = try ModelBenchRunner.run(try Self.configuration("lte-handover", devices: 12, duration: 900)) { _ in }
        let merged = try BenchShardMerge.merge(try Self.modelParts("lte-handover", devices: 12, duration: 900, count: 3))
        #expect(HTMLReport.render(merged) == HTMLReport.render(whole))
        #expect(!whole.profileEvents.isEmpty && merged.profileEvents == whole.profileEvents)
        #expect(merged.charts[.ws]?.timelines.count == 12 && merged.charts[.ws]?.timelines.first?.isEmpty == false)
    }

    @Test func aMissingDuplicatedOrForeignPartIsRefusedByName() throws {
        let parts = try Self.modelParts("lte-good", devices: 6, duration: 600, count: 3)
        #expect(throws: ShardMergeProblem.missing([1], count: 3)) {
            try BenchShardMerge.merge([parts[0], parts[2]])
        }
        #expect(throws: ShardMergeProblem.duplicated(try Shard(index: 2, count: 3), "part 2", "copy of part 2")) {
            try BenchShardMerge.merge(parts + [("copy of part 2", parts[2].shard)])
        }
        var otherSeed = try Self.configuration("lte-good", devices: 6, duration: 600, shard: Shard(index: 1, count: 3))
        otherSeed.seed = 2
        let foreign = ("seed 2", ModelBenchRunner.play(otherSeed) { _ in })
        #expect(throws: ShardMergeProblem.otherRun("seed 2", field: "seed (2, not 1)", first: "part 0")) {
            try BenchShardMerge.merge([parts[0], foreign, parts[2]])
        }
        var otherProfile = parts[1]
        otherProfile.shard.profile.description = "another profile of the same name"
        #expect(throws: ShardMergeProblem.otherRun("part 1", field: "profile's contents", first: "part 0")) {
            try BenchShardMerge.merge([parts[0], otherProfile, parts[2]])
        }
        var stopped = parts[1]
        stopped.shard.stopped = true
        #expect(throws: ShardMergeProblem.stopped("part 1", try Shard(index: 1, count: 3))) {
            try BenchShardMerge.merge([parts[0], stopped, parts[2]])
        }
        #expect(throws: ShardMergeProblem.noParts) { try BenchShardMerge.merge([]) }
        #expect(throws: ShardMergeProblem.notAShard("x.json", run: "bench")) {
            try BenchShard.decode(Data(#"{"profile": "x"}"#.utf8), source: "x.json")
        }
    }
}

/// A live bench in two parts merges into the unsharded live run's counts. Apart from the model
/// parts above because it plays real seconds (a serial lane of scripts/test.sh), where they are
/// only arithmetic (its parallel lane).
@Suite(.playsLive(.benches)) struct LiveShardTests {
    @Test func twoLivePartsMergeIntoTheCountsOfTheUnshardedRun() async throws {
        var logger = Logger(label: "netsim.shards")
        logger.logLevel = .error
        // Enough events for a median: two a second per device.
        func live(_ shard: Shard) throws -> BenchConfiguration {
            var configuration = try BenchShardTests.configuration("lte-good", devices: 4, duration: 10, shard: shard)
            configuration.workload.eventMeanGap = 0.5
            configuration.workload.messageInterval = 1
            return configuration
        }
        let whole = try await BenchRunner.run(try live(.whole), logger: logger) { _ in }
        async let first = BenchRunner.play(try live(Shard(index: 0, count: 2)), logger: logger) { _ in }
        async let second = BenchRunner.play(try live(Shard(index: 1, count: 2)), logger: logger) { _ in }
        let parts = try await [first, second]
        let merged = try BenchShardMerge.merge(
            parts.enumerated().map { ("part \($0.offset)", try BenchShard.decode(try $0.element.json(), source: "")) })
        #expect(merged.report.devicesPerTransport == 4 && merged.report.partial == nil)
        for (transport, report) in whole.report.transports {
            let part = try #require(merged.report.transports[transport])
            // The same seeded workload: the same counts, exactly.
            #expect(part.events.sent == report.events.sent && part.messages.sent == report.messages.sent, "\(transport)")
            #expect(
                part.events.delivered == report.events.delivered && part.messages.delivered == report.messages.delivered, "\(transport)")
            #expect(part.latencyMs.count == report.latencyMs.count, "\(transport)")
            // Latency within the live run's noise: a push transport's within half (lte-good
            // adds about 70 ms each way), a poll's within the poll interval (when a poll falls
            // is the wall clock's).
            let noise = transport == .rest ? ClientSettings().rest.pollInterval * 1000 : 0.5 * report.latencyMs.p50
            #expect(
                abs(part.latencyMs.p50 - report.latencyMs.p50) <= noise,
                "\(transport): p50 \(part.latencyMs.p50) ms merged, \(report.latencyMs.p50) ms unsharded, of \(report.latencyMs.count)")
        }
    }
}
