import Logging
import NetsimCore
import NetsimInput
import NetsimModel
import NetsimTestSupport
import Testing

@testable import NetsimBench

/// The model engine against the live bench it stands in for: the same profile, seed, fleet
/// and duration through both, compared per transport (the acceptance of the model engine;
/// scripts/compare-engines.sh prints the same comparison as a table, at 120 s). Each live run
/// takes its 100 s of real time, which hold lte-tunnel's fade, its 30 s outage and the
/// retransmissions that drain it afterwards; the three run at once.
@Suite(.serialized, .tags(.liveTiming), .playsLive(.agreement)) struct EngineAgreementTests {
    static func configuration(_ profile: String) throws -> BenchConfiguration {
        var configuration = BenchConfiguration(profile: try ProfileCatalog.builtin(named: profile))
        configuration.devices = 10
        configuration.duration = 100
        configuration.seed = 1
        return configuration
    }

    /// Batching (docs/strategies.md): the analytics SDK's burst of 20 messages a minute, sent
    /// in batches of 10 or 0.5 s after the oldest (clients/batching-on.yaml).
    static func batching() throws -> BenchConfiguration {
        var configuration = try configuration("lte-good")
        configuration.devices = 2
        configuration.workload = try Workload.load(
            yaml: SettingsFileTests.shipped("workloads/analytics-burst.yaml"), source: "analytics-burst.yaml")
        configuration.client = try ClientSettings.load(
            yaml: SettingsFileTests.shipped("clients/batching-on.yaml"), source: "batching-on.yaml")
        return configuration
    }

    static let logger: Logger = {
        var logger = Logger(label: "netsim.agreement")
        logger.logLevel = .error
        return logger
    }()

    /// The three live runs at once: each mostly waits on its emulated links, so side by side
    /// they take the 100 s of one.
    @Test func modelAgreesWithLive() async throws {
        let runs = [
            ("lte-good", try Self.configuration("lte-good")), ("lte-tunnel", try Self.configuration("lte-tunnel")),
            ("batching", try Self.batching()),
        ]
        let live = try await withThrowingTaskGroup(of: (String, BenchResult).self) { group in
            for (name, configuration) in runs {
                group.addTask { (name, try await BenchRunner.run(configuration, logger: Self.logger) { _ in }) }
            }
            return try await group.reduce(into: [String: BenchResult]()) { $0[$1.0] = $1.1 }
        }
        for (name, configuration) in runs {
            try Self.expectAgreement(live: try #require(live[name]), configuration: configuration, name)
        }
    }

    static func expectAgreement(live: BenchResult, configuration: BenchConfiguration, _ name: String) throws {
        let model = try ModelBenchRunner.run(configuration) { _ in }
        #expect(model.report.engine == .model)
        let agreement = EngineAgreement(live: live.report, model: model.report)
        #expect(agreement.rows.count == 27, "nine figures for each of three transports")
        for row in agreement.rows where !row.holds {
            Issue.record("\(name) \(row.transport.rawValue) \(row.figure): live \(row.live), model \(row.model), not \(row.bound)")
        }
    }

    /// The bounds themselves, on figures made up to sit either side of each.
    @Test func eachBoundHoldsUpToItsEdge() {
        let tenPercent = EngineAgreement.Bound.within(fraction: 0.1)
        #expect(tenPercent.holds(live: 100, model: 110) && tenPercent.holds(live: 100, model: 90))
        #expect(!tenPercent.holds(live: 100, model: 110.1) && !tenPercent.holds(live: 100, model: 89.9))
        #expect(tenPercent.holds(live: 0, model: 0) && !tenPercent.holds(live: 0, model: 1))
        #expect(EngineAgreement.Bound.equal.holds(live: 5, model: 5) && !EngineAgreement.Bound.equal.holds(live: 5, model: 6))
        #expect(EngineAgreement.Bound.withinCount(10).holds(live: 20, model: 30))
        #expect(!EngineAgreement.Bound.withinCount(10).holds(live: 20, model: 31))
        #expect(EngineAgreement.Bound.shown.holds(live: 1, model: 1000))
        let promotions = EngineAgreement.Bound.withinFractionOr(fraction: 0.1, amount: 0.2)
        #expect(promotions.holds(live: 1.8, model: 2) && promotions.holds(live: 20, model: 22))
        #expect(!promotions.holds(live: 1.7, model: 2) && !promotions.holds(live: 20, model: 22.1))
        #expect(promotions.description == "within 10% or 0.2")
    }
}
