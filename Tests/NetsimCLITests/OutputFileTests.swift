import ArgumentParser
import Foundation
import NetsimCore
import NetsimPcap
import NetsimTestSupport
import Testing

@testable import NetsimCLI

/// Nothing lost: reports written whole or not at all, paths that cannot be written
/// found before a run and named with the reason, captures cut short reported as errors.
@Suite("files netsim writes", .playsLive(.commands, timeLimit: .seconds(180)))
struct OutputFileTests {
    /// The built `netsim`: for what only a process of its own can show (a file-size limit, a
    /// signal).
    static let netsim = URL(fileURLWithPath: TestPaths.builtNetsim)

    /// A scratch directory, removed when the test ends.
    private func withDirectory(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-out-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(directory)
    }

    @Test("a report replaces the old file whole, through a temporary file beside it that does not stay")
    func atomicReplacement() async throws {
        try await withDirectory { directory in
            let path = directory + "/r.json"
            try String(repeating: "old ", count: 1000).write(toFile: path, atomically: false, encoding: .utf8)
            try writeAtomically(Data("new".utf8), toPath: path)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["r.json"])
        }
    }

    /// A full disk left a 0-byte report. `ulimit -f` stands in for the full disk: the
    /// built `netsim` runs with a file-size limit below the report's size.
    @Test("a report that does not fit leaves the old file as it was, no temporary file, and exit status 1")
    func reportThatDoesNotFit() async throws {
        try await withDirectory { directory in
            let capture = directory + "/run.pcap"
            let writer = try CaptureWriter(path: capture, wallClockOrigin: 1_700_000_000)
            writer.open(1, CaptureEndpoints(clientPort: 40_000, server: IPAddress("192.0.2.10")!, serverPort: 443), at: 0)
            writer.data(1, .down, [UInt8](repeating: 7, count: 5000), onAirStart: 0.1, onAirEnd: 0.2, at: 0.05)
            try writer.finish()
            let report = directory + "/r.html"
            try "the old report".write(toFile: report, atomically: true, encoding: .utf8)

            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = [
                "-c", #"ulimit -f 4 && exec "$0" "$@""#, Self.netsim.path, "analyze", capture, "--radio", "lte", "--format", "html",
                "--out", report,
            ]
            let standardError = Pipe()
            process.standardError = standardError
            try process.run()
            process.waitUntilExit()
            let message = String(decoding: standardError.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationReason == .exit && process.terminationStatus == 1, "\(message)")
            #expect(message == "netsim: cannot write \(report): file too large\n")
            #expect(try String(contentsOfFile: report, encoding: .utf8) == "the old report")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["r.html", "run.pcap"])
        }
    }

    /// SIGTERM during a long model bench or tune exited 143 with no report.
    @Test(
        "SIGTERM stops a model bench or a tune at its next batch: partial reports and exit status 5",
        arguments: [
            (["bench", "--engine", "model", "--devices", "10000", "--duration", "1h"], "bench-lte-tunnel.json"),
            (
                [
                    "tune", "keepalive", "--profile", "lte-good", "--nat-timeouts", "30s", "--keepalive-times", "20s,60s",
                    "--keepalive-timeouts", "10s", "--horizon", "1h", "--seeds", "10000",
                ], "tune-keepalive-grpc.json"
            ),
        ])
    func stoppedEarly(command: [String], report: String) async throws {
        try await withDirectory { directory in
            let process = Process()
            process.executableURL = Self.netsim
            process.arguments = command + ["--out", directory, "--format", "json", "--quiet"]
            process.standardOutput = FileHandle.nullDevice
            let standardError = Pipe()
            process.standardError = standardError
            try process.run()
            // The first line says the run has begun; the signal watch is set up just after it.
            _ = standardError.fileHandleForReading.availableData
            try await Task.sleep(for: .seconds(2))
            process.terminate()
            process.waitUntilExit()
            let message = String(decoding: standardError.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationReason == .exit && process.terminationStatus == ExitCode.stoppedEarly.rawValue, "\(message)")
            #expect(message.contains("netsim: stopped by SIGTERM: the reports cover "), "\(message)")
            let json = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + report))
            let report = try JSONSerialization.jsonObject(with: json) as? [String: Any]
            #expect(report?["partial"] as? Bool == true)
        }
    }

    @Test("a report that cannot be written says where and why, not an NSCocoaErrorDomain dump")
    func reasons() async throws {
        try await withDirectory { directory in
            let cases = [
                ("/dev/full", "cannot write /dev/full: no space left on device"),
                (directory, "cannot write \(directory): it is a directory"),
                (directory + "/none/r.json", "cannot write \(directory)/none/r.json: no directory \(directory)/none"),
            ]
            for (path, message) in cases {
                let error = try #require(throws: OutputFileError.self) { try writeAtomically(Data("x".utf8), toPath: path) }
                #expect(error.description == message)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        }
    }

    @Test("analyze --out that cannot be written is exit status 1 with the reason")
    func analyzeOut() async throws {
        try await withDirectory { directory in
            let capture = directory + "/run.pcap"
            try CaptureWriter(path: capture, wallClockOrigin: 1_700_000_000).finish()
            let command = try #require(try Netsim.parseAsRoot(["analyze", capture, "--out", directory]) as? AnalyzeCommand)
            #expect(throws: ExitCode(1)) { try command.run() }
        }
    }

    @Test("an --out that is not a directory, or cannot become one, is named before the run")
    func reportDirectory() async throws {
        try await withDirectory { directory in
            let file = directory + "/file"
            try "x".write(toFile: file, atomically: true, encoding: .utf8)
            #expect(unwritableReason(ofDirectory: file) == "it is not a directory")
            #expect(unwritableReason(ofDirectory: file + "/reports") == "\(file) is not a directory")
            #expect(unwritableReason(ofDirectory: directory + "/new/reports") == nil)
            #expect(FileManager.default.fileExists(atPath: directory + "/new/reports"))
        }
    }

    /// `bench --out` that could not be written was found only after the whole run.
    /// A 10-minute bench that fails at once shows the check comes first.
    @Test("bench and tune refuse an unwritable --out at start-up")
    func benchOutAtStartUp() async throws {
        try await withDirectory { directory in
            let file = directory + "/file"
            try "x".write(toFile: file, atomically: true, encoding: .utf8)
            let bench = try #require(
                try Netsim.parseAsRoot(["bench", "--devices", "1", "--duration", "10m", "--out", file, "--quiet"]) as? BenchCommand)
            await #expect(throws: ExitCode(1)) { try await bench.run() }
            let tune = try #require(try Netsim.parseAsRoot(["tune", "keepalive", "--out", file, "--quiet"]) as? TuneKeepaliveCommand)
            await #expect(throws: ExitCode(1)) { try await tune.run() }
        }
    }

    @Test("reports that cannot be written at the end are exit status 1; the Markdown is still printed")
    func reportsFailingAtTheEnd() async throws {
        try await withDirectory { directory in
            let file = directory + "/file"
            try "x".write(toFile: file, atomically: true, encoding: .utf8)
            #expect(throws: ExitCode(1)) {
                try writeReports(out: file, name: "bench-x", formats: [.md, .json], markdown: "") { _ in Data() }
            }
            try writeReports(out: directory + "/reports", name: "bench-x", formats: [.md, .json], markdown: "") { format in
                Data(format.rawValue.utf8)
            }
            #expect(try String(contentsOfFile: directory + "/reports/bench-x.json", encoding: .utf8) == "json")
        }
    }

    /// The files of a report set in `directory`, each's contents by name.
    private func reportSet(_ directory: String) throws -> [String: String] {
        var set: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            set[name] = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
        }
        return set
    }

    /// A set whose writing stops part-way (here its third file cannot be rendered; a kill, a
    /// full disk) leaves the previous set whole: no file of the new one is in place.
    @Test("a report set cut short leaves the previous set whole, not a mix of two runs")
    func reportSetCutShort() async throws {
        try await withDirectory { directory in
            try writeReports(out: directory, name: "bench-x", formats: [.md, .json, .html], markdown: "") { format in
                Data("old \(format.rawValue)".utf8)
            }
            struct Killed: Error {}
            #expect(throws: ExitCode(1)) {
                try writeReports(out: directory, name: "bench-x", formats: [.md, .json, .html], markdown: "") { format in
                    if format == .html { throw Killed() }
                    return Data("new \(format.rawValue)".utf8)
                }
            }
            #expect(try reportSet(directory) == ["bench-x.md": "old md", "bench-x.json": "old json", "bench-x.html": "old html"])
        }
    }

    /// What a killed netsim leaves (its process id is gone): a set killed during its renames
    /// (marker written, the Markdown moved, the JSON and HTML not yet) is finished by the next
    /// write into the directory, so the set is wholly the killed run's; a set killed while
    /// being written (no marker) and an 8 MB temporary file are removed.
    @Test("stale writes of a killed run are cleared by the next, and a set killed during its renames is finished")
    func staleWritesCleared() async throws {
        try await withDirectory { directory in
            let dead = "2147483646"
            try writeReports(out: directory, name: "bench-x", formats: [.md, .json, .html], markdown: "") { format in
                Data("old \(format.rawValue)".utf8)
            }
            let renaming = directory + "/.netsim-set.\(dead).\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: renaming, withIntermediateDirectories: false)
            try "killed md".write(toFile: directory + "/bench-x.md", atomically: false, encoding: .utf8)
            try "killed json".write(toFile: renaming + "/bench-x.json", atomically: false, encoding: .utf8)
            try "killed html".write(toFile: renaming + "/bench-x.html", atomically: false, encoding: .utf8)
            try "bench-x.md\nbench-x.json\nbench-x.html".write(toFile: renaming + "/.complete", atomically: false, encoding: .utf8)
            let writing = directory + "/.netsim-set.\(dead).\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: writing, withIntermediateDirectories: false)
            try "half".write(toFile: writing + "/bench-x.md", atomically: false, encoding: .utf8)
            let temporary = directory + "/.bench-x.json.\(dead).\(UUID().uuidString).tmp"
            #expect(FileManager.default.createFile(atPath: temporary, contents: Data(count: 8 << 20)))
            // The next run's report cannot be rendered: only the clearing happens.
            struct Killed: Error {}
            #expect(throws: ExitCode(1)) {
                try writeReports(out: directory, name: "bench-x", formats: [.md, .json, .html], markdown: "") { _ in throw Killed() }
            }
            #expect(try reportSet(directory) == ["bench-x.md": "killed md", "bench-x.json": "killed json", "bench-x.html": "killed html"])
            // A single report's temporary file is cleared by the next write of that report.
            let single = directory + "/.run.json.\(dead).\(UUID().uuidString).tmp"
            #expect(FileManager.default.createFile(atPath: single, contents: Data("partial".utf8)))
            try writeAtomically(Data("run".utf8), toPath: directory + "/run.json")
            #expect(!FileManager.default.fileExists(atPath: single))
        }
    }

    /// `--pcap /dev/full` printed "incomplete" and exited 0.
    @Test("a capture cut short says how much was lost, and the run exits with status 4")
    func captureCutShort() async throws {
        let writer = try CaptureWriter(
            path: "/dev/full", wallClockOrigin: 1_700_000_000, runStart: RunStart(profile: .passThrough, seed: 1))
        #expect(finishCaptures([writer]) == false)
        let error = try #require(throws: CaptureWriterError.self) { try writer.finish() }
        #expect(error.description.hasPrefix("cannot write the capture /dev/full: incomplete, "))
        #expect(error.description.hasSuffix(" did not reach the file (no space left on device)"))

        let run = try #require(
            try Netsim.parseAsRoot(["run", "--forward", ":0=:1", "--pcap", "/dev/full", "--duration", "1s", "--quiet"]) as? RunCommand)
        await #expect(throws: ExitCode.incompleteCapture) { try await run.run() }
        #expect(ExitCode.incompleteCapture.rawValue == 4)
    }
}
