import Foundation
import NetsimBench
import NetsimCore
import NetsimReport
import NetsimTestSupport
import Testing

@testable import NetsimCLI

/// `netsim report merge` on parts from elsewhere (a CI job's artifacts): a corrupt or hostile
/// part gets exit 1 and a message naming the file, the key and the reason; never a crash, a
/// memory bomb, a file outside `--out` or markup in the reports.
@Suite(.serialized, .computes) struct HostilePartTests {
    static let bench = ["bench", "--engine", "model", "--profile", "lte-good", "--devices", "4", "--duration", "10m", "--quiet"]

    /// Two good parts of one run, as text, and the directory they were written in.
    static func parts() async throws -> (directory: String, texts: [String]) {
        let directory = ShardCommandTests.temporaryDirectory()
        for index in 0..<2 { try await ShardCommandTests.run(bench + ["--out", directory + "/parts", "--shard", "\(index)/2"]) }
        let texts = try (0..<2).map { index in
            try String(contentsOfFile: "\(directory)/parts/bench-lte-good.shard-\(index)-of-2.json", encoding: .utf8)
        }
        return (directory, texts)
    }

    /// The merge of `texts` as parts `a` and `b`: its exit status and what `BenchShard.decode`
    /// and the merge say of them.
    static func merge(_ texts: [String], in directory: String, named name: String) async throws -> (exit: Int32, message: String) {
        let folder = "\(directory)/\(name)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (index, text) in texts.enumerated() {
            try text.write(toFile: "\(folder)/part-\(index).shard-\(index)-of-2.json", atomically: true, encoding: .utf8)
        }
        let exit = await ShardCommandTests.exitCode(["report", "merge", folder, "--out", "\(directory)/out/\(name)"])
        let files = texts.enumerated().map { (source: "part-\($0.offset)", data: Data($0.element.utf8)) }
        do {
            _ = try BenchShardMerge.merge(try BenchShard.decode(files))
            return (exit, "merged")
        } catch {
            return (exit, "\(error)")
        }
    }

    static func replacing(_ text: String, _ pattern: String, with replacement: String) throws -> String {
        let regex = try Regex(pattern)
        let replaced = text.replacing(regex, with: replacement, maxReplacements: 1)
        #expect(replaced != text, "\(pattern) is in the part")
        return replaced
    }

    @Test func outOfRangeFiguresAndBadJSONAreNamedByFileAndKey() async throws {
        let (directory, texts) = try await Self.parts()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try await Self.merge(texts, in: directory, named: "good") == (0, "merged"))
        let cases: [(name: String, pattern: String, replacement: String, message: String)] = [
            // The wire estimate multiplied this count: a trap before.
            (
                "huge", #""opened":\d+"#, #""opened":9223372036854775807"#,
                "connections.opened is out of range: 9.223372036854776e+18 takes the run's total"
            ),
            ("negative", #""bytes":\{"down":\d+"#, #""bytes":{"down":-5"#, "bytes.down is out of range: -5.0 is below zero"),
            ("nan", #""endSeconds":"#, #""endSeconds":NaN,"x":"#, "part-0 is not JSON: "),
            (
                "1e308", #""devicesPerTransport":\d+"#, #""devicesPerTransport":1e308"#,
                "part-0: header.devicesPerTransport is out of range: 1e+308"
            ),
            ("devices", #""devicesPerTransport":\d+"#, #""devicesPerTransport":1000000000"#, "a bench has 1 to 100000 devices a transport"),
            ("version", #""netsimVersion":"[^"]*""#, #""netsimVersion":"0.0.1""#, "its netsim version ("),
            ("shards", #""shard":\{"count":2"#, #""shard":{"count":1000000000"#, "shard: a run has at most 10000 shards, not 1000000000"),
        ]
        for (name, pattern, replacement, message) in cases {
            let hostile = [try Self.replacing(texts[0], pattern, with: replacement), texts[1]]
            let (exit, said) = try await Self.merge(hostile, in: directory, named: name)
            #expect(exit == 1, "\(name)")
            #expect(said.contains(message) && said.contains("part-"), "\(name): \(said)")
        }
    }

    /// The profile's name becomes the reports' file names: one from a part is checked as the
    /// profile reader checks it, so `x/../../name` writes nothing outside `--out`.
    @Test func aProfileNameThatIsAPathIsRefused() async throws {
        let (directory, texts) = try await Self.parts()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let hostile = try texts.map { text in
            try Self.replacing(
                try Self.replacing(text, #""profile":"lte-good""#, with: #""profile":"x/../../escaped""#), #""name":"lte-good""#,
                with: #""name":"x/../../escaped""#)
        }
        let (exit, said) = try await Self.merge(hostile, in: directory, named: "traversal")
        #expect(exit == 1 && said.contains("header.profile: 'x/../../escaped' is not a profile's name"), "\(said)")
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/bench-escaped.md"))
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/out/bench-escaped.md"))
    }

    /// A description in a part reaches the merged Markdown (which CI pipes into a job summary)
    /// escaped, as `report show` escapes a run report's texts.
    @Test func aMergedBenchsMarkdownEscapesTheProfilesTexts() async throws {
        let (directory, texts) = try await Self.parts()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let injected = #"<img src=https://evil.example/x.png> **all gates passed** [ok](https://evil.example)"#
        let hostile = try texts.map { try Self.replacing($0, #""description":"(?:[^"\\]|\\.)*""#, with: "\"description\":\"\(injected)\"") }
        #expect(try await Self.merge(hostile, in: directory, named: "markdown") == (0, "merged"))
        let markdown = try String(contentsOfFile: "\(directory)/out/markdown/bench-lte-good.md", encoding: .utf8)
        #expect(markdown.contains(#"\<img src=https://evil.example/x.png\> \*\*all gates passed\*\* \[ok\](https://evil.example)"#))
        #expect(!markdown.replacingOccurrences(of: "\\<", with: "").contains("<img"), "no tag but escaped ones")
    }

    @Test func reportCompareEscapesWhatTheReportsSay() throws {
        let directory = ShardCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let report = { (figure: Int) in
            #"{"profile": "<img src=https://evil.example/x.png>", "seed": 1, "durationSeconds": 60, "connections": {"opened": \#(figure)}, "radio": {"energyJoules": 1}, "x`|<b>": \#(figure)}"#
        }
        try report(1).write(toFile: directory + "/old.json", atomically: true, encoding: .utf8)
        try report(2).write(toFile: directory + "/new.json", atomically: true, encoding: .utf8)
        let comparison = ReportComparison(
            old: try SavedReport(directory + "/old.json"), new: try SavedReport(directory + "/new.json"), maxRegressionPercent: 5)
        let markdown = comparison.markdown(limit: ReportComparison.pullRequestCommentLimit)
        #expect(
            !markdown.replacingOccurrences(of: "\\<", with: "").contains("<img")
                && markdown.contains(#"profile \<img src=https://evil.example/x.png\>"#), "\(markdown)")
        // A key in a code span: fenced past its backticks, its pipe escaped for the table.
        #expect(markdown.contains("| ``x`\\|<b>`` |"), "\(markdown)")
    }
}
