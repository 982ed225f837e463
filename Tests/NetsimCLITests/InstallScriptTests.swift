import Foundation
import NetsimTestSupport
import Testing

/// scripts/install.sh into a scratch PREFIX with the built `netsim`: the binary, its three
/// completions and its man page where shells and `man` look, then `--uninstall` takes exactly
/// those away and leaves what else was there.
@Suite("the install script", .playsLive)
struct InstallScriptTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/install.sh").path

    static let installed = [
        "bin/netsim", "share/bash-completion/completions/netsim", "share/zsh/site-functions/_netsim",
        "share/fish/vendor_completions.d/netsim.fish", "share/man/man1/netsim.1",
    ]

    /// Runs a command with PREFIX and NETSIM (the built netsim) set; its status and its output.
    static func run(_ executable: String, _ arguments: [String], prefix: String) throws -> (status: Int32, output: String) {
        try ChildProcess.run(executable, arguments, environment: ["PREFIX": prefix, "NETSIM": OutputFileTests.netsim.path])
    }

    /// Every file under a directory, relative to it, sorted.
    static func files(under directory: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(path)
            }
        }
        return found.sorted()
    }

    @Test
    func installsWhereShellsLookAndUninstallsLeavingWhatWasThere() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-prefix-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        // Someone else's page in the same man directory must survive the uninstall.
        try FileManager.default.createDirectory(atPath: prefix + "/share/man/man1", withIntermediateDirectories: true)
        try "other".write(toFile: prefix + "/share/man/man1/other.1", atomically: true, encoding: .utf8)

        let install = try Self.run(Self.script, [], prefix: prefix)
        try #require(install.status == 0, "\(install.output)")
        #expect(Self.files(under: prefix) == (Self.installed + ["share/man/man1/other.1"]).sorted())
        // The installed binary runs; its completions are the argument parser's for netsim.
        let profiles = try Self.run(prefix + "/bin/netsim", ["profiles", "list"], prefix: prefix)
        #expect(profiles.status == 0 && profiles.output.contains("lte-tunnel"), "\(profiles.output)")
        let bash = try String(contentsOfFile: prefix + "/share/bash-completion/completions/netsim", encoding: .utf8)
        #expect(bash.contains("complete") && bash.contains("--profile"))
        let syntax = try Self.run("/bin/bash", ["-n", prefix + "/share/bash-completion/completions/netsim"], prefix: prefix)
        #expect(syntax.status == 0, "\(syntax.output)")
        #expect(try String(contentsOfFile: prefix + "/share/zsh/site-functions/_netsim", encoding: .utf8).hasPrefix("#compdef netsim"))
        #expect(
            try String(contentsOfFile: prefix + "/share/fish/vendor_completions.d/netsim.fish", encoding: .utf8).contains(
                "complete -c 'netsim'"))
        // The man page names every command, and groff reads it without a warning.
        let page = try String(contentsOfFile: prefix + "/share/man/man1/netsim.1", encoding: .utf8)
        for command in ["run", "bench", "tune keepalive", "report merge", "profiles fit", "analyze", "fidelity"] {
            #expect(page.contains(".SS netsim " + command.replacingOccurrences(of: "-", with: "\\-")), "\(command)")
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") {
            let groff = try Self.run(
                "/usr/bin/groff", ["-man", "-Tutf8", "-ww", "-z", prefix + "/share/man/man1/netsim.1"], prefix: prefix)
            #expect(groff.status == 0 && groff.output.isEmpty, "\(groff.output)")
        }

        let uninstall = try Self.run(Self.script, ["--uninstall"], prefix: prefix)
        #expect(uninstall.status == 0, "\(uninstall.output)")
        #expect(Self.files(under: prefix) == ["share/man/man1/other.1"])
        // The directories the install made and left empty are gone; the prefix stays.
        #expect(!FileManager.default.fileExists(atPath: prefix + "/bin"))
        #expect(!FileManager.default.fileExists(atPath: prefix + "/share/zsh"))
        #expect(FileManager.default.fileExists(atPath: prefix + "/share/man/man1"))
    }
}
