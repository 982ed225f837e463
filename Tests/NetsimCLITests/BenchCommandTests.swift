import ArgumentParser
import Foundation
import NetsimTestSupport
import Testing

@testable import NetsimCLI

@Suite("netsim bench", .computes)
struct BenchCommandTests {
    @Test("defaults: every transport, lte-tunnel, 10 phones, reports/, all formats")
    func defaults() throws {
        let bench = try #require(try Netsim.parseAsRoot(["bench"]) as? BenchCommand)
        #expect(bench.transports.chosen == [.rest, .ws, .grpc])
        #expect(bench.profile == "lte-tunnel")
        #expect(bench.phones == 10)
        #expect(bench.out == "reports")
        #expect(try bench.chosenFormats() == [.md, .json, .html])
        #expect(bench.engine == .live)
    }

    @Test("the model engine takes days and large fleets")
    func modelEngineLimits() throws {
        let bench = try #require(
            try Netsim.parseAsRoot(["bench", "--engine", "model", "--phones", "100000", "--duration", "30d"]) as? BenchCommand)
        #expect(bench.engine == .model)
        #expect(bench.phones == 100_000)
        #expect(bench.duration == 30 * 86_400)
        let quic = try #require(
            try Netsim.parseAsRoot(["bench", "--engine", "model", "--transports", "ws,quic", "--fail-if", "quic.migrations > 3"])
                as? BenchCommand)
        #expect(quic.transports.chosen == [.ws, .quic])
        #expect(try quic.gates.thresholds(.bench).map(\.description) == ["quic.migrations > 3"])
    }

    /// The handset is a phone, as everywhere else in netsim: `--phones` is the option, and
    /// `--devices` is the same option, as scripts written for earlier releases spell it.
    @Test("--phones and --devices are one option; help names --phones")
    func phonesAndDevicesAreOneOption() throws {
        let phones = try #require(try Netsim.parseAsRoot(["bench", "--phones", "7"]) as? BenchCommand)
        let devices = try #require(try Netsim.parseAsRoot(["bench", "--devices", "7"]) as? BenchCommand)
        #expect(phones.phones == 7)
        #expect(devices.phones == phones.phones)
        let help = BenchCommand.helpMessage(columns: 10_000)
        #expect(help.contains("  --phones, --devices <N> "), "\(help)")
    }

    /// `netsim help bench` showed no default for --duration. Every option that takes
    /// a value says what it is without one (a flag is off unless given).
    @Test("help gives every option's default", arguments: ["bench", "run", "analyze"])
    func helpGivesEveryDefault(_ command: String) {
        let help =
            switch command {
            case "bench": BenchCommand.helpMessage(columns: 10_000)
            case "run": RunCommand.helpMessage(columns: 10_000)
            default: AnalyzeCommand.helpMessage(columns: 10_000)
            }
        // An option's entry starts at "  --NAME" and goes on over the indented lines below it.
        var options: [String] = []
        for line in help.components(separatedBy: "OPTIONS:")[1].split(separator: "\n") {
            if line.hasPrefix("  -") {
                options.append(line.trimmingCharacters(in: .whitespaces))
            } else if !options.isEmpty {
                options[options.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
            }
        }
        // Flags, and where a run's traffic goes (a run needs one of these; nothing stands in).
        let withoutDefault = ["--quiet", "--force", "--version", "-h,", "--listen", "--upstream", "--forward", "--udp-forward"]
        for option in options where !withoutDefault.contains(where: { option.hasPrefix($0 + " ") || option == $0 }) {
            #expect(option.lowercased().contains("default"), "\(command): \(option)")
        }
        #expect(options.count > 4)
    }

    @Test("options parse, thresholds repeat")
    func options() throws {
        let bench = try #require(
            try Netsim.parseAsRoot([
                "bench", "--transports", "grpc,ws", "--phones", "3", "--duration", "90s", "--format", "json",
                "--fail-if", "grpc.latencyMs.p95 > 300", "--fail-if", "ws.events.lost != 0",
            ]) as? BenchCommand)
        #expect(bench.transports.chosen == [.ws, .grpc])
        #expect(bench.duration == 90)
        #expect(try bench.gates.thresholds(.bench).map(\.description) == ["grpc.latencyMs.p95 > 300", "ws.events.lost != 0"])
    }

    @Test(
        "bad expressions, transports and formats are usage errors",
        arguments: [
            ["bench", "--fail-if", "grpc.latencyMs.p95 >"],
            ["bench", "--fail-if", "grpc.latency.p95 > 3"],
            ["bench", "--transports", "grpc", "--fail-if", "rest.latencyMs.p95 > 3"],
            ["bench", "--transports", "mqtt"],
            ["bench", "--format", "pdf"],
            ["bench", "--devices", "0"],
            ["bench", "--baseline", "/nonexistent/base.json"],
            ["bench", "--engine", "virtual"],
            ["bench", "--phones", "1001"],
            ["bench", "--engine", "model", "--phones", "100001"],
            ["bench", "--engine", "model", "--duration", "31d"],
            ["bench", "--engine", "model", "--pcap-dir", "captures"],
            ["bench", "--transports", "quic"],
            ["bench", "--transports", "grpc,quic", "--engine", "live"],
        ])
    func usageErrors(arguments: [String]) {
        #expect(throws: (any Error).self) { try Netsim.parseAsRoot(arguments) }
    }

    /// `meanGap: 0.001ms` grew one device past 2.5 GB; `serverBurst.rate: 1e9/s` was
    /// accepted. Both are refused before any work, with exit 64.
    @Test(
        "a workload beyond the bounds is refused before any work",
        arguments: [
            "serverEvents: {meanGap: 0.001ms}", "clientMessages: {every: 0.001ms}", "serverBurst: {at: 1s, events: 10, rate: 1000000000/s}",
        ])
    func workloadBeyondTheBounds(yaml: String) async throws {
        let path = FileManager.default.temporaryDirectory.path + "/netsim-workload-\(UUID().uuidString).yaml"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bench = try #require(
            try Netsim.parseAsRoot([
                "bench", "--engine", "model", "--workload", path, "--out", FileManager.default.temporaryDirectory.path, "--quiet",
            ]) as? BenchCommand)
        await #expect(throws: ExitCode.validationFailure) { try await bench.run() }
    }
}
