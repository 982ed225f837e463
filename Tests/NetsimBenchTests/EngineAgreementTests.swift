import Logging
import NetsimCore
import NetsimInput
import NetsimModel
import Testing

@testable import NetsimBench

/// The model engine against the live bench it stands in for: the same profile, seed, fleet
/// and duration through both, compared per transport (the acceptance of the model engine;
/// scripts/compare-engines.sh prints the same comparison as a table). Each live run takes its
/// two minutes of real time; both profiles run at once.
@Suite(.serialized) struct EngineAgreementTests {
    static func configuration(_ profile: String) throws -> BenchConfiguration {
        var configuration = BenchConfiguration(profile: try ProfileCatalog.builtin(named: profile))
        configuration.devices = 10
        configuration.duration = 120
        configuration.seed = 1
        return configuration
    }

    static let logger: Logger = {
        var logger = Logger(label: "netsim.agreement")
        logger.logLevel = .error
        return logger
    }()

    @Test func modelAgreesWithLiveOnLTEGoodAndLTETunnel() async throws {
        let profiles = ["lte-good", "lte-tunnel"]
        let live = try await withThrowingTaskGroup(of: (String, BenchResult).self) { group in
            for profile in profiles {
                group.addTask { (profile, try await BenchRunner.run(Self.configuration(profile), logger: Self.logger) { _ in }) }
            }
            return try await group.reduce(into: [String: BenchResult]()) { $0[$1.0] = $1.1 }
        }
        for profile in profiles {
            let model = ModelBenchRunner.run(try Self.configuration(profile)) { _ in }
            #expect(model.report.engine == "model")
            for transport in BenchTransport.allCases {
                let a = try #require(live[profile]?.report.transports[transport.rawValue])
                let b = try #require(model.report.transports[transport.rawValue])
                let label = "\(profile) \(transport.rawValue)"
                Self.expectWithinTenPercent(a.bytes.perMinute, b.bytes.perMinute, "\(label) payload bytes per minute")
                Self.expectWithinTenPercent(a.bytes.wire.perMinute, b.bytes.wire.perMinute, "\(label) wire bytes per minute")
                Self.expectWithinTenPercent(a.perDevice.promotions.mean, b.perDevice.promotions.mean, "\(label) promotions")
                Self.expectWithinTenPercent(a.perDevice.wakeSeconds.mean, b.perDevice.wakeSeconds.mean, "\(label) wake seconds")
                Self.expectWithinTenPercent(a.perDevice.energyJoules.mean, b.perDevice.energyJoules.mean, "\(label) energy")
                #expect(a.events.delivered == b.events.delivered, "\(label) events delivered")
                #expect(a.messages.delivered == b.messages.delivered, "\(label) messages delivered")
                #expect(abs(a.reconnects - b.reconnects) <= 10, "\(label) reconnects: live \(a.reconnects), model \(b.reconnects)")
            }
        }
    }

    static func expectWithinTenPercent(_ live: Double, _ model: Double, _ what: String) {
        #expect(abs(model - live) <= 0.1 * abs(live) + 1e-9, "\(what): live \(live), model \(model)")
    }
}
