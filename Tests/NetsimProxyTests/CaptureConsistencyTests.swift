import Foundation
import NIOCore
import NetsimCore
import NetsimInput
import NetsimPcap
import NetsimProxy
import NetsimTestSupport
import Testing

/// `netsim run --pcap` and `netsim analyze`: analyzing the capture of a run gives that run's own
/// radio figures back.
@Suite(.serialized, .playsLive(timeLimit: .seconds(120))) struct CaptureConsistencyTests {
    /// Three bursts, each on a new connection, 2 s apart on virtual time (`VirtualPhone`).
    @Test func analyzingARunsCaptureGivesTheRunsRadioFigures() throws {
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
        let (path, writer, options) = try Self.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let phone = try VirtualPhone(profile, seed: 3, options: options)
        // Three wake-ups: bursts separated by more than the 1.38 s tail.
        for burst in 0..<3 {
            let connection = try phone.connect()
            let payload = Loopback.randomBytes(200_000 + burst * 50_000, seed: UInt64(burst))
            connection.write(payload)
            #expect(try phone.advance(until: phone.now + 10) { connection.clientReceived.count == payload.count } != nil)
            #expect(connection.clientReceived == payload)
            try phone.advance(to: phone.now + 2)
        }
        let report = try phone.stop()
        try writer.finish()
        #expect(writer.droppedRecords == 0)

        let analysis = try CaptureAnalysis.analyze(file: path, options: CaptureAnalysisOptions(radio: RadioStages(.lte(lte))!))
        let live = report.radio
        let offline = analysis.radio
        #expect(live.promotions == 3)
        #expect(offline.promotions == live.promotions)
        #expect(abs(offline.wakeSeconds - live.wakeSeconds) / live.wakeSeconds < 0.01, "wake \(offline.wakeSeconds) vs \(live.wakeSeconds)")
        // The run also counts the idle time before the first and after the last packet, which a
        // capture cannot show; compare the energy of everything but IDLE.
        let liveAwake = live.energyJoules - (live.energyJoulesByState[.idle] ?? 0)
        let offlineAwake = offline.energyJoules - (offline.energyJoulesByState[.idle] ?? 0)
        #expect(abs(offlineAwake - liveAwake) / liveAwake < 0.01, "energy awake \(offlineAwake) vs \(liveAwake) J")
    }

    // A run can stop anywhere, and analyzing its capture must still give its figures.
    // The capture records the run's start and end; analyze covers exactly that span.

    /// A profile whose LTE tail lasts 1.38 s, with `events` on its timeline.
    static func shortTailProfile(events: [TimelineEvent] = []) -> (Profile, LTERadioParameters) {
        var lte = LTERadioParameters()
        lte.longDRXTime = 1
        let profile = Profile(
            name: "capture", description: "",
            networks: [
                Network(
                    name: "lte", radio: .lte(lte),
                    up: LinkParameters(capacity: .rate(bitsPerSecond: 5e6), delay: 0.02),
                    down: LinkParameters(capacity: .rate(bitsPerSecond: 10e6), delay: 0.02))
            ],
            start: "lte", timeline: Timeline(events: events))
        return (profile, lte)
    }

    /// A capture in a new file of the temporary directory (its path, for the caller to
    /// remove), and proxy options that feed it; `runStart` as `netsim run --pcap` writes it.
    static func capture(runStart: RunStart? = nil) throws -> (path: String, writer: CaptureWriter, options: ProxyOptions) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-\(UUID().uuidString).pcap").path
        let writer = try CaptureWriter(path: path, wallClockOrigin: Date().timeIntervalSince1970, runStart: runStart)
        var options = ProxyOptions()
        options.observer = CaptureLinkObserver(writer: writer)
        return (path, writer, options)
    }

    /// Runs a proxy with `profile` and a capture, drives `traffic` through it, stops it as
    /// `netsim run` does, and hands the capture's path to `inspect` (then removes it).
    static func captureRun<Result>(
        _ profile: Profile, traffic: (_ port: Int, _ proxy: NetsimProxy) async throws -> Void, inspect: (RunReport, String) throws -> Result
    ) async throws -> Result {
        let (path, writer, options) = try capture(runStart: RunStart(profile: profile, seed: 3))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (server, serverPort) = try await Loopback.echoServer()
        let proxy = try await NetsimProxy.start(
            profile: profile, seed: 3,
            forwards: [ForwardRule(listen: HostPort(host: "127.0.0.1", port: 0), upstream: HostPort(host: "127.0.0.1", port: serverPort))],
            options: options, group: Loopback.group, logger: Loopback.logger)
        try await traffic(proxy.listeningAddresses[0].port, proxy)
        let report = try await proxy.stop()
        // The proxy told the capture where the run ended (LinkObserver.runEnded).
        try writer.finish()
        try await server.close()
        return try inspect(report, path)
    }

    /// A run's capture analyzed with no radio given: its start record names the run's.
    static func runAndAnalyze(
        _ profile: Profile, traffic: (_ port: Int, _ proxy: NetsimProxy) async throws -> Void
    ) async throws -> (run: RunReport, analysis: CaptureAnalysis) {
        try await captureRun(profile, traffic: traffic) { report, path in
            let analysis = try CaptureAnalysis.analyze(file: path, options: CaptureAnalysisOptions(radio: nil))
            #expect(analysis.capture.radioSource == "the run's start record: profile \(profile.name), seed 3, network \(profile.start)")
            return (report, analysis)
        }
    }

    /// The same as `runAndAnalyze`, on virtual time: `traffic` drives a `VirtualPhone`, and
    /// the run stops where it leaves the phone's clock.
    static func virtualRunAndAnalyze(
        _ profile: Profile, traffic: (VirtualPhone) throws -> Void
    ) throws -> (run: RunReport, analysis: CaptureAnalysis) {
        let (path, writer, options) = try capture(runStart: RunStart(profile: profile, seed: 3))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let phone = try VirtualPhone(profile, seed: 3, options: options)
        try traffic(phone)
        let report = try phone.stop()
        try writer.finish()
        let analysis = try CaptureAnalysis.analyze(file: path, options: CaptureAnalysisOptions(radio: nil))
        #expect(analysis.capture.radioSource == "the run's start record: profile \(profile.name), seed 3, network \(profile.start)")
        return (report, analysis)
    }

    /// A client's `payload` echoed back through a new connection of `phone`, intact.
    static func echo(_ payload: [UInt8], on phone: VirtualPhone) throws {
        let connection = try phone.connect()
        connection.write(payload)
        #expect(try phone.advance(until: phone.now + 10) { connection.clientReceived.count == payload.count } != nil)
        #expect(connection.clientReceived == payload)
    }

    static func expectSameFigures(_ live: RadioReport, _ offline: RadioReport) {
        #expect(
            abs(offline.durationSeconds - live.durationSeconds) / live.durationSeconds < 0.01,
            "duration \(offline.durationSeconds) vs \(live.durationSeconds)")
        #expect(offline.promotions == live.promotions)
        #expect(abs(offline.wakeSeconds - live.wakeSeconds) / live.wakeSeconds < 0.01, "wake \(offline.wakeSeconds) vs \(live.wakeSeconds)")
        #expect(
            abs(offline.energyJoules - live.energyJoules) / live.energyJoules < 0.01,
            "energy \(offline.energyJoules) vs \(live.energyJoules) J")
    }

    @Test func aRunThatEndsInTheMiddleOfATailAnalyzesToItsOwnFigures() throws {
        let (profile, _) = Self.shortTailProfile()
        let (run, analysis) = try Self.virtualRunAndAnalyze(profile) { phone in
            try Self.echo(Loopback.randomBytes(100_000, seed: 1), on: phone)
            // Stop 0.4 s into the 1.38 s tail.
            try phone.advance(to: phone.now + 0.4)
        }
        #expect(analysis.capture.analysisEnd.reason == .runEnd)
        #expect(analysis.capture.analysisStart.reason == .runStart)
        #expect(run.radio.secondsByState[.idle, default: 0] < run.radio.durationSeconds)
        Self.expectSameFigures(run.radio, analysis.radio)
    }

    /// An nr-sa run's capture analyzed as LTE (the old default) was 54.01 s awake and
    /// 59.99 J against the run's 74.0 s and 39.18 J. The start record names the run's radio.
    @Test func anNRRunsCaptureAnalyzesWithTheRunsOwnRadio() throws {
        let profile = try ProfileCatalog.builtin(named: "nr-sa")
        let (run, analysis) = try Self.virtualRunAndAnalyze(profile) { phone in
            try Self.echo(Loopback.randomBytes(100_000, seed: 4), on: phone)
            try phone.advance(to: phone.now + 0.5)
        }
        #expect(analysis.capture.radioModel == "nr-sa")
        Self.expectSameFigures(run.radio, analysis.radio)
    }

    /// A clean close was never recorded. An echo whose client half-closes after its
    /// bytes and whose server closes after echoing them passes both FINs on; the second goes to
    /// a side whose input is closed, which NIO closes fully. The capture shows both.
    @Test func aCleanCloseShowsBothFINsInTheCapture() async throws {
        let (profile, _) = Self.shortTailProfile()
        let (report, fins) = try await Self.captureRun(profile) { port, _ in
            let (received, ending) = try await Loopback.echo(Loopback.randomBytes(10_000, seed: 5), port: port)
            #expect(ending == .finished && received.count == 10_000)
            // Let the last FIN cross the emulated link before the run ends.
            try await Task.sleep(for: .milliseconds(300))
        } inspect: { report, path in
            var fins = 0
            let reader = try CaptureReader(path: path)
            try reader.forEachPacket { packet in
                if case .ip(let decoded) = PacketDecoder.decode(
                    packet.bytes, originalLength: packet.originalLength, linkType: reader.linkType),
                    decoded.tcp?.flags.contains(.fin) == true
                {
                    fins += 1
                }
            }
            return (report, fins)
        }
        #expect(report.connections.closed == 1 && report.connections.reset == 0)
        #expect(fins == 2)
    }

    /// An outage ended early (`POST /outage/end`) moves what it held, in the capture
    /// too: a connection opened and written to during a 60 s stall, ended after 0.5 s, shows its
    /// handshake and bytes when they crossed, and the capture analyzes to the run's figures.
    @Test(.tags(.liveTiming)) func anOutageEndedEarlyMovesWhatItHeldInTheCapture() async throws {
        let (profile, _) = Self.shortTailProfile()
        var ended: OutageEnd?
        let (run, analysis) = try await Self.runAndAnalyze(profile) { port, proxy in
            _ = try await proxy.outage(seconds: 60, mode: .stall)
            let payload = Loopback.randomBytes(20_000, seed: 6)
            async let echoed = Loopback.echo(payload, port: port)
            try await Task.sleep(for: .milliseconds(500))
            ended = try await proxy.endOutage()
            let (received, ending) = try await echoed
            #expect(ending == .finished && received == payload)
            try await Task.sleep(for: .seconds(2))
        }
        let end = try #require(ended)
        #expect(end.plannedEnd - end.startedAt == 60 && end.movedDeliveries >= 2 && end.connectivityReturnsAt == nil)
        #expect(run.events.first?.durationSeconds.map { abs($0 - (end.endedAt - end.startedAt)) < 1e-9 } == true)
        #expect(run.radio.heldAtEnd.up.bytes == 0 && run.radio.promotions == 1)
        Self.expectSameFigures(run.radio, analysis.radio)
    }

    @Test func aRunThatEndsInsideAnOutageAnalyzesToItsOwnFigures() throws {
        let (profile, _) = Self.shortTailProfile(events: [TimelineEvent(at: 1.5, kind: .outage(duration: 60, mode: .stall))])
        let (run, analysis) = try Self.virtualRunAndAnalyze(profile) { phone in
            // Opened before the outage, written to inside it: those bytes are held until TCP's
            // retransmission after the outage, which the run does not reach.
            let held = try phone.connect()
            try Self.echo(Loopback.randomBytes(50_000, seed: 2), on: phone)
            try phone.advance(to: 2.5)
            held.write([UInt8](repeating: 1, count: 5000))
            try phone.advance(to: 3)
        }
        #expect(run.radio.heldAtEnd.up.bytes == 5000)
        #expect(abs(run.radio.durationSeconds - run.durationSeconds) < 1e-6)
        #expect(analysis.capture.analysisEnd.reason == .runEnd)
        Self.expectSameFigures(run.radio, analysis.radio)
    }
}
