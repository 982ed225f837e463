import Foundation
import NIOCore
import NetsimCore
import NetsimPcap
import NetsimProxy
import Testing

@testable import NetsimCLI

/// `netsim run --pcap` and `netsim analyze`: analyzing the capture of a run gives that run's own
/// radio figures back.
@Suite(.serialized) struct CaptureConsistencyTests {
    @Test func analyzingARunsCaptureGivesTheRunsRadioFigures() async throws {
        var lte = LTERadioParameters()
        lte.longDRXTime = 1  // Short tails keep the run short.
        let profile = Profile(
            name: "capture", description: "",
            networks: [
                Network(
                    name: "lte", radio: .lte(lte),
                    up: LinkParameters(capacity: .rate(bitsPerSecond: 5e6), delay: 0.02),
                    down: LinkParameters(capacity: .rate(bitsPerSecond: 10e6), delay: 0.02))
            ],
            start: "lte")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-\(UUID().uuidString).pcap").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try CaptureWriter(path: path, wallClockOrigin: Date().timeIntervalSince1970)
        var options = ProxyOptions()
        options.observer = CaptureLinkObserver(writer: writer)

        let (server, serverPort) = try await Loopback.echoServer()
        let proxy = try await NetsimProxy.start(
            profile: profile, seed: 3,
            forwards: [ForwardRule(listen: HostPort(host: "127.0.0.1", port: 0), upstream: HostPort(host: "127.0.0.1", port: serverPort))],
            options: options, group: Loopback.group, logger: Loopback.logger)
        let port = proxy.listeningAddresses[0].port
        // Three wake-ups: bursts separated by more than the 1.38 s tail.
        for burst in 0..<3 {
            let payload = Loopback.randomBytes(200_000 + burst * 50_000, seed: UInt64(burst))
            let (received, ending) = try await Loopback.echo(payload, port: port)
            #expect(ending == .finished && received == payload)
            try await Task.sleep(for: .seconds(2))
        }
        let report = try await proxy.stop()
        try writer.finish()
        #expect(writer.droppedRecords == 0)
        try await server.close()

        let analysis = try CaptureAnalysis.analyze(file: path, options: CaptureAnalysisOptions(radio: RadioStages(.lte(lte))!))
        let live = report.radio
        let offline = analysis.radio
        #expect(live.promotions == 3)
        #expect(offline.promotions == live.promotions)
        #expect(abs(offline.wakeSeconds - live.wakeSeconds) / live.wakeSeconds < 0.01, "wake \(offline.wakeSeconds) vs \(live.wakeSeconds)")
        // The run also counts the idle time before the first and after the last packet, which a
        // capture cannot show; compare the energy of everything but IDLE.
        let liveAwake = live.energyJoules - (live.energyJoulesByState["IDLE"] ?? 0)
        let offlineAwake = offline.energyJoules - (offline.energyJoulesByState["IDLE"] ?? 0)
        #expect(abs(offlineAwake - liveAwake) / liveAwake < 0.01, "energy awake \(offlineAwake) vs \(liveAwake) J")
    }
}
