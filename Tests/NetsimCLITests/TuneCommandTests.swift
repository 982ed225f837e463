import ArgumentParser
import Foundation
import NetsimCore
import NetsimTestSupport
import NetsimTune
import Synchronization
import Testing

@testable import NetsimCLI

@Suite("netsim tune keepalive", .computes)
struct TuneCommandTests {
    /// On a non-terminal (a CI log) the progress is a line at every tenth of the
    /// work, with no carriage return; on a terminal it is redrawn in place and ended.
    @Test func progressOnANonTerminalIsALineAtEveryTenthNotCarriageReturns() {
        let written = Mutex<[String]>([])
        let lines = ProgressLine("tune", terminal: false) { text in written.withLock { $0.append(text) } }
        for step in 0...1000 { lines.show(Double(step) / 1000) }
        lines.finish()
        let logged = written.withLock { $0 }
        #expect(logged.count == 11, "\(logged)")
        #expect(logged.allSatisfy { $0.hasPrefix("tune [") && $0.hasSuffix("\n") && !$0.contains("\r") })
        #expect(logged.last?.contains("100%") == true)

        written.withLock { $0 = [] }
        let terminal = ProgressLine("tune", terminal: true) { text in written.withLock { $0.append(text) } }
        for step in 0...50 { terminal.show(Double(step) / 100) }
        terminal.finish()
        let drawn = written.withLock { $0 }
        #expect(drawn.count == 52 && drawn.dropLast().allSatisfy { $0.hasPrefix("\rtune [") } && drawn.last == "\n")
    }

    @Test("defaults: gRPC, three profiles, idle, 6 h, 20 seeds, detect within 60 s")
    func defaults() throws {
        let tune = try #require(try Netsim.parseAsRoot(["tune", "keepalive"]) as? TuneKeepaliveCommand)
        #expect(tune.transport == .grpc)
        #expect(tune.profiles.isEmpty)
        #expect(tune.horizon == 6 * 3600)
        #expect(tune.seeds == 20)
        #expect(tune.detectWithin == 60)
        #expect(tune.serverPolicy == "none")
        #expect(!tune.verify)
        #expect(tune.timeScale == 60)
    }

    @Test(
        "bad input is a usage error before any work",
        arguments: [
            ["tune", "keepalive", "--transport", "mqtt"],
            ["tune", "keepalive", "--server-policy", "strict"],
            ["tune", "keepalive", "--keepalive-times", "10s", "--keepalive-timeouts", "20s"],
            ["tune", "keepalive", "--horizon", "5m"],
            ["tune", "keepalive", "--keepalive-times", ""],
            ["tune", "keepalive", "--nat-timeouts", "30s,forever"],
            ["tune", "keepalive", "--seeds", "0"],
            ["tune", "keepalive", "--adaptive"],
            ["tune", "keepalive", "--format", "pdf"],
            ["tune", "keepalive", "--verify", "--transport", "ws"],
            ["tune", "keepalive", "--verify", "--time-scale", "0"],
            ["tune", "keepalive", "--verify", "--time-scale", "5000"],
            ["tune", "keepalive", "--format", "benchmark-json"],
            ["tune", "keepalive", "--fail-if", "recommended.metrics.energy > 1"],
            ["tune", "keepalive", "--fail-if", "grpc.latencyMs.p95 > 1"],
            ["tune", "keepalive", "--transport", "quic", "--keepalive-times", "60s", "--keepalive-timeouts", "30s,1m"],
            ["tune", "keepalive", "--transport", "quic", "--verify"],
        ])
    func usageErrors(arguments: [String]) {
        #expect(throws: (any Error).self) { try Netsim.parseAsRoot(arguments) }
    }

    @Test("gates name the recommendation's figures, as bench's and run's name theirs")
    func gates() throws {
        let tune = try #require(
            try Netsim.parseAsRoot([
                "tune", "keepalive", "--fail-if", "recommended.metrics.energyJoulesPerHour > 5", "--fail-if",
                "recommended.metrics.detectionSeconds.p95 >= 60", "--fail-if", "verification.agrees < 1",
            ]) as? TuneKeepaliveCommand)
        #expect(
            try tune.gates.thresholds(.tune).map(\.key) == [
                "recommended.metrics.energyJoulesPerHour", "recommended.metrics.detectionSeconds.p95", "verification.agrees",
            ])
    }

    /// A 100 x 100 grid accepted 4.8 million runs of 6 h and sat at 0%.
    @Test("a grid beyond the bounds is refused before any work")
    func gridBeyondTheBounds() async throws {
        let times = (1...100).map { "\($0 * 10 + 10)s" }.joined(separator: ",")
        let timeouts = (1...100).map { "\($0)s" }.joined(separator: ",")
        let tune = try #require(
            try Netsim.parseAsRoot([
                "tune", "keepalive", "--keepalive-times", times, "--keepalive-timeouts", timeouts, "--permit-without-calls", "both",
                "--out", FileManager.default.temporaryDirectory.path, "--quiet",
            ]) as? TuneKeepaliveCommand)
        await #expect(throws: ExitCode.validationFailure) { try await tune.run() }
    }

    /// The README's example, `--server-policy grpc-core`, exited 1 "No configuration is
    /// viable": a gRPC core server answers pings under 5 minutes with GOAWAY, and behind a 30 s
    /// NAT a 5-minute keepalive loses its connections. Now the reports count what each
    /// constraint ruled out and recommend the best configuration the policy allows, marked a
    /// compromise, and the command exits 0: of 60 s, 5 min and 10 min (and the baselines: 30 s /
    /// 10 s, and the C-core client, which pings every 30 s twice, then once a minute), 5 min /
    /// 10 s, the shortest the server accepts.
    @Test func nothingViableUnderAPolicyGivesTheBestItAllowsMarkedACompromise() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("tune-compromise-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let tune = try #require(
            try Netsim.parseAsRoot([
                "tune", "keepalive", "--server-policy", "grpc-core", "--profile", "lte-good", "--nat-timeouts", "30s,350s",
                "--keepalive-times", "60s,5m,10m", "--keepalive-timeouts", "10s", "--seeds", "2", "--horizon", "2h", "--out", out,
                "--quiet",
            ]) as? TuneKeepaliveCommand)
        try await tune.run()
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/tune-keepalive-grpc.json")))
                as? [String: Any])
        #expect(json["recommended"] == nil)
        let compromise = try #require(json["compromise"] as? [String: Any])
        let keepalive = try #require(compromise["keepalive"] as? [String: Any])
        #expect(keepalive["time"] as? Double == 300 && keepalive["timeout"] as? Double == 10, "\(keepalive)")
        let ruledOut = try #require(json["ruledOut"] as? [String: Int])
        #expect(ruledOut["serverPolicy"] == 3 && ruledOut["natExpiry"] == 5 && (ruledOut["detection"] ?? 0) >= 2, "\(ruledOut)")
        let markdown = try String(contentsOfFile: out + "/tune-keepalive-grpc.md", encoding: .utf8)
        #expect(markdown.contains("### Compromise (no configuration is viable)"))
        #expect(markdown.contains("Of 5 configurations, 3 drew GOAWAY too_many_pings from the grpc-core server policy; 5 lost connections"))
        #expect(markdown.contains("Compromise (not viable): 5m / 10s"))
        #expect(markdown.contains("| 5m / 10s **(compromise)** |"))
        #expect(markdown.contains(".keepAliveTime(300, TimeUnit.SECONDS)"))
        let html = try String(contentsOfFile: out + "/tune-keepalive-grpc.html", encoding: .utf8)
        #expect(html.contains("<h2>Compromise (no configuration is viable)</h2>") && html.contains("5m / 10s (compromise)"))
    }

    /// The tune reports carry their gates too: the Markdown, HTML and JSON say which gate
    /// failed, its threshold and what was measured, and "N of M gates failed"; exit 3.
    @Test func theReportsCarryTheGates() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("tune-gates-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let tune = try #require(
            try Netsim.parseAsRoot([
                "tune", "keepalive", "--profile", "lte-good", "--nat-timeouts", "none", "--keepalive-times", "60s", "--keepalive-timeouts",
                "10s", "--seeds", "1", "--horizon", "1h", "--out", out, "--quiet", "--fail-if",
                "recommended.metrics.energyJoulesPerHour > 1", "--fail-if", "recommended.metrics.goaways > 0",
            ]) as? TuneKeepaliveCommand)
        await #expect(throws: ExitCode(3)) { try await tune.run() }
        let markdown = try String(contentsOfFile: out + "/tune-keepalive-grpc.md", encoding: .utf8)
        #expect(markdown.contains("### Gates") && markdown.contains("\n1 of 2 gates failed\n"), "\(markdown)")
        #expect(
            markdown.contains(
                "| recommended.metrics.energyJoulesPerHour \\> 1 | fails if \\> 1 | recommended.metrics.energyJoulesPerHour = "))
        let html = try String(contentsOfFile: out + "/tune-keepalive-grpc.html", encoding: .utf8)
        #expect(html.contains("<h2>Gates</h2>") && html.contains("<p>1 of 2 gates failed</p>"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/tune-keepalive-grpc.json")))
                as? [String: Any])
        let gates = try #require(json["gates"] as? [[String: Any]])
        #expect(gates.map { $0["passed"] as? Bool } == [false, true])
    }
}
