import ArgumentParser
import Foundation
import NetsimBench
import NetsimInput
import NetsimTestSupport
import Testing

@testable import NetsimCLI

/// `netsim report agree LIVE MODEL` (scripts/compare-engines.sh): the model engine's bounds on
/// two saved bench reports, with the exit status a script checks.
@Suite(.computes) struct ReportAgreeTests {
    /// A model bench report of lte-good, 3 devices, 10 minutes, with `change` applied to its JSON.
    static func report(_ change: (inout [String: Any]) -> Void = { _ in }) throws -> String {
        var configuration = BenchConfiguration(profile: try ProfileCatalog.builtin(named: "lte-good"))
        configuration.devices = 3
        configuration.duration = 600
        var json = try #require(
            try JSONSerialization.jsonObject(with: ModelBenchRunner.run(configuration) { _ in }.report.json()) as? [String: Any])
        change(&json)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-agree-\(UUID().uuidString).json").path
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func agree(_ live: String, _ model: String) async throws {
        let command = try #require(try Netsim.parseAsRoot(["report", "agree", live, model]) as? ReportAgreeCommand)
        try await command.run()
    }

    @Test func aReportAgreesWithItselfAndNotWithOneThatLostAnEvent() async throws {
        let live = try Self.report()
        let model = try Self.report { json in
            var transports = json["transports"] as! [String: [String: Any]]
            var events = transports["ws"]!["events"] as! [String: Any]
            events["delivered"] = (events["delivered"] as! Int) - 1
            transports["ws"]!["events"] = events
            json["transports"] = transports
        }
        defer { for path in [live, model] { try? FileManager.default.removeItem(atPath: path) } }
        try await Self.agree(live, live)
        await #expect(throws: ExitCode(3)) { try await Self.agree(live, model) }
    }

    @Test func reportsOfDifferentRunsAreRefusedNamingWhatDiffers() async throws {
        let live = try Self.report()
        let other = try Self.report { $0["seed"] = 2 }
        defer { for path in [live, other] { try? FileManager.default.removeItem(atPath: path) } }
        await #expect {
            try await Self.agree(live, other)
        } throws: { error in
            "\(error)".contains("not the same run: seed 1 in \(live), 2 in \(other)") && Netsim.exitCode(for: error) == .failure
        }
    }
}
