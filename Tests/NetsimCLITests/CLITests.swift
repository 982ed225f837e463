import ArgumentParser
import Foundation
import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@testable import NetsimCLI

@Suite("netsim profiles", .computes)
struct ProfilesCommandTests {
    /// A scratch directory, removed when the test ends.
    private func withDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/profiles", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    @Test("parses list, show and validate")
    func parsing() throws {
        #expect(try Netsim.parseAsRoot(["profiles", "list"]) is ProfilesCommand.List)
        let show = try #require(try Netsim.parseAsRoot(["profiles", "show", "lte-good", "--yaml"]) as? ProfilesCommand.Show)
        #expect(show.profile == "lte-good")
        #expect(show.yaml)
        let validate = try #require(
            try Netsim.parseAsRoot(["profiles", "validate", "a.yaml", "b.yaml"]) as? ProfilesCommand.Validate)
        #expect(validate.files == ["a.yaml", "b.yaml"])
        #expect(throws: (any Error).self) { try Netsim.parseAsRoot(["profiles", "validate"]) }
        #expect(throws: (any Error).self) { try Netsim.parseAsRoot(["profiles", "show"]) }
    }

    @Test("validate accepts good files and exits with status 2 when any file is bad")
    func validate() throws {
        try withDirectory { directory in
            let good = directory + "/good.yaml"
            let bad = directory + "/bad.yaml"
            try ProfileCatalog.builtinSource(named: "lte-good")!.write(toFile: good, atomically: true, encoding: .utf8)
            try "name: bad\ndescription: d\nnetworks: {lte: {radio: lt}}\n".write(toFile: bad, atomically: true, encoding: .utf8)

            let allGood = try #require(try Netsim.parseAsRoot(["profiles", "validate", good]) as? ProfilesCommand.Validate)
            try allGood.run()

            for files in [[good, bad], [directory + "/missing.yaml"]] {
                let command = try #require(try Netsim.parseAsRoot(["profiles", "validate"] + files) as? ProfilesCommand.Validate)
                #expect(throws: ExitCode(2)) { try command.run() }
            }
        }
    }

    @Test("show refuses a profile with a time beyond the range (exit 2) instead of trapping on it")
    func showOutOfRange() throws {
        try withDirectory { directory in
            let path = directory + "/far.yaml"
            try
                "name: far\ndescription: d\nnetworks: {lte: {radio: lte}}\ntimeline:\n  - at: 100000000000000000000s\n    outage: {duration: 1s}\n"
                .write(toFile: path, atomically: true, encoding: .utf8)
            let show = try #require(try Netsim.parseAsRoot(["profiles", "show", path]) as? ProfilesCommand.Show)
            #expect(throws: ExitCode(2)) { try show.run() }
        }
    }

    @Test("list shows every built-in, local profiles, and a broken local profile without failing")
    func list() throws {
        try withDirectory { directory in
            try "name: mine\ndescription: d\nnetworks: {wired: {radio: none}}\n"
                .write(toFile: directory + "/profiles/mine.yaml", atomically: true, encoding: .utf8)
            try "name: broken\n".write(toFile: directory + "/profiles/broken.yaml", atomically: true, encoding: .utf8)
            let lines = ProfilesCommand.List.table(workingDirectory: directory).split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("NAME") == true)
            for name in ProfileCatalog.builtinNames {
                #expect(lines.contains { $0.hasPrefix(name + " ") && $0.hasSuffix("built-in") }, "\(name)")
            }
            #expect(lines.contains { $0.hasPrefix("mine ") && $0.hasSuffix("profiles/mine.yaml") })
            let brokenRow = "invalid: profiles/broken.yaml:1:1: the profile needs 'description'"
            #expect(lines.contains { $0.hasPrefix("broken ") && $0.contains(brokenRow) })
        }
    }

    @Test("a list row summarizes the start network, the timeline and the NAT")
    func listRow() throws {
        let subway = ProfilesCommand.List.row(
            name: "subway", profile: try ProfileCatalog.builtin(named: "subway"), source: .builtin(name: "subway"))
        #expect(subway == ["subway", "lte", "6mbps / 1mbps", "40ms", "3 events, every 75s", "-", "built-in"])
        let handover = ProfilesCommand.List.row(
            name: "lte-handover", profile: try ProfileCatalog.builtin(named: "lte-handover"),
            source: .builtin(name: "lte-handover"))
        #expect(handover[1...3] == ["wifi+lte", "40mbps / 33mbps", "1ms"])
        let trace = ProfilesCommand.List.row(
            name: "lte-trace", profile: try ProfileCatalog.builtin(named: "lte-trace"), source: .builtin(name: "lte-trace"))
        #expect(trace[2] == "trace ~4.4mbps / trace ~1.1mbps")
    }

    @Test("show prints every radio parameter, both links, the NAT and the timeline with times")
    func show() throws {
        let profile = try ProfileCatalog.builtin(named: "lte-tunnel")
        let text = ProfilesCommand.Show.render(profile, source: .builtin(name: "lte-tunnel"))
        for field in profile.networks[0].radio.formattedFields {
            #expect(text.contains(field.key) && text.contains(field.value))
        }
        #expect(text.contains("  link up:    rate 1.5mbps, delay 35ms, jitter 10ms pareto"))
        #expect(text.contains("  link down:  rate 8mbps, delay 35ms, jitter 10ms pareto"))
        #expect(text.contains("NAT: none"))
        #expect(text.contains("  0:45-1:15  outage 30s (stall)\n"))
        #expect(text.contains("  0:40       set: up rate 300kbps, delay 60ms; down rate 1mbps, delay 60ms\n"))

        let nat = ProfilesCommand.Show.render(try ProfileCatalog.builtin(named: "nat-timeout"), source: .builtin(name: "nat-timeout"))
        #expect(nat.contains("NAT: TCP mappings expire after 30s idle, silent"))
        let subway = ProfilesCommand.Show.render(try ProfileCatalog.builtin(named: "subway"), source: .builtin(name: "subway"))
        #expect(subway.contains("Timeline (repeats every 75s; times within each repetition):"))
    }

    @Test(
        "timeline times read as minutes and seconds",
        arguments: [
            (0.0, "0:00"), (45, "0:45"), (75, "1:15"), (600, "10:00"), (65.25, "1:05.25"), (0.005, "0:00.005"),
        ])
    func clock(seconds: Double, text: String) {
        #expect(ProfilesCommand.Show.clock(seconds) == text)
    }
}
