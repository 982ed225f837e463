import ArgumentParser
import Foundation
import NetsimCore
import NetsimInput
import NetsimPcap
import NetsimTestSupport
import Testing

@testable import NetsimCLI

@Suite("netsim analyze", .computes)
struct AnalyzeCommandTests {
    @Test("parses its options and refuses unknown radios and addresses")
    func parsing() throws {
        let command = try #require(
            try Netsim.parseAsRoot([
                "analyze", "trace.pcapng", "--radio", "nr-sa", "--device-ip", "10.1.2.3", "--device-ip", "fd00::2", "--format", "html",
                "--out", "r.html",
            ])
                as? AnalyzeCommand)
        #expect(command.file == "trace.pcapng" && command.radio == "nr-sa" && command.format == .html && command.out == "r.html")
        #expect(command.devices.map(\.address.description) == ["10.1.2.3", "fd00::2"] && command.devices.allSatisfy { $0.port == nil })
        let ported = try #require(
            try Netsim.parseAsRoot(["analyze", "lo.pcap", "--device", "127.0.0.1:54321", "--device", "[::1]:54321"]) as? AnalyzeCommand)
        #expect(ported.devices == [DeviceEndpoint("127.0.0.1:54321"), DeviceEndpoint("[::1]:54321")])
        #expect(ported.devices.map(\.port) == [54_321, 54_321])
        #expect(throws: (any Error).self) { try Netsim.parseAsRoot(["analyze", "t.pcap", "--device", "127.0.0.1:0"]) }
        #expect(throws: (any Error).self) { try Netsim.parseAsRoot(["analyze", "t.pcap", "--device", "localhost:80"]) }
        #expect(throws: (any Error).self) { try Netsim.parseAsRoot(["analyze", "t.pcap", "--radio", "none"]) }
        #expect(throws: (any Error).self) { try Netsim.parseAsRoot(["analyze", "t.pcap", "--device-ip", "10.0.0"]) }
        #expect(throws: (any Error).self) { try Netsim.parseAsRoot(["analyze", "t.pcap", "--format", "csv"]) }
        #expect(throws: (any Error).self) { try Netsim.parseAsRoot(["analyze"]) }
        // One way to name the radio at a time; with neither, the capture's own (or lte, said).
        #expect(throws: (any Error).self) { try Netsim.parseAsRoot(["analyze", "t.pcap", "--radio", "lte", "--profile", "nr-sa"]) }
        let unnamed = try #require(try Netsim.parseAsRoot(["analyze", "t.pcap"]) as? AnalyzeCommand)
        #expect(unnamed.radio == nil && unnamed.profile == nil)
    }

    @Test("writes JSON whose radio object decodes as a RadioReport, and fails on a file that is not a capture")
    func runs() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-analyze-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let capture = directory + "/run.pcap"
        let writer = try CaptureWriter(path: capture, wallClockOrigin: 1_700_000_000)
        writer.open(1, CaptureEndpoints(clientPort: 40_000, server: IPAddress("192.0.2.10")!, serverPort: 443), at: 0)
        writer.data(1, .down, [UInt8](repeating: 7, count: 5000), onAirStart: 0.1, onAirEnd: 0.2, at: 0.05)
        writer.close(1, reset: false, at: 0.3)
        try writer.finish()

        let report = directory + "/report.json"
        let command = try #require(try Netsim.parseAsRoot(["analyze", capture, "--format", "json", "--out", report]) as? AnalyzeCommand)
        try command.run()
        struct Output: Decodable { var radio: RadioReport }
        let output = try JSONDecoder().decode(Output.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        #expect(output.radio.model == "lte" && output.radio.promotions == 1 && output.radio.bytes.down == 5000)

        // A run's capture names its radio: analyzed with it unless one is given.
        let nrCapture = directory + "/nr.pcap"
        let nrWriter = try CaptureWriter(
            path: nrCapture, wallClockOrigin: 1_700_000_000,
            runStart: RunStart(profile: try ProfileCatalog.builtin(named: "nr-sa"), seed: 1))
        nrWriter.open(1, CaptureEndpoints(clientPort: 40_000, server: IPAddress("192.0.2.10")!, serverPort: 443), at: 0)
        nrWriter.data(1, .down, [UInt8](repeating: 7, count: 5000), onAirStart: 0.1, onAirEnd: 0.2, at: 0.05)
        try nrWriter.finish()
        struct Capture: Decodable {
            var radioModel: String
            var radioSource: String
        }
        struct Analysis: Decodable {
            var radio: RadioReport
            var capture: Capture
        }
        for (arguments, model) in [([], "nr-sa"), (["--radio", "lte"], "lte"), (["--profile", "lte-good"], "lte")] {
            let command = try #require(
                try Netsim.parseAsRoot(["analyze", nrCapture, "--format", "json", "--out", report] + arguments) as? AnalyzeCommand)
            try command.run()
            let analysis = try JSONDecoder().decode(Analysis.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
            #expect(analysis.radio.model == model && analysis.capture.radioModel == model, "\(arguments)")
            if arguments.isEmpty { #expect(analysis.capture.radioSource.contains("profile nr-sa, seed 1")) }
        }
        let assumed = try #require(try Netsim.parseAsRoot(["analyze", capture, "--format", "json", "--out", report]) as? AnalyzeCommand)
        try assumed.run()
        #expect(
            try JSONDecoder().decode(Analysis.self, from: Data(contentsOf: URL(fileURLWithPath: report))).capture.radioSource.hasPrefix(
                "assumed"))

        // A capture cut short is analyzed up to the cut, and the exit status is 1.
        let cut = directory + "/cut.pcap"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: nrCapture))
        try bytes.dropLast(20).write(to: URL(fileURLWithPath: cut))
        let cutCommand = try #require(try Netsim.parseAsRoot(["analyze", cut, "--format", "json", "--out", report]) as? AnalyzeCommand)
        #expect(throws: ExitCode(1)) { try cutCommand.run() }
        let cutAnalysis = try JSONDecoder().decode(Analysis.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        #expect(cutAnalysis.capture.radioModel == "nr-sa")

        let notCapture = directory + "/notes.txt"
        try "hello".write(toFile: notCapture, atomically: true, encoding: .utf8)
        let failing = try #require(try Netsim.parseAsRoot(["analyze", notCapture]) as? AnalyzeCommand)
        #expect(throws: CaptureError.self) { try failing.run() }
    }

    @Test("prices traffic counters with --counters; a bad counter file exits 1 and writes nothing")
    func counters() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-analyze-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let csv = directory + "/walk.csv"
        try "timestamp,mobileRx,mobileTx,nrStatus\n2021-01-07 18:19:50,100,10,NONE\n2021-01-07 18:19:51,5100,60,CONNECTED\n"
            .write(toFile: csv, atomically: true, encoding: .utf8)
        let report = directory + "/report.json"
        let arguments = [
            "analyze", "--counters", csv, "--rx-column", "mobileRx", "--tx-column", "mobileTx", "--access-column", "nrStatus",
            "--access-radio", "CONNECTED=nr-sa", "--radio", "lte", "--format", "json", "--out", report,
        ]
        try #require(try Netsim.parseAsRoot(arguments) as? AnalyzeCommand).run()
        let analysis = try JSONDecoder().decode(CaptureAnalysis.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        #expect(analysis.radio.model == "nr-sa" && analysis.radio.bytes.down == 5000 && analysis.radio.bytes.up == 50)
        #expect(analysis.counters?.access.map(\.radioModel) == ["nr-sa"])

        try "timestamp,mobileRx,mobileTx,nrStatus\n2021-01-07 18:19:50,100,10,NONE\n2021-01-07 18:19:51,abc,60,NONE\n"
            .write(toFile: csv, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: report)
        let bad = try #require(try Netsim.parseAsRoot(arguments) as? AnalyzeCommand)
        #expect(throws: ExitCode(1)) { try bad.run() }
        #expect(!FileManager.default.fileExists(atPath: report))
        // The counter options need --counters, and --access-radio a column and a known radio.
        #expect(throws: (any Error).self) { try Netsim.parseAsRoot(["analyze", "t.pcap", "--rx-column", "mobileRx"]) }
        #expect(throws: (any Error).self) { try Netsim.parseAsRoot(["analyze", "--counters", "c.csv", "--access-radio", "A=lte"]) }
        #expect(throws: (any Error).self) {
            try Netsim.parseAsRoot(["analyze", "--counters", "c.csv", "--access-column", "a", "--access-radio", "A=5g"])
        }
    }
}
