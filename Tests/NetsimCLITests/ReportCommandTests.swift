import ArgumentParser
import Foundation
import NetsimReport
import NetsimTestSupport
import Testing

@testable import NetsimCLI

/// `netsim report gate` and `netsim report compare` on saved reports.
@Suite("netsim report", .computes)
struct ReportCommandTests {
    /// A bench report's shape with `latency` as gRPC's p95 and `lost` events, written to a file.
    static func benchReport(profile: String = "lte-tunnel", latency: Double, lost: Int, extra: Int = 0) throws -> String {
        let extras = (0..<extra).map { #", "figure\#($0)": \#(Double($0) + latency)"# }.joined()
        let json = """
            {"netsimVersion": "0.1.0", "profile": "\(profile)", "seed": 1, "durationSeconds": 120, "devicesPerTransport": 10,
             "transports": {"grpc": {"latencyMs": {"p95": \(latency), "p50": 40}, "events": {"lost": \(lost), "duplicated": 0}\(extras)}}}
            """
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-report-\(UUID().uuidString).json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func runReport() throws -> String {
        let json = #"{"profile": "lte-good", "seed": 1, "connections": {"opened": 2, "reset": 0}, "radio": {"promotions": 3}}"#
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-run-\(UUID().uuidString).json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func compareListsEveryChangedFigureWithRegressionsFirst() throws {
        let old = try Self.benchReport(profile: "lte-good", latency: 300, lost: 0)
        let new = try Self.benchReport(latency: 420, lost: 2)
        let comparison = ReportComparison(old: try SavedReport(old), new: try SavedReport(new), maxRegressionPercent: 10)
        // Both regressed: in key order among the regressions.
        #expect(comparison.rows.map(\.key) == ["grpc.events.lost", "grpc.latencyMs.p95"])
        #expect(comparison.rows.allSatisfy { $0.regression })
        #expect(comparison.unchanged == 5, "seed, durationSeconds, devicesPerTransport, p50 and duplicated")
        let markdown = comparison.markdown(limit: ReportComparison.pullRequestCommentLimit)
        #expect(markdown.contains("| `grpc.latencyMs.p95` | 300 | 420 | +40.0% | **regression** |"), "\(markdown)")
        #expect(markdown.contains("| `grpc.events.lost` | 0 | 2 | +2 | **regression** |"), "\(markdown)")
        #expect(markdown.contains("note: the baseline's profile is lte-good, this run's lte-tunnel"))
    }

    @Test func theMarkdownFitsAPullRequestCommentAndCountsWhatItLeavesOut() throws {
        let old = try Self.benchReport(latency: 300, lost: 0, extra: 3000)
        let new = try Self.benchReport(latency: 310, lost: 0, extra: 3000)
        let comparison = ReportComparison(old: try SavedReport(old), new: try SavedReport(new), maxRegressionPercent: 10)
        #expect(comparison.rows.count == 3001)
        let markdown = comparison.markdown(limit: ReportComparison.pullRequestCommentLimit)
        #expect(markdown.utf8.count <= ReportComparison.pullRequestCommentLimit)
        #expect(markdown.contains("more changed figure(s) not shown here"))
        let json = try JSONSerialization.jsonObject(with: try comparison.json()) as? [String: Any]
        #expect((json?["changed"] as? [Any])?.count == 3001, "JSON lists every changed figure")
    }

    @Test func gateAppliesTheGatesOfTheReportsKind() async throws {
        let bench = try Self.benchReport(latency: 420, lost: 0)
        let breached = try #require(
            try Netsim.parseAsRoot(["report", "gate", bench, "--fail-if", "grpc.latencyMs.p95 > 300"]) as? ReportGateCommand)
        await #expect(throws: ExitCode(3)) { try await breached.run() }
        let held = try #require(
            try Netsim.parseAsRoot(["report", "gate", bench, "--fail-if", "grpc.latencyMs.p95 > 500"]) as? ReportGateCommand)
        try await held.run()
        let run = try Self.runReport()
        // JUnit into a directory that does not exist yet, as CI jobs write it.
        let junit = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-\(UUID().uuidString)/gates/junit.xml").path
        let promotions = try #require(
            try Netsim.parseAsRoot(["report", "gate", run, "--fail-if", "radio.promotions > 2", "--junit", junit]) as? ReportGateCommand)
        await #expect(throws: ExitCode(3)) { try await promotions.run() }
        let xml = String(decoding: try #require(FileManager.default.contents(atPath: junit)), as: UTF8.self)
        #expect(xml.contains(#"<testsuite name="netsim report gate \#(run)" tests="1" failures="1""#), "\(xml)")
    }

    @Test(
        "bad reports and keys are usage errors",
        arguments: [
            (["report", "gate", "BENCH", "--fail-if", "radio.promotions > 1"], "no key 'radio' in a bench report"),
            (["report", "gate", "RUN", "--fail-if", "grpc.latencyMs.p95 > 1"], "no key 'grpc' in a run report"),
            (["report", "compare", "BENCH", "RUN"], "compare reports of one kind"),
            (["report", "compare", "BENCH", "BENCH", "--max-regression", "-5%"], "not a percentage"),
        ])
    func usageErrors(arguments: [String], message: String) throws {
        let bench = try Self.benchReport(latency: 1, lost: 0)
        let run = try Self.runReport()
        let resolved = arguments.map { $0 == "BENCH" ? bench : $0 == "RUN" ? run : $0 }
        do {
            _ = try Netsim.parseAsRoot(resolved)
            Issue.record("\(resolved) parsed")
        } catch {
            #expect(Netsim.fullMessage(for: error).contains(message), "\(Netsim.fullMessage(for: error))")
            #expect(Netsim.exitCode(for: error) == .validationFailure)
        }
    }

    /// docs/strategies.md's tables: figures of several bench reports, a row per transport.
    @Test func tableGivesARowPerTransportOfEachReport() throws {
        let fast = try Self.benchReport(latency: 120, lost: 0)
        let slow = try Self.benchReport(latency: 2500, lost: 3)
        let table = try #require(
            try Netsim.parseAsRoot([
                "report", "table", "--column", "p95={latencyMs.p95/1000:.1f} s", "--column", "lost={events.lost}",
                "--column", "zombies={resilience.zombieSeconds.deaths}", "fast=\(fast)", slow,
            ]) as? ReportTableCommand)
        let name = (slow as NSString).lastPathComponent
        #expect(
            try table.table() == """
                | run | transport | p95 | lost | zombies |
                |---|---:|---:|---:|---:|
                | fast | grpc | 0.1 s | 0 | - |
                | \(name) | grpc | 2.5 s | 3 | - |

                """)
        #expect {
            _ = try Netsim.parseAsRoot(["report", "table", "--column", "x={latencyMs.p96}", fast])
        } throws: { error in
            Netsim.fullMessage(for: error).contains("no key 'p96' in a bench report there")
        }
        #expect {
            _ = try Netsim.parseAsRoot(["report", "table", "--column", "x={radio.promotions}", fast, try Self.runReport()])
        } throws: { error in
            Netsim.fullMessage(for: error).contains("tabulate reports of one kind")
        }
    }

    @Test(
        "a report that cannot be read is an error, not a usage error",
        arguments: [
            (["report", "gate", "/nonexistent.json"], "cannot read /nonexistent.json"),
            (["report", "show", "/nonexistent.json"], "cannot read /nonexistent.json"),
            (["report", "show", "NOTJSON"], "is not JSON"),
        ])
    func unreadableReports(arguments: [String], message: String) throws {
        let notJSON = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-\(UUID().uuidString).json").path
        try "not json".write(toFile: notJSON, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: notJSON) }
        let resolved = arguments.map { $0 == "NOTJSON" ? notJSON : $0 }
        do {
            _ = try Netsim.parseAsRoot(resolved)
            Issue.record("\(resolved) parsed")
        } catch {
            #expect(Netsim.fullMessage(for: error).contains(message), "\(Netsim.fullMessage(for: error))")
            #expect(Netsim.exitCode(for: error) == .failure)
        }
    }

    /// A run report that lacks what its kind needs is named by its missing key (exit 1), and a tune
    /// report is shown as JSON only.
    @Test func showSaysWhatARunReportLacksAndKeepsTuneReportsToJSON() async throws {
        let run = try Self.runReport()
        let show = try #require(try Netsim.parseAsRoot(["report", "show", run]) as? ReportShowCommand)
        await #expect {
            try await show.run()
        } throws: { error in
            "\(error)".contains("is not a complete run report: no 'netsimVersion'") && Netsim.exitCode(for: error) == .failure
        }
        let tune = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-\(UUID().uuidString).json").path
        try #"{"configs": [], "summaries": []}"#.write(toFile: tune, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: tune) }
        #expect {
            _ = try Netsim.parseAsRoot(["report", "show", tune, "--format", "md"])
        } throws: { error in
            Netsim.fullMessage(for: error).contains("show it with --format json")
        }
        #expect(try Netsim.parseAsRoot(["report", "show", tune, "--format", "benchmark-json"]) is ReportShowCommand)
    }
}
