import NetsimCore
import NetsimInput

/// One interval of a power log: the bytes a phone moved over `seconds` up to `end`, and the
/// radio's mean power over the interval's last second as a meter read it (watts, the phone's
/// baseline taken off), with labels that say which network carried it.
public struct PowerSample: Sendable, Equatable {
    public var end: Double
    public var seconds: Double
    public var downBytes: Double
    public var upBytes: Double
    /// Nil where the log has no power reading (a counters file).
    public var power: Double?
    /// The phone's own draw that the meter's reading also held (watts): what was taken off to
    /// leave `power`, the radio's share. Zero where a log gives the radio's share alone.
    public var devicePower: Double
    /// The time up to `end` that `power` is the mean over: the study's meter reads one second
    /// per row, however long the row's counters ran; netsim's own layout, the whole interval.
    public var powerSeconds: Double
    /// `access` (lte, nr-nsa, nr-sa, or the user's own), `carrier` (lower case, letters and
    /// digits only: the study writes both "T-Mobile" and "TMobile"), and whatever else the
    /// format tells: `band`, `direction`, `target` (Mbit/s).
    public var labels: [String: String]
    /// The phone's signal strength over the interval (SS-RSRP, dBm) where the log has it: the
    /// study logs NR's, so only seconds with the NR leg up have one.
    public var signal: Double?

    public init(
        end: Double, seconds: Double, downBytes: Double, upBytes: Double, power: Double?, powerSeconds: Double? = nil,
        devicePower: Double = 0, labels: [String: String], signal: Double? = nil
    ) {
        self.signal = signal
        self.devicePower = devicePower
        self.end = end
        self.seconds = seconds
        self.powerSeconds = min(powerSeconds ?? 1, seconds)
        self.downBytes = downBytes
        self.upBytes = upBytes
        self.power = power
        self.labels = labels
    }

    public var downMbps: Double { downBytes * 8 / 1e6 / seconds }
    public var upMbps: Double { upBytes * 8 / 1e6 / seconds }
    /// The joules the meter read over `powerSeconds`; nil without a reading.
    public var measuredEnergy: Double? { power.map { $0 * powerSeconds } }
}

/// A file of power samples, or of the traffic a power meter saw, in one of three layouts:
/// - **walking loop** (the study's MN-Wild files): one row a second with cumulative byte
///   counters (`mobileRx`, `mobileTx`), `time_since_start`, `nrStatus` (the NR leg up or not),
///   `radio_type_used` (`SA only` for standalone), `provider`, `direction` and the meter's
///   `avg_power_baseline` (mW, the radio's share). A row's bytes are the counters' change
///   since the row before, over the time since it: the logger misses seconds (a run has 76% to
///   100% of them), and the counters keep counting through the gap. The first row has no row
///   before it: its bytes are its own `downlink_mbps` and `uplink_mbps` over one second, which
///   equal the counters' change wherever both are known.
/// - **transfer** (the study's MN-Transfer file): one row a second of an iPerf test at a target
///   rate, `throughput` Mbit/s in `direction`, `avg_power` mW of the whole phone; the radio's
///   share is that less `deviceBaseline`.
/// - **netsim's own** for a user's meter: `time_s` (the end of each interval), `down_bytes`,
///   `up_bytes` in the interval, `power_mw` (the radio's share; optional), and optionally
///   `access`, `carrier`, `rsrp_dbm`.
public struct PowerLog: Sendable {
    public enum Layout: String, Sendable {
        case walkingLoop = "walking loop"
        case transfer
        case simple = "netsim's power log"
    }

    public let file: String
    public let layout: Layout
    public let samples: [PowerSample]

    /// The phone's own draw with the screen on and no traffic, which the study's transfer file
    /// includes: MN-Wild's `avg_power - avg_power_baseline` for the runs without a baseline of
    /// their own (2357.3 mW), as the paper's 2.36 W.
    public static let studyDeviceBaseline = 2.3573

    static let walkingLoopColumns: Set<String> = [
        "timestamp", "latitude", "longitude", "movingSpeed", "compassDirection", "nrStatus", "rsrp", "nr_ssRsrp",
        "nr_ssSinr", "rsrp_avg", "nr_ssRsrp_avg", "nr_ssSinr_avg", "mobileRx", "mobileTx", "currentNow", "voltageNow",
        "nrStatus_array", "downlink_mbps", "uplink_mbps", "sw_power", "sw_power_rolled", "sw_power_baseline",
        "Fixedtimestamp", "_start", "_end", "iperf_type", "Throughput", "run_number", "seq_no", "time_since_start",
        "avg_power", "avg_power_rolled", "avg_power_baseline", "provider", "radio_type_used", "direction",
    ]
    static let transferColumns: Set<String> = [
        "throughput", "time_since_start", "avg_power", "target bandwidth", "direction", "network type", "provider",
    ]
    static let simpleColumns: Set<String> = ["time_s", "down_bytes", "up_bytes", "power_mw", "access", "carrier", "rsrp_dbm"]

    public init(file: String, layout: Layout, samples: [PowerSample]) {
        self.file = file
        self.layout = layout
        self.samples = samples
    }

    public init(_ table: MeasurementTable, deviceBaseline: Double = studyDeviceBaseline) throws(InputFileError) {
        file = table.file
        if table.has("mobileRx") {
            layout = .walkingLoop
            samples = try Self.walkingLoop(table)
        } else if table.has("network type") {
            layout = .transfer
            samples = try Self.transfer(table, deviceBaseline: deviceBaseline)
        } else {
            layout = .simple
            samples = try Self.simple(table)
        }
    }

    /// A carrier's name as a label: lower case, letters and digits.
    public static func carrierLabel(_ text: String) -> String {
        String(text.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) })
    }

    private static func walkingLoop(_ table: MeasurementTable) throws(InputFileError) -> [PowerSample] {
        try table.requireKnownColumns(walkingLoopColumns, format: "a walking-loop file (MN-Wild)")
        let time = try table.index(of: "time_since_start")
        let rx = try table.index(of: "mobileRx")
        let tx = try table.index(of: "mobileTx")
        let downMbps = try table.index(of: "downlink_mbps")
        let upMbps = try table.index(of: "uplink_mbps")
        let nrStatus = try table.index(of: "nrStatus")
        let radioType = try table.index(of: "radio_type_used")
        let provider = try table.index(of: "provider")
        let direction = try table.index(of: "direction")
        let power = try table.index(of: "avg_power_baseline")
        let wholePower = try table.index(of: "avg_power")
        let rsrp = try table.index(of: "nr_ssRsrp")
        var samples: [PowerSample] = []
        samples.reserveCapacity(table.rows.count)
        var previous: (time: Double, rx: Double, tx: Double)?
        for row in table.rows.indices {
            let now = (time: try table.number(row, time), rx: try table.number(row, rx), tx: try table.number(row, tx))
            let watts = try table.number(row, power) / 1000
            let device = max(0, try table.number(row, wholePower) / 1000 - watts)
            let access: String
            if table.text(row, nrStatus) == "CONNECTED" {
                access = table.text(row, radioType) == "SA only" ? "nr-sa" : "nr-nsa"
            } else {
                access = "lte"
            }
            let labels = [
                "access": access, "carrier": carrierLabel(table.text(row, provider)), "direction": table.text(row, direction),
            ]
            let signal = access == "lte" ? nil : try Self.signal(table, row, rsrp)
            let sample: PowerSample
            if let previous {
                let seconds = now.time - previous.time
                guard seconds > 0 else {
                    throw table.error(row, time, "time goes backwards or repeats (\(now.time) after \(previous.time))")
                }
                guard now.rx >= previous.rx else { throw table.error(row, rx, "the cumulative counter went down") }
                guard now.tx >= previous.tx else { throw table.error(row, tx, "the cumulative counter went down") }
                sample = PowerSample(
                    end: now.time, seconds: seconds, downBytes: now.rx - previous.rx, upBytes: now.tx - previous.tx, power: watts,
                    devicePower: device, labels: labels, signal: signal)
            } else {
                let down = try table.number(row, downMbps)
                let up = try table.number(row, upMbps)
                guard down >= 0 else { throw table.error(row, downMbps, "a rate below zero") }
                guard up >= 0 else { throw table.error(row, upMbps, "a rate below zero") }
                sample = PowerSample(
                    end: now.time, seconds: 1, downBytes: down * 1e6 / 8, upBytes: up * 1e6 / 8, power: watts, devicePower: device,
                    labels: labels, signal: signal)
            }
            samples.append(sample)
            previous = now
        }
        return samples
    }

    private static func transfer(_ table: MeasurementTable, deviceBaseline: Double) throws(InputFileError) -> [PowerSample] {
        try table.requireKnownColumns(transferColumns, format: "a transfer file (MN-Transfer)")
        let throughput = try table.index(of: "throughput")
        let time = try table.index(of: "time_since_start")
        let power = try table.index(of: "avg_power")
        let target = try table.index(of: "target bandwidth")
        let direction = try table.index(of: "direction")
        let network = try table.index(of: "network type")
        let provider = try table.index(of: "provider")
        var samples: [PowerSample] = []
        for row in table.rows.indices {
            let mbps = try table.number(row, throughput)
            guard mbps >= 0 else { throw table.error(row, throughput, "a rate below zero") }
            let bytes = mbps * 1e6 / 8
            let way = table.text(row, direction)
            guard way == "downlink" || way == "uplink" else { throw table.error(row, direction, "'\(way)' is neither downlink nor uplink") }
            let (access, band): (String, String)
            switch table.text(row, network) {
            case "LTE": (access, band) = ("lte", "lte")
            case "NSALow": (access, band) = ("nr-nsa", "low")
            case "mmwave": (access, band) = ("nr-nsa", "mmwave")
            case let other: throw table.error(row, network, "'\(other)' is not LTE, NSALow or mmwave")
            }
            samples.append(
                PowerSample(
                    end: try table.number(row, time), seconds: 1, downBytes: way == "downlink" ? bytes : 0,
                    upBytes: way == "uplink" ? bytes : 0,
                    power: try table.number(row, power) / 1000 - deviceBaseline, devicePower: deviceBaseline,
                    labels: [
                        "access": access, "band": band, "carrier": carrierLabel(table.text(row, provider)), "direction": way,
                        "target": table.text(row, target),
                    ]))
        }
        return samples
    }

    /// A row's signal strength (dBm), nil where the logger had none; one a phone cannot report
    /// is an error, whichever layout the file has.
    private static func signal(_ table: MeasurementTable, _ row: Int, _ column: Int) throws(InputFileError) -> Double? {
        guard let signal = try table.optionalNumber(row, column) else { return nil }
        guard Quantity.signalStrengthRange.contains(signal) else {
            throw table.error(row, column, "\(signal) dBm is not a signal strength (-156 to -31 dBm)")
        }
        return signal
    }

    private static func simple(_ table: MeasurementTable) throws(InputFileError) -> [PowerSample] {
        try table.requireKnownColumns(simpleColumns, format: "a power log (time_s, down_bytes, up_bytes, power_mw)")
        let time = try table.index(of: "time_s")
        let down = try table.index(of: "down_bytes")
        let up = try table.index(of: "up_bytes")
        let power = table.columns.firstIndex(of: "power_mw")
        let access = table.columns.firstIndex(of: "access")
        let carrier = table.columns.firstIndex(of: "carrier")
        let rsrp = table.columns.firstIndex(of: "rsrp_dbm")
        var samples: [PowerSample] = []
        var previousEnd: Double?
        for row in table.rows.indices {
            let end = try table.number(row, time)
            let seconds: Double
            if let previousEnd {
                seconds = end - previousEnd
                guard seconds > 0 else { throw table.error(row, time, "time goes backwards or repeats (\(end) after \(previousEnd))") }
            } else {
                seconds = 1
            }
            previousEnd = end
            let downBytes = try table.number(row, down)
            let upBytes = try table.number(row, up)
            guard downBytes >= 0 else { throw table.error(row, down, "a byte count below zero") }
            guard upBytes >= 0 else { throw table.error(row, up, "a byte count below zero") }
            var labels = ["access": access.map { table.text(row, $0) } ?? "radio"]
            if let carrier { labels["carrier"] = carrierLabel(table.text(row, carrier)) }
            let signal = try rsrp.flatMap { (column) throws(InputFileError) in try Self.signal(table, row, column) }
            samples.append(
                PowerSample(
                    end: end, seconds: seconds, downBytes: downBytes, upBytes: upBytes,
                    power: try power.map { (column) throws(InputFileError) in try table.number(row, column) / 1000 }, powerSeconds: seconds,
                    labels: labels, signal: signal))
        }
        return samples
    }
}
