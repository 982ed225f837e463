import Foundation
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimPcap

/// Traffic counters priced as `netsim analyze` prices a capture: the same traffic, as a capture
/// written by netsim's own writer and as per-interval or cumulative counters, gives the same
/// radio figures to the interval.
@Suite(.computes) struct CounterSeriesTests {
    static let origin = 1_700_000_000.0

    /// Seconds from the traffic's start at which each busy one-second interval starts: bursts
    /// of 1 to 3 seconds, 3 s apart (the radio stays awake) or 30 s apart (it sleeps, whatever
    /// the model's tail), and bytes per interval.
    static func traffic(seed: UInt64) -> [(start: Int, down: Int, up: Int)] {
        var random = SeededRandom(seed: seed)
        var intervals: [(start: Int, down: Int, up: Int)] = []
        var second = 0
        for _ in 0..<12 {
            for _ in 0..<(1 + Int(random.unitInterval() * 3)) {
                intervals.append((second, 20 * (1000 + Int(random.unitInterval() * 60_000)), 20 * (40 + Int(random.unitInterval() * 400))))
                second += 1
            }
            second += random.unitInterval() < 0.5 ? 3 : 30
        }
        return intervals
    }

    /// The traffic as a capture: each busy interval's bytes in 20 datagrams each way, every
    /// 50 ms from the interval's start (spread evenly over it, as a counter's interval is
    /// priced).
    static func writeCapture(_ traffic: [(start: Int, down: Int, up: Int)], to path: String) throws {
        let writer = try CaptureWriter(path: path, wallClockOrigin: origin)
        let endpoints = CaptureEndpoints(clientPort: 40_000, server: Frames.server, serverPort: 4433)
        for interval in traffic {
            for slot in 0..<20 {
                let time = Double(interval.start) + Double(slot) * 0.05
                writer.datagram(endpoints, .up, [UInt8](repeating: 1, count: interval.up / 20), onAir: time, at: time)
                writer.datagram(endpoints, .down, [UInt8](repeating: 2, count: interval.down / 20), onAir: time, at: time)
            }
        }
        try writer.finish()
    }

    /// The traffic as counters, one row a second from the first busy interval to the last.
    static func counterCSV(_ traffic: [(start: Int, down: Int, up: Int)], cumulative: Bool) -> String {
        var lines = ["time,rx_bytes,tx_bytes,note"]
        var totals = (down: 0, up: 0)
        let busy = Dictionary(uniqueKeysWithValues: traffic.map { ($0.start, $0) })
        if cumulative { lines.append("\(Int(origin)),0,0,start") }
        for second in 0...traffic[traffic.count - 1].start {
            let interval = busy[second]
            if cumulative {
                totals.down += interval?.down ?? 0
                totals.up += interval?.up ?? 0
                lines.append("\(Int(origin) + second + 1),\(totals.down),\(totals.up),\"a, quoted \"\"cell\"\"\"")
            } else {
                lines.append("\(Int(origin) + second),\(interval?.down ?? 0),\(interval?.up ?? 0),x")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static let format = CounterFormat(timeColumn: "time", timeFormat: .seconds, rxColumn: "rx_bytes", txColumn: "tx_bytes")

    @Test(arguments: [(RadioTechnology.lte, true), (.lte, false), (.nrSA, true), (.nrNSA, false)])
    func countersPriceAsTheCaptureOfTheSameTrafficDoes(technology: RadioTechnology, cumulative: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let traffic = Self.traffic(seed: 11)
        let pcap = directory.file("traffic.pcap")
        try Self.writeCapture(traffic, to: pcap)
        let csv = directory.file("traffic.csv")
        try Self.counterCSV(traffic, cumulative: cumulative).write(toFile: csv, atomically: true, encoding: .utf8)

        let parameters = RadioParameters.defaults(for: technology)
        let captured = try CaptureAnalysis.analyze(file: pcap, options: CaptureAnalysisOptions(radio: RadioStages(parameters)))
        var format = Self.format
        format.cumulative = cumulative
        let series = try CounterSeries.read(file: csv, format: format)
        let counted = try CaptureAnalysis.price(series, radio: parameters)

        let bursts = captured.flows[0].bursts.count
        #expect(bursts == 12 && counted.flows[0].bursts.count == 12)
        #expect(counted.radio.promotions == captured.radio.promotions)
        #expect(counted.radio.promotions > 1 && counted.radio.promotions < 12)
        #expect(counted.radio.bytes == captured.radio.bytes)
        #expect(counted.radio.bytes.down == traffic.reduce(0) { $0 + $1.down })
        #expect(abs(counted.radio.transferEnergyJoules - captured.radio.transferEnergyJoules) < 1e-9)
        // A counter's interval keeps the radio connected to its end; the capture's last packet
        // of each burst is 50 ms before it: each burst's tail starts 50 ms later.
        let shift = 0.05 * Double(bursts)
        #expect(counted.radio.wakeSeconds >= captured.radio.wakeSeconds)
        #expect(counted.radio.wakeSeconds - captured.radio.wakeSeconds <= shift + 1e-6)
        let beta = RadioStages(parameters)!.stages[0].power
        #expect(abs(counted.radio.energyJoules - captured.radio.energyJoules) <= shift * beta + 1e-6)
        #expect(abs(counted.radio.durationSeconds - captured.radio.durationSeconds) <= 0.05 + 1e-6)
        #expect(counted.capture.analysisStart.seconds == captured.capture.analysisStart.seconds)
        #expect(counted.flows.count == 1 && counted.flows[0].wakeUps == counted.radio.promotions)
        #expect(counted.counters?.trafficIntervals == traffic.count)
        #expect(counted.flows[0].packets == traffic.count)
    }

    /// Packets anywhere in their interval: the counters still agree on the promotions and the
    /// bytes, and on the wake time to within an interval per burst.
    @Test func packetsAnywhereInTheirIntervalAgreeToTheInterval() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let traffic = Self.traffic(seed: 3)
        let pcap = directory.file("traffic.pcap")
        let writer = try CaptureWriter(path: pcap, wallClockOrigin: Self.origin)
        let endpoints = CaptureEndpoints(clientPort: 40_000, server: Frames.server, serverPort: 4433)
        var random = SeededRandom(seed: 8)
        for interval in traffic {
            // The first interval's packet at its start, so both analyses start at one time.
            let time = Double(interval.start) + (interval.start == 0 ? 0 : random.unitInterval() * 0.99)
            writer.datagram(endpoints, .up, [UInt8](repeating: 1, count: interval.up), onAir: time, at: time)
            // At most 50,000 bytes a datagram, 1 ms apart.
            for (index, offset) in stride(from: 0, to: interval.down, by: 50_000).enumerated() {
                let at = time + 0.001 * Double(index + 1)
                writer.datagram(endpoints, .down, [UInt8](repeating: 2, count: min(50_000, interval.down - offset)), onAir: at, at: at)
            }
        }
        try writer.finish()
        let parameters = RadioParameters.defaults(for: .lte)
        let captured = try CaptureAnalysis.analyze(file: pcap, options: CaptureAnalysisOptions(radio: RadioStages(parameters)))
        let series = try CounterSeries.parse(Self.counterCSV(traffic, cumulative: true), file: "traffic.csv", format: Self.format)
        let counted = try CaptureAnalysis.price(series, radio: parameters)
        #expect(counted.radio.promotions == captured.radio.promotions)
        #expect(counted.radio.bytes == captured.radio.bytes)
        #expect(abs(counted.radio.wakeSeconds - captured.radio.wakeSeconds) <= 1.0 * 12)
    }

    /// The access column picks the radio per interval: a handover while the traffic keeps the
    /// radio awake costs no promotion, the report names both radios, and each access's
    /// seconds are counted.
    @Test func theAccessColumnPicksTheRadioAndAnAwakeHandoverCostsNoPromotion() throws {
        var text = "timestamp,mobileRx,mobileTx,nrStatus\n"
        for second in 0...20 {
            let status = second <= 10 ? "NOT_RESTRICTED" : "CONNECTED"
            text += "2021-01-07 18:19:\(String(format: "%02d", 30 + second)),\(second * 1_000_000),\(second * 10_000),\(status)\n"
        }
        let format = CounterFormat(rxColumn: "mobileRx", txColumn: "mobileTx", accessColumn: "nrStatus")
        let series = try CounterSeries.parse(text, file: "walk.csv", format: format)
        #expect(series.timeFormat == .timestamp && series.intervals.count == 20)
        #expect(series.intervals[0].duration == 1 && series.intervals[0].rxBytes == 1_000_000)
        let analysis = try CaptureAnalysis.price(
            series, radios: ["CONNECTED": .defaults(for: .nrNSA)], fallback: .defaults(for: .lte))
        #expect(analysis.radio.model == "lte+nr-nsa")
        #expect(analysis.radio.promotions == 1)
        #expect(analysis.counters?.access.map(\.access) == ["NOT_RESTRICTED", "CONNECTED"])
        #expect(analysis.counters?.access.map(\.seconds) == [10, 10])
        #expect(analysis.radio.bytes.down == 20_000_000 && analysis.radio.bytes.up == 200_000)
        // Connected throughout: LTE's continuous reception for 10 s, cut by the handover, then
        // NR's connected state for 10 s and its tail.
        #expect(abs(analysis.radio.secondsByState[.continuousReception, default: 0] - 10) < 1e-9)
        #expect(analysis.radio.secondsByState[.connected, default: 0] >= 10)
        #expect(analysis.radio.secondsByState[.longDRX, default: 0] == 0)
        // Every value mapped to one radio prices as that radio alone.
        let one = try CaptureAnalysis.price(series, radio: .defaults(for: .lte))
        let mapped = try CaptureAnalysis.price(series, radios: ["CONNECTED": .defaults(for: .lte)], fallback: .defaults(for: .lte))
        #expect(one.radio == mapped.radio)
    }

    /// A bad file is an error naming the file, the row and the column; nothing is priced.
    @Test(
        arguments: [
            ("", nil, nil, "empty"),
            ("time,rx_bytes,tx_bytes\n", 1, nil, "no rows"),
            ("time,rx,tx_bytes\n1,2,3\n", 1, "rx_bytes", "no such column"),
            ("time,rx_bytes,tx_bytes\n1,0,0\n2,12x,0\n", 3, "rx_bytes", "not a number"),
            ("time,rx_bytes,tx_bytes\n1,0,0\n2,,0\n", 3, "rx_bytes", "not a number"),
            ("time,rx_bytes,tx_bytes\n1,0,0\n2,5,9\n3,6,8\n", 4, "tx_bytes", "went down"),
            ("time,rx_bytes,tx_bytes\n1,0,0\n2,-5,0\n", 3, "rx_bytes", "non-negative"),
            ("time,rx_bytes,tx_bytes\n1,0,0\n2,99999999999999,0\n", 3, "rx_bytes", "faster than"),
            ("time,rx_bytes,tx_bytes\n1,0,0\n1,5,0\n", 3, "time", "does not move forward"),
            ("time,rx_bytes,tx_bytes\n1,0,0\nnoon,5,0\n", 3, "time", "not a time"),
            ("time,rx_bytes,tx_bytes\n1,0,0\n2,5\n", 3, nil, "cut or broken"),
            ("time,rx_bytes,tx_bytes\n1,0,0\n2,\"5,0\n", 3, nil, "not closed"),
            ("time,rx_bytes,tx_bytes\n1,0,0\n", 2, nil, "need two"),
            ("time,rx_bytes,tx_bytes\n1,0,0\n9999999,5,0\n", 3, "time", "longer than"),
        ] as [(String, Int?, String?, String)])
    func aBadFileNamesTheRowAndColumn(text: String, line: Int?, column: String?, detail: String) throws {
        let error = try #require(throws: CounterError.self) {
            try CounterSeries.parse(text, file: "bad.csv", format: Self.format)
        }
        #expect(error.line == line)
        #expect(error.column == column)
        #expect(error.detail.contains(detail), "\(error)")
        #expect(error.description.hasPrefix("bad.csv"))
    }

    @Test func theFileAndRowCapsRefuseTheWholeFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("long.csv")
        let text = "time,rx_bytes,tx_bytes\n" + (1...100).map { "\($0),\($0),0" }.joined(separator: "\n")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        var limits = CounterSeries.Limits()
        limits.maximumRows = 99
        let rows = try #require(throws: CounterError.self) { try CounterSeries.read(file: path, format: Self.format, limits: limits) }
        #expect(rows.line == 101 && rows.detail.contains("more than 99 rows"))
        limits = CounterSeries.Limits()
        limits.maximumFileBytes = 100
        let size = try #require(throws: CounterError.self) { try CounterSeries.read(file: path, format: Self.format, limits: limits) }
        #expect(size.line == nil && size.detail.contains("larger than"))
        #expect(try CounterSeries.read(file: path, format: Self.format).intervals.count == 99)
    }

    @Test func timestampsReadAsISOLikeTextWithZones() {
        let format = CounterTimeFormat.timestamp
        #expect(format.seconds("1970-01-01 00:00:00") == 0)
        #expect(format.seconds("2021-01-07 18:19:50") == 1_610_043_590)
        #expect(format.seconds("2021-01-07T18:19:50.25Z") == 1_610_043_590.25)
        #expect(format.seconds("2021-01-07 18:19:50-06:00") == 1_610_065_190)
        #expect(format.seconds("2021-01-07 18:19:50+0100") == 1_610_039_990)
        #expect(format.seconds("2021-13-07 18:19:50") == nil)
        #expect(format.seconds("2021-01-07 18:19:50 extra") == nil)
        #expect(CounterTimeFormat.milliseconds.seconds("1500") == 1.5)
        #expect(CounterTimeFormat.auto.settled(by: "12.5") == .seconds)
    }

    /// A walking loop as the study's MN-Wild files are (SIGCOMM'21 5G artifact): cumulative
    /// `mobileRx` and `mobileTx` a second apart, `nrStatus` for the NR leg, among their other
    /// columns. 1,200 s of a saturating download, 3 MB down and 50 kB up a second, the NR leg up
    /// from second 300 to 900: written here, so it runs on every clone, and the study's own
    /// file beside it where ../shared/data is here.
    static func walkingLoop(in directory: String) throws -> String {
        let path = directory + "/walking-loop.csv"
        var text =
            "timestamp,latitude,longitude,nrStatus,rsrp,mobileRx,mobileTx,downlink_mbps,uplink_mbps,avg_power,provider,radio_type_used,direction\n"
        for second in 0..<1200 {
            let minutes = second / 60
            let stamp = "2021-01-07 18:\(String(format: "%02d", 19 + minutes)):\(String(format: "%02d", second % 60))"
            let status = (300..<900).contains(second) ? "CONNECTED" : "NOT_RESTRICTED"
            text +=
                "\(stamp),44.97,-93.22,\(status),-95.0,\(203_469_473 + second * 3_000_000),\(999_003 + second * 50_000),24.0,0.4,4644.4,Verizon,DEFAULT,downlink\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: Self.walkingLoops)
    func aWalkingLoopIsPriced(studyFile: String?) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-loop-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = try studyFile ?? Self.walkingLoop(in: directory)
        let format = CounterFormat(rxColumn: "mobileRx", txColumn: "mobileTx", accessColumn: "nrStatus")
        let series = try CounterSeries.read(file: file, format: format)
        #expect(series.rows > 1000 && series.intervals.count == series.rows - 1)
        #expect(series.intervals.allSatisfy { $0.duration >= 1 })
        let analysis = try CaptureAnalysis.price(series, radios: ["CONNECTED": .defaults(for: .nrNSA)], fallback: .defaults(for: .lte))
        #expect(analysis.radio.bytes.down == series.intervals.reduce(0) { $0 + $1.rxBytes })
        if studyFile == nil {
            // 1,199 intervals of 3 MB and 50 kB.
            #expect(analysis.radio.bytes.down == 1199 * 3_000_000 && analysis.radio.bytes.up == 1199 * 50_000)
        }
        #expect(analysis.radio.model.contains("nr-nsa"))
        #expect(analysis.radio.energyJoules > 0 && analysis.radio.wakeSeconds >= Double(series.intervals.count) * 0.9)
    }

    /// nil for the loop written here, then the study's file if it is here.
    static let walkingLoops: [String?] = [nil] + (FileManager.default.fileExists(atPath: studyWalkingLoop) ? [studyWalkingLoop] : [])

    static let studyWalkingLoop =
        (ProcessInfo.processInfo.environment["NETSIM_SHARED_DIRECTORY"]
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared").path) + "/data/sigcomm21-5g/MN-Wild/ELDERBERRY_374-run15652.csv"
}
