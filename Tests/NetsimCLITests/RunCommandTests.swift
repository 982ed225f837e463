import ArgumentParser
import Foundation
import NetsimProxy
import Testing

@testable import NetsimCLI

@Suite("netsim run: flags")
struct RunCommandTests {
    @Test("parses listen/upstream pairs and forward rules onto one device")
    func rules() throws {
        let run = try #require(
            try Netsim.parseAsRoot([
                "run", "--profile", "lte-tunnel", "--listen", ":8080", "--upstream", "api.internal:80",
                "--forward", "8443=[::1]:443", "--duration", "90s", "--seed", "7",
            ]) as? RunCommand)
        #expect(
            try run.rules() == [
                ForwardRule(listen: HostPort(host: "127.0.0.1", port: 8080), upstream: HostPort(host: "api.internal", port: 80)),
                ForwardRule(listen: HostPort(host: "127.0.0.1", port: 8443), upstream: HostPort(host: "::1", port: 443)),
            ])
        #expect(run.emulation.duration == 90)
        #expect(run.emulation.seed == 7)
    }

    @Test(
        "bad flags are usage errors that say what is wrong",
        arguments: [
            (["run"], "nothing to forward"),
            (["run", "--listen", ":8080"], "--listen and --upstream go together"),
            (["run", "--listen", "nowhere", "--upstream", ":80"], "--listen: 'nowhere' is not HOST:PORT"),
            (["run", "--forward", ":80"], "is not LISTEN=UPSTREAM"),
            (["run", "--forward", ":80=host:99999"], "is not LISTEN=UPSTREAM"),
            (["run", "--forward", ":80=:81", "--duration", "soon"], "'soon' is not a duration"),
            (["run", "--forward", ":80=:81", "--duration", "0s"], "above zero"),
            (["run", "--forward", ":80=:81", "--duration", "100000000000000000000s"], "at most 30 days"),
            (["run", "--forward", ":80=:81", "--duration", "1" + String(repeating: "0", count: 306) + "h"], "at most 30 days"),
            (["run", "--forward", ":80=:81", "--admin", "x"], "--admin: 'x' is not HOST:PORT"),
            (["run", "--forward", ":80=:81", "--buffer-limit", "lots"], "--buffer-limit"),
        ])
    func badFlags(arguments: [String], message: String) {
        do {
            _ = try Netsim.parseAsRoot(arguments)
            Issue.record("\(arguments) parsed")
        } catch {
            let text = Netsim.fullMessage(for: error)
            #expect(text.contains(message), "\(text)")
            #expect(Netsim.exitCode(for: error) == .validationFailure, "a usage error exits with status 64")
        }
    }

    @Test("a report path that cannot be written is refused before the run, not after it")
    func unwritableReport() async throws {
        let directory = FileManager.default.temporaryDirectory.path
        #expect(RunCommand.unwritableReason(directory) == "it is a directory")
        #expect(RunCommand.unwritableReason("/no/such/dir/r.json") == "no directory /no/such/dir")
        #expect(RunCommand.unwritableReason(directory + "/netsim-report-\(UUID().uuidString).json") == nil)
        let run = try #require(
            try Netsim.parseAsRoot(["run", "--forward", ":0=:1", "--report", directory, "--duration", "1s"]) as? RunCommand)
        await #expect(throws: ExitCode(1)) { try await run.run() }
    }

    @Test("an unknown profile exits with status 2")
    func unknownProfile() async throws {
        let run = try #require(try Netsim.parseAsRoot(["run", "--profile", "lte-goood", "--forward", ":0=:1"]) as? RunCommand)
        await #expect(throws: ExitCode(2)) { try await run.run() }
    }
}
