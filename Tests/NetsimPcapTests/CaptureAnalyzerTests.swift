import Foundation
import NetsimCore
import NetsimReport
import NetsimTestSupport
import Testing

@testable import NetsimPcap

@Suite(.computes) struct CaptureAnalyzerTests {
    /// A chunk on the emulated radio, as a live run computed it.
    struct OnAirChunk {
        var connection: ConnectionID
        var direction: Direction
        var bytes: Int
        var start: Double
        var end: Double
    }

    /// A live run's radio and its on-air chunks: bursts of requests and responses on a few
    /// connections, with silences long enough for the radio to sleep, serialized at 2 Mbit/s.
    static func liveRun(
        _ technology: RadioTechnology, seed: UInt64
    ) -> (report: RadioReport, opens: [(ConnectionID, Double)], chunks: [OnAirChunk], radio: RadioStateMachine) {
        let stages = RadioStages(.defaults(for: technology))!
        var live = RadioStateMachine(stages)
        var random = SeededRandom(seed: seed)
        var linkFree = (up: 0.0, down: 0.0)
        var opens: [(ConnectionID, Double)] = []
        var chunks: [OnAirChunk] = []
        var time = 5.0
        for connection in ConnectionID(1)...6 {
            // A connection's SYN goes on air as netsim run sends it: an uplink admission.
            let syn = live.admit(at: time, direction: .up, bytes: 60)
            live.transmitted(from: syn.start, to: syn.start, direction: .up, bytes: 60)
            opens.append((connection, syn.start))
            time = syn.start
            for _ in 0..<40 {
                time += random.unitInterval() < 0.25 ? 5 + random.unitInterval() * 25 : random.unitInterval() * 0.4
                let direction: Direction = random.unitInterval() < 0.4 ? .up : .down
                let bytes =
                    random.unitInterval() < 0.6 ? 200 + Int(random.unitInterval() * 800) : 20_000 + Int(random.unitInterval() * 80_000)
                let admission = live.admit(at: time, direction: direction, bytes: bytes)
                let free = direction == .up ? linkFree.up : linkFree.down
                let start = max(admission.start, free)
                let end = start + Double(bytes) * 8 / 2e6
                if direction == .up { linkFree.up = end } else { linkFree.down = end }
                live.transmitted(from: start, to: end, direction: direction, bytes: bytes)
                chunks.append(OnAirChunk(connection: connection, direction: direction, bytes: bytes, start: start, end: end))
            }
        }
        return (live.report(until: live.tailEnd), opens, chunks, live)
    }

    /// Writes a live run's chunks as netsim run's capture would: in the run's time order, each
    /// connection closed at its last chunk's end (the live run's connections follow each other).
    static func writeCapture(opens: [(ConnectionID, Double)], chunks: [OnAirChunk], to path: String) throws {
        let writer = try CaptureWriter(path: path, wallClockOrigin: 1_700_000_000)
        for (connection, openedAt) in opens {
            writer.open(
                connection, CaptureEndpoints(clientPort: 40_000 + UInt16(connection), server: Frames.server, serverPort: 443), at: openedAt)
            let own = chunks.filter { $0.connection == connection }
            for chunk in own {
                writer.data(
                    connection, chunk.direction, [UInt8](repeating: 0x55, count: chunk.bytes), onAirStart: chunk.start,
                    onAirEnd: chunk.end, at: chunk.start)
            }
            writer.close(connection, reset: false, at: own.map(\.end).max() ?? openedAt)
        }
        try writer.finish()
    }

    static func options(_ technology: RadioTechnology, device: [IPAddress] = []) -> CaptureAnalysisOptions {
        CaptureAnalysisOptions(radio: RadioStages(.defaults(for: technology))!, deviceAddresses: device)
    }

    static func expectClose(
        _ actual: Double, _ expected: Double, within tolerance: Double = 0.01, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(abs(actual - expected) <= tolerance * abs(expected), "\(actual) vs \(expected)", sourceLocation: sourceLocation)
    }

    @Test(arguments: [RadioTechnology.lte, .umts, .nrNSA, .nrSA, .wifi])
    func analyzingTheCaptureGivesTheLiveRunsRadioFigures(technology: RadioTechnology) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("run.pcap")
        let run = Self.liveRun(technology, seed: 7)
        try Self.writeCapture(opens: run.opens, chunks: run.chunks, to: path)
        let analysis = try CaptureAnalysis.analyze(file: path, options: Self.options(technology))
        #expect(analysis.radio.model == run.report.model)
        #expect(analysis.radio.promotionsByOrigin == run.report.promotionsByOrigin)
        Self.expectClose(analysis.radio.energyJoules, run.report.energyJoules)
        Self.expectClose(analysis.radio.wakeSeconds, run.report.wakeSeconds)
        Self.expectClose(analysis.radio.durationSeconds, run.report.durationSeconds)
        #expect(analysis.radio.bytes.up + analysis.radio.bytes.down == run.chunks.map(\.bytes).reduce(0, +))
        #expect(analysis.capture.deviceAddresses == ["10.0.0.2"])
        #expect(analysis.capture.outOfOrderPackets == 0)
    }

    /// `--until T` stops any capture at T, as a run stopped at T reports: later
    /// packets are not analyzed, and a tail under way is cut there.
    @Test func untilStopsTheAnalysisWhereALiveRunStoppedThereWould() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("run.pcap")
        let run = Self.liveRun(.lte, seed: 5)
        try Self.writeCapture(opens: run.opens, chunks: run.chunks, to: path)
        // 0.3 s after a chunk in the middle: inside its tail.
        let stop = run.chunks[run.chunks.count / 2].end + 0.3
        let firstPacket = run.opens[0].1
        var options = Self.options(.lte)
        options.until = stop - firstPacket
        let analysis = try CaptureAnalysis.analyze(file: path, options: options)
        let live = run.radio.report(until: stop)

        #expect(analysis.capture.analysisEnd == AnalysisBound(seconds: stop - firstPacket, reason: .until))
        #expect(analysis.capture.packetsAfterEnd > 0)
        #expect(analysis.radio.promotionsByOrigin == live.promotionsByOrigin)
        Self.expectClose(analysis.radio.wakeSeconds, live.wakeSeconds)
        let awake = { (report: RadioReport) in report.energyJoules - (report.energyJoulesByState[.idle] ?? 0) }
        Self.expectClose(awake(analysis.radio), awake(live))
        // What flows are charged still adds up to the radio's figures.
        Self.expectClose(analysis.flows.map(\.wakeSeconds).reduce(0, +), analysis.radio.wakeSeconds, within: 1e-9)
        #expect(analysis.textReport().contains("to --until"))
    }

    @Test func flowChargesAddUpToTheRadiosTotals() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("run.pcap")
        let run = Self.liveRun(.lte, seed: 3)
        try Self.writeCapture(opens: run.opens, chunks: run.chunks, to: path)
        let analysis = try CaptureAnalysis.analyze(file: path, options: Self.options(.lte))
        #expect(analysis.flows.count == 6)
        let charged = analysis.flows.map(\.energyJoules).reduce(0, +) + analysis.idleEnergyJoules
        Self.expectClose(charged, analysis.radio.energyJoules, within: 1e-9)
        Self.expectClose(analysis.flows.map(\.wakeSeconds).reduce(0, +), analysis.radio.wakeSeconds, within: 1e-9)
        // Typed sums: inside `#expect`, `reduce(0, +) == reduce(0, +)` took the type checker 2.5 s.
        let wakeUps: Int = analysis.flows.map(\.wakeUps).reduce(0, +)
        let promotions: Int = analysis.radio.promotionsByOrigin.values.reduce(0, +)
        #expect(wakeUps == promotions)
        #expect(analysis.flows.map(\.energyJoules) == analysis.flows.map(\.energyJoules).sorted(by: >))
        #expect(analysis.flows.map(\.id) == Array(1...6))
    }

    /// A 60 s keepalive on an otherwise idle LTE phone: each costs a promotion and a whole
    /// tail, about 11.4 J (radio-parameters.md), about 190 mW on average.
    @Test func aSixtySecondKeepaliveIsFoundWithItsHourlyCost() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("keepalive.pcap")
        let writer = try CaptureWriter(path: path, wallClockOrigin: 1_700_000_000)
        let keepalive = CaptureEndpoints(clientPort: 41_000, server: Frames.server, serverPort: 5222)
        let browsing = CaptureEndpoints(clientPort: 41_001, server: IPAddress("198.51.100.7")!, serverPort: 443)
        writer.open(1, keepalive, at: 0)
        writer.open(2, browsing, at: 0)
        // The writer keeps order only within its reorder window, as a live run's records come:
        // write both flows' packets in time order.
        var random = SeededRandom(seed: 5)
        var packets: [(time: Double, connection: ConnectionID, direction: Direction, fill: UInt8, size: Int)] = []
        for minute in 0..<60 {
            let time = Double(minute) * 60 + 30 + (random.unitInterval() - 0.5)  // ±0.5 s timer jitter
            packets.append((time, 1, .up, 1, 40))
            packets.append((time + 0.08, 1, .down, 2, 40))
        }
        for visit in [100.0, 700, 1500, 1620, 2900] {
            packets.append((visit + 12, 2, .up, 3, 500))
        }
        for packet in packets.sorted(by: { $0.time < $1.time }) {
            writer.data(
                packet.connection, packet.direction, [UInt8](repeating: packet.fill, count: packet.size),
                onAirStart: packet.time, onAirEnd: packet.time, at: packet.time)
        }
        writer.close(1, reset: false, at: 3600)
        writer.close(2, reset: false, at: 3600)
        try writer.finish()

        let analysis = try CaptureAnalysis.analyze(file: path, options: Self.options(.lte))
        let periodic = try #require(analysis.periodicTransfers.first)
        #expect(analysis.periodicTransfers.count == 1)
        #expect(periodic.serverName == nil && periodic.remote == "93.184.216.34:5222")
        #expect(abs(periodic.periodSeconds - 60) < 1)
        #expect(periodic.repetitions >= 50)
        // A promotion (0.31 J) and the whole tail: 0.1 s at 1.2 W, short and long DRX.
        Self.expectClose(periodic.energyJoulesPerRepetition, 11.37, within: 0.02)
        Self.expectClose(periodic.energyJoulesPerHour, 682, within: 0.03)
        Self.expectClose(periodic.meanPowerMilliwatts, 190, within: 0.03)
        Self.expectClose(periodic.wakeSecondsPerRepetition, 0.26 + 0.08 + 10.12, within: 0.02)
    }

    /// A gRPC channel that calls every 15 s and pings 10.1 s after each call. Its
    /// bursts alternate gaps of 10.1 and 4.9 s; the period is 15 s of two bursts, during which
    /// the LTE radio never sleeps (its tail is 10.12 s): by hand, per period, 2 x 0.18 s at
    /// 1.2 W (the exchange and continuous reception), 2 x 0.02 s of short DRX at 1.122 W and
    /// 14.6 s of long DRX at 1.091 W (2 ms at 1.68 W of each 40 ms, the rest at 1.06 W): 16.41 J,
    /// 1094 mW. Taking the 4.9 s gap as the period priced a call's whole tail 735 times an
    /// hour, 2240 mW: more than the radio draws fully awake.
    @Test func aPeriodOfTwoBurstsIsFoundAndNeverPricedAboveTheAwakePower() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("grpc.pcap")
        let writer = try CaptureWriter(path: path, wallClockOrigin: 1_700_000_000)
        writer.open(1, CaptureEndpoints(clientPort: 41_000, server: Frames.server, serverPort: 443), at: 0)
        var packets: [(time: Double, direction: Direction, size: Int)] = []
        for call in 0..<40 {
            let time = Double(call) * 15
            packets += [(time, .up, 200), (time + 0.05, .down, 300), (time + 10.1, .up, 17), (time + 10.15, .down, 17)]
        }
        for packet in packets {
            writer.data(
                1, packet.direction, [UInt8](repeating: 1, count: packet.size), onAirStart: packet.time, onAirEnd: packet.time,
                at: packet.time)
        }
        writer.close(1, reset: false, at: 600)
        try writer.finish()

        let analysis = try CaptureAnalysis.analyze(file: path, options: Self.options(.lte))
        let periodic = try #require(analysis.periodicTransfers.first)
        Self.expectClose(periodic.periodSeconds, 15, within: 0.001)
        #expect(periodic.burstsPerRepetition == 2)
        #expect(periodic.repetitions >= 38)
        Self.expectClose(periodic.energyJoulesPerRepetition, 16.41, within: 0.03)
        Self.expectClose(periodic.meanPowerMilliwatts, 1094, within: 0.03)
        #expect(periodic.meanPowerMilliwatts <= LTERadioParameters().beta * 1000)
        Self.expectClose(periodic.wakeSecondsPerRepetition, 15, within: 0.01)
    }

    @Test func theDetectorTakesThePeriodThatExplainsTheBurstsNotTheCommonestGap() {
        var random = SeededRandom(seed: 11)
        // Browsing: exponential gaps, mean 40 s. No period explains half of them.
        var time = 0.0
        let browsing = (0..<200).map { _ in
            time += -40 * log(1 - random.unitInterval())
            return time
        }
        #expect(PeriodicTransferDetector.detect(burstStarts: browsing) == nil)
        // A 30 s timer with ±1 s of jitter: every burst a repetition.
        let timer = (0..<100).map { Double($0) * 30 + random.unitInterval() * 2 - 1 }
        let found = PeriodicTransferDetector.detect(burstStarts: timer)
        #expect(abs((found?.period ?? 0) - 30) < 1 && found?.repetitions == 99 && found?.recurring.count == 100)
        // Three bursts a minute at 0, 5 and 25 s: the minute, not the 5, 20 or 35 s gaps.
        let threeAMinute = (0..<30).flatMap { minute in [0.0, 5, 25].map { Double(minute) * 60 + $0 } }
        let minute = PeriodicTransferDetector.detect(burstStarts: threeAMinute)
        #expect(minute?.period == 60 && minute?.repetitions == 29 && minute?.recurring.count == 90)
    }

    @Test func theDeviceIsInferredOrGivenAndSetsTheDirection() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("private.pcap")
        let writer = try CaptureWriter(path: path, wallClockOrigin: 0)
        // Both ends private, one flow: the counts tie, and the SYN's sender is the device.
        writer.open(1, CaptureEndpoints(clientPort: 40_000, server: IPAddress("192.168.1.1")!, serverPort: 80), at: 0)
        writer.data(1, .up, [UInt8](repeating: 1, count: 100), onAirStart: 0.1, onAirEnd: 0.1, at: 0.1)
        writer.data(1, .down, [UInt8](repeating: 1, count: 3000), onAirStart: 0.2, onAirEnd: 0.3, at: 0.2)
        try writer.finish()
        let inferred = try CaptureAnalysis.analyze(file: path, options: Self.options(.lte))
        #expect(inferred.capture.deviceAddresses == ["10.0.0.2"] && inferred.capture.deviceAddressSource == "inferred")
        #expect(inferred.flows.first?.bytesUp == 100 && inferred.flows.first?.bytesDown == 3000)
        let given = try CaptureAnalysis.analyze(file: path, options: Self.options(.lte, device: [IPAddress("192.168.1.1")!]))
        #expect(given.capture.deviceAddressSource == "given")
        #expect(given.flows.first?.bytesUp == 3000 && given.flows.first?.device == "192.168.1.1:80")
        let nobody = try CaptureAnalysis.analyze(file: path, options: Self.options(.lte, device: [IPAddress("172.16.0.9")!]))
        #expect(nobody.flows.isEmpty && nobody.capture.otherHostPackets == nobody.capture.packets)
        #expect(nobody.radio.energyJoules == 0)
    }

    /// Past the inference window the device is settled and later packets are fed at once.
    @Test func inferenceSettlesAfterItsWindowAndKeepsCounting() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var file = PcapBytes(linkType: 1)
        let packets = DeviceAddressInference.window + 500
        for index in 0..<packets {
            let fromDevice = index % 3 != 0
            let frame = Frames.tcp(
                from: fromDevice ? CaptureEndpoints.deviceIPv4 : Frames.server,
                to: fromDevice ? Frames.server : CaptureEndpoints.deviceIPv4,
                sourcePort: fromDevice ? 50_000 : 443, destinationPort: fromDevice ? 443 : 50_000, payload: [1], fromDevice: fromDevice)
            file.add(frame, seconds: UInt32(index / 100))
        }
        let path = directory.file("long.pcap")
        try file.bytes.write(to: path)
        let analysis = try CaptureAnalysis.analyze(file: path, options: Self.options(.lte))
        #expect(analysis.capture.deviceAddresses == ["10.0.0.2"] && analysis.capture.deviceAddressSource == "inferred")
        #expect(analysis.capture.devicePackets == packets)
        let flow = try #require(analysis.flows.first)
        let fromServer = (packets + 2) / 3
        #expect(flow.bytesUp == packets - fromServer && flow.bytesDown == fromServer)
    }

    @Test func flowsAreNamedFromSNIHostAndAuthority() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("names.pcap")
        let writer = try CaptureWriter(path: path, wallClockOrigin: 0)
        let requests: [(UInt16, [UInt8])] = [
            (443, ServerNameSnifferTests.clientHello(host: "cdn.example.net", padding: 2500)),
            (80, Array("GET / HTTP/1.1\r\nHost: plain.example.com\r\n\r\n".utf8)),
            (50_051, GRPCExchange.frames[0].1),
        ]
        for (index, (port, request)) in requests.enumerated() {
            let connection = ConnectionID(index + 1)
            writer.open(connection, CaptureEndpoints(clientPort: 40_000 + port % 1000, server: Frames.server, serverPort: port), at: 0)
            writer.data(connection, .up, request, onAirStart: 0.1, onAirEnd: 0.2, at: 0.1)
        }
        try writer.finish()
        let analysis = try CaptureAnalysis.analyze(file: path, options: Self.options(.lte))
        let names = Dictionary(uniqueKeysWithValues: analysis.flows.map { ($0.remote, $0.serverName) })
        #expect(names["93.184.216.34:443"] == "cdn.example.net")
        #expect(names["93.184.216.34:80"] == "plain.example.com")
        #expect(names["93.184.216.34:50051"] == GRPCExchange.authority)
    }

    @Test func theJSONRadioObjectIsTheRunReportsAndTheHTMLDrawsTheTimeline() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("run.pcap")
        let run = Self.liveRun(.umts, seed: 9)
        try Self.writeCapture(opens: run.opens, chunks: run.chunks, to: path)
        let analysis = try CaptureAnalysis.analyze(file: path, options: Self.options(.umts))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = try encoder.encode(analysis)
        struct RadioOnly: Decodable { var radio: RadioReport }
        #expect(try JSONDecoder().decode(RadioOnly.self, from: json).radio == analysis.radio)
        #expect(try JSONDecoder().decode(CaptureAnalysis.self, from: json) == analysis)

        let html = analysis.htmlReport()
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("<svg"))
        for state in ["PROMOTION", "DCH", "FACH", "IDLE"] { #expect(html.contains(">\(state)</text>")) }
        let bursts = html.components(separatedBy: "fill=\"#4a6fa5\"").count - 1
        let wakeMarks = html.components(separatedBy: "fill=\"#d62728\"").count - 1
        #expect(html.components(separatedBy: "<rect").count - 1 == (analysis.radio.timeline?.count ?? 0) + bursts + wakeMarks)
        #expect(bursts > 0 && wakeMarks > 0 && wakeMarks <= analysis.flows.reduce(0) { $0 + $1.wakeUps })
        #expect(!html.contains("<script"))
        // The summary is tables in the text report's words, not preformatted text.
        #expect(!html.contains("<pre>") && html.contains("<tr><th>wake time</th><td>"))
        #expect(html.contains("<tr><th>Device</th><td>") && html.contains("<th>State</th><th>Seconds</th>"))

        let text = analysis.textReport()
        #expect(text.contains("Radio model umts"))
        #expect(text.contains("Flows by energy"))
    }

    /// The analyze chart: under the radio lanes, a lane per flow with its packets, so a
    /// reader sees which flow caused each promotion. Two flows 40 s apart (past LTE's tail):
    /// each wakes the radio once, and each lane carries one burst with its red mark, at the
    /// burst's place on the shared time axis.
    @Test func eachFlowHasALaneShowingWhichOfItsBurstsWokeTheRadio() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("two.pcap")
        let writer = try CaptureWriter(path: path, wallClockOrigin: 0)
        for (index, (port, at)) in [(UInt16(443), 1.0), (UInt16(8443), 41.0)].enumerated() {
            let connection = ConnectionID(index + 1)
            writer.open(connection, CaptureEndpoints(clientPort: 40_001 + UInt16(index), server: Frames.server, serverPort: port), at: at)
            writer.data(connection, .up, Array(repeating: 7, count: 300), onAirStart: at + 0.1, onAirEnd: at + 0.2, at: at + 0.1)
            writer.data(connection, .down, Array(repeating: 8, count: 900), onAirStart: at + 0.3, onAirEnd: at + 0.4, at: at + 0.3)
        }
        try writer.finish()
        let analysis = try CaptureAnalysis.analyze(file: path, options: Self.options(.lte))
        #expect(analysis.flows.count == 2)
        for flow in analysis.flows {
            #expect(flow.bursts.count == 1 && flow.bursts[0].wakeUps == 1 && flow.bursts[0].packets == flow.packets, "\(flow)")
            #expect(abs(flow.bursts[0].energyJoules - flow.energyJoules) < 1e-9)
        }
        let later = try #require(analysis.flows.first { $0.remote.hasSuffix(":8443") })
        // Times run from the capture's first packet (the first SYN, at 1 s).
        #expect(later.bursts[0].start >= 40 && later.bursts[0].end <= 40.5, "\(later.bursts)")
        let html = analysis.htmlReport()
        #expect(html.components(separatedBy: "fill=\"#d62728\"").count - 1 == 2)
        #expect(html.contains(">#1 ") && html.contains(">#2 "))
        #expect(html.contains("woke the radio</title>"))
        // The energy so far rises to the report's energy: its last point is at the top.
        #expect(html.contains(">\(ReportNumber.joules(analysis.radio.energyJoules, decimals: 2)) at the end<"))
        let curve = try #require(
            html.components(separatedBy: "stroke=\"#b35806\" stroke-width=\"1.5\" points=\"").last?.prefix { $0 != "\"" })
        let heights = curve.split(separator: " ").compactMap { Double($0.split(separator: ",")[1]) }
        #expect(heights.count >= 2 && zip(heights, heights.dropFirst()).allSatisfy { $0 >= $1 }, "never falls: \(curve)")
        #expect(try #require(heights.first) - #require(heights.last) > 50, "rises by the chart's height")
    }

    /// `analyze` coloured its lanes by position, so DCH took whichever colour its lane had; it
    /// draws each state in the colour `bench` draws it in.
    @Test func theHTMLDrawsEachStateInTheColourBenchDrawsItIn() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("run.pcap")
        let run = Self.liveRun(.umts, seed: 9)
        try Self.writeCapture(opens: run.opens, chunks: run.chunks, to: path)
        let analysis = try CaptureAnalysis.analyze(file: path, options: Self.options(.umts))
        let html = analysis.htmlReport()
        let states = Set(try #require(analysis.radio.timeline).map(\.state))
        #expect(states.isSuperset(of: [.dch, .fach, .idle]))
        for state in states {
            #expect(html.contains("fill=\"\(state.chartColor)\"><title>\(state.rawValue) "), "\(state)")
        }
    }

    @Test func anEmptyCaptureHasNothingToCharge() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("empty.pcap")
        try PcapBytes(linkType: 1).bytes.write(to: path)
        let analysis = try CaptureAnalysis.analyze(file: path, options: Self.options(.lte))
        #expect(analysis.capture.packets == 0 && analysis.flows.isEmpty && analysis.radio.energyJoules == 0)
        #expect(analysis.textReport().contains("Flows: none"))
        #expect(analysis.htmlReport().contains("No radio activity"))
    }
}
