import ArgumentParser
import Foundation
import Testing

@testable import NetsimCLI

@Suite("netsim bench")
struct BenchCommandTests {
    @Test("defaults: every transport, lte-tunnel, 10 devices, reports/, all formats")
    func defaults() throws {
        let bench = try #require(try Netsim.parseAsRoot(["bench"]) as? BenchCommand)
        #expect(try bench.chosenTransports() == [.rest, .ws, .grpc])
        #expect(bench.profile == "lte-tunnel")
        #expect(bench.devices == 10)
        #expect(bench.out == "reports")
        #expect(try bench.chosenFormats() == [.md, .json, .html])
        #expect(bench.engine == .live)
    }

    @Test("the model engine takes days and large fleets")
    func modelEngineLimits() throws {
        let bench = try #require(
            try Netsim.parseAsRoot(["bench", "--engine", "model", "--devices", "100000", "--duration", "30d"]) as? BenchCommand)
        #expect(bench.engine == .model)
        #expect(bench.devices == 100_000)
        #expect(bench.duration == 30 * 86_400)
    }

    @Test("options parse, thresholds repeat")
    func options() throws {
        let bench = try #require(
            try Netsim.parseAsRoot([
                "bench", "--transports", "grpc,ws", "--devices", "3", "--duration", "90s", "--format", "json",
                "--fail-if", "grpc.latencyMs.p95 > 300", "--fail-if", "ws.events.lost != 0",
            ]) as? BenchCommand)
        #expect(try bench.chosenTransports() == [.ws, .grpc])
        #expect(bench.duration == 90)
        #expect(try bench.thresholds().map(\.description) == ["grpc.latencyMs.p95 > 300", "ws.events.lost != 0"])
    }

    @Test("bad expressions, transports and formats are usage errors", arguments: [
        ["bench", "--fail-if", "grpc.latencyMs.p95 >"],
        ["bench", "--fail-if", "grpc.latency.p95 > 3"],
        ["bench", "--transports", "grpc", "--fail-if", "rest.latencyMs.p95 > 3"],
        ["bench", "--transports", "mqtt"],
        ["bench", "--format", "pdf"],
        ["bench", "--devices", "0"],
        ["bench", "--baseline", "/nonexistent/base.json"],
        ["bench", "--engine", "virtual"],
        ["bench", "--devices", "1001"],
        ["bench", "--engine", "model", "--devices", "100001"],
        ["bench", "--engine", "model", "--duration", "31d"],
        ["bench", "--engine", "model", "--pcap-dir", "captures"],
    ])
    func usageErrors(arguments: [String]) {
        #expect(throws: (any Error).self) { try Netsim.parseAsRoot(arguments) }
    }
}
