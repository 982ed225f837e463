import ArgumentParser
import Foundation
import NetsimTestSupport
import Testing

@testable import NetsimCLI

/// `netsim bench --shard` / `--shards` and `netsim report merge` through the command line: the
/// files a Kubernetes Indexed Job's pods write, merged into the unsharded run's reports.
@Suite(.playsLive(.commands)) struct ShardCommandTests {
    static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("netsim-shards-\(UUID().uuidString)").path
    }

    /// Runs the built `netsim` with these arguments, as a shard's pod does, and gives its exit
    /// status and standard error. A process of its own, with its standard output dropped: each
    /// bench, sweep and merge prints its whole report there, and the test lane's log is for
    /// the tests' verdicts.
    static func netsim(_ arguments: [String]) throws -> (status: Int32, standardError: String) {
        let process = Process()
        process.executableURL = OutputFileTests.netsim
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let standardError = Pipe()
        process.standardError = standardError
        try process.run()
        let message = String(decoding: standardError.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, message)
    }

    /// A command that must succeed.
    static func run(_ arguments: [String]) async throws {
        let (status, message) = try netsim(arguments)
        try #require(status == 0, "netsim \(arguments.joined(separator: " ")) exited \(status): \(message)")
    }

    static func exitCode(_ arguments: [String]) async -> Int32 {
        do {
            return try netsim(arguments).status
        } catch {
            Issue.record("netsim could not be started: \(error)")
            return -1
        }
    }

    /// The merged reports are the unsharded run's, byte for byte.
    static func expectSameFiles(_ files: [String], in merged: String, as whole: String) {
        for file in files {
            #expect(
                FileManager.default.contents(atPath: "\(merged)/\(file)") == FileManager.default.contents(atPath: "\(whole)/\(file)"),
                "\(file)")
        }
    }

    static let bench = ["bench", "--engine", "model", "--profile", "lte-good", "--devices", "5", "--duration", "10m", "--quiet"]

    @Test func badShardsAreUsageErrors() async throws {
        for shard in ["4/4", "0/0", "a/b", "0/1000000000"] {
            #expect(await Self.exitCode(Self.bench + ["--shard", shard]) == 64, "\(shard)")
        }
        #expect(throws: (any Error).self) { try Netsim.parseAsRoot(Self.bench + ["--shard", "4/4"]) }
        let message = Netsim.message(for: CommandError(Self.bench + ["--shard", "4/4"]))
        #expect(message.contains("shard index 4 is out of range: 4 shard(s) are numbered 0 to 3"), "\(message)")
        // A shard is not gated: the gates judge the whole run, at the merge.
        #expect(await Self.exitCode(Self.bench + ["--shard", "0/2", "--fail-if", "grpc.events.lost > 0"]) == 64)
        #expect(await Self.exitCode(Self.bench + ["--shard", "0/2", "--shards", "2"]) == 64)
    }

    /// The gates are written into the Markdown and JSON reports (gate, measured value,
    /// result), not only to standard error; the merged run's reports record them the same way.
    @Test func failedGatesAreWrittenIntoTheReports() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let gates = ["--fail-if", "grpc.events.lost > 0", "--fail-if", "grpc.events.sent > 0"]
        #expect(await Self.exitCode(Self.bench + ["--out", directory + "/whole", "--format", "json,md"] + gates) == 3)
        let json = try #require(FileManager.default.contents(atPath: directory + "/whole/bench-lte-good.json"))
        let report = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let recorded = try #require(report["gates"] as? [[String: Any]])
        #expect(recorded.map { $0["gate"] as? String } == ["grpc.events.lost > 0", "grpc.events.sent > 0"])
        #expect(recorded.map { $0["passed"] as? Bool } == [true, false])
        let sent = try #require(recorded[1]["measured"] as? String)
        #expect(sent.hasPrefix("grpc.events.sent = ") && sent != "grpc.events.sent = 0", "\(sent)")
        #expect((recorded[1]["failure"] as? String)?.hasPrefix("threshold breached: grpc.events.sent = ") == true)
        let markdown = String(
            decoding: FileManager.default.contents(atPath: directory + "/whole/bench-lte-good.md") ?? Data(), as: UTF8.self)
        #expect(markdown.contains("### Gates"), "\(markdown)")
        #expect(markdown.contains("| grpc.events.sent \\> 0 | fails if \\> 0 | \(sent) | FAILED |"), "\(markdown)")
        #expect(markdown.contains("\n1 of 2 gates failed\n"), "\(markdown)")

        for index in 0..<2 { try await Self.run(Self.bench + ["--out", directory + "/parts", "--shard", "\(index)/2"]) }
        #expect(
            await Self.exitCode(["report", "merge", directory + "/parts", "--out", directory + "/merged", "--format", "json,md"] + gates)
                == 3)
        Self.expectSameFiles(["bench-lte-good.json", "bench-lte-good.md"], in: directory + "/merged", as: directory + "/whole")
    }

    @Test func theShardsIndexComesFromTheIndexedJob() throws {
        let options = try ShardOptions.parse(["--shards", "4"])
        #expect(try options.chosen(environment: ["JOB_COMPLETION_INDEX": "3"])?.description == "3/4")
        #expect(throws: ValidationError.self) { try options.chosen(environment: [:]) }
        #expect(throws: ValidationError.self) { try options.chosen(environment: ["JOB_COMPLETION_INDEX": "4"]) }
        #expect(throws: ValidationError.self) { try options.chosen(environment: ["JOB_COMPLETION_INDEX": "x"]) }
        #expect(try ShardOptions.parse([]).chosen(environment: ["JOB_COMPLETION_INDEX": "1"]) == nil)
    }

    @Test func partsWrittenByTheCommandMergeIntoTheUnshardedReports() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Self.run(Self.bench + ["--out", directory + "/whole", "--format", "json,md,html"])
        for index in 0..<3 { try await Self.run(Self.bench + ["--out", directory + "/parts", "--shard", "\(index)/3"]) }
        let parts = try FileManager.default.contentsOfDirectory(atPath: directory + "/parts").sorted()
        #expect(parts == (0..<3).map { "bench-lte-good.shard-\($0)-of-3.json" })
        try await Self.run(["report", "merge", directory + "/parts", "--out", directory + "/merged", "--format", "json,md,html"])
        Self.expectSameFiles(
            ["bench-lte-good.json", "bench-lte-good.md", "bench-lte-good.html"], in: directory + "/merged", as: directory + "/whole")
        // The gates apply to the whole: exit 3 on a breach.
        #expect(
            await Self.exitCode([
                "report", "merge", directory + "/parts", "--out", directory + "/gated", "--fail-if", "grpc.events.sent < 1000000",
            ]) == 3)
        // One part missing: exit 1, naming it.
        try FileManager.default.removeItem(atPath: directory + "/parts/bench-lte-good.shard-1-of-3.json")
        #expect(await Self.exitCode(["report", "merge", directory + "/parts", "--out", directory + "/incomplete"]) == 1)
        #expect(!FileManager.default.fileExists(atPath: directory + "/incomplete/bench-lte-good.json"))
    }
}

extension ShardCommandTests {
    @Test func partsOfASweepMergeIntoTheUnshardedSweepsReports() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tune = [
            "tune", "keepalive", "--profile", "lte-good", "--nat-timeouts", "30s,5m", "--keepalive-times", "20s,60s,5m",
            "--keepalive-timeouts", "10s", "--seeds", "2", "--horizon", "1h", "--quiet",
        ]
        try await Self.run(tune + ["--out", directory + "/whole", "--format", "json,md"])
        for index in 0..<2 { try await Self.run(tune + ["--out", directory + "/parts", "--shard", "\(index)/2"]) }
        try await Self.run(["report", "merge", directory + "/parts", "--out", directory + "/merged", "--format", "json,md"])
        Self.expectSameFiles(["tune-keepalive-grpc.json", "tune-keepalive-grpc.md"], in: directory + "/merged", as: directory + "/whole")
        // The gates name the tune report's keys.
        #expect(
            await Self.exitCode([
                "report", "merge", directory + "/parts", "--out", directory + "/gated", "--fail-if",
                "recommended.metrics.energyJoulesPerHour > 0",
            ]) == 3)
        #expect(await Self.exitCode(tune + ["--shard", "0/2", "--verify"]) == 64)
    }
}

/// The error a command line gets, for its message.
private struct CommandError: Error {
    let error: any Error
    init(_ arguments: [String]) {
        do {
            _ = try Netsim.parseAsRoot(arguments)
            error = CancellationError()
        } catch {
            self.error = error
        }
    }
}

extension Netsim {
    fileprivate static func message(for wrapped: CommandError) -> String {
        message(for: wrapped.error)
    }
}
