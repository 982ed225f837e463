import NetsimInput

/// One probe of a phone's radio: a packet sent down to it after `gap` seconds in which the
/// prober sent nothing, and the round trip it took (seconds).
public struct Probe: Sendable, Equatable {
    public var gap: Double
    public var roundTrip: Double

    public init(gap: Double, roundTrip: Double) {
        self.gap = gap
        self.roundTrip = roundTrip
    }
}

/// A file of probes, in the order they were sent: where the round trip steps up as the gap
/// grows is where the radio's timers run out, and the round trip after a long gap is the
/// delay an idle radio adds (paging wait and promotion).
///
/// Two layouts are read:
/// - the SIGCOMM'21 study's RRC-Probe files (`interval` s, `RTT1` ms, `KeepOrDrop`,
///   `carrier`, `enabled_radio_type`, ...): rows not marked `YEP` are left out as the study
///   leaves them out, and so are rows with `RTT1` of 0, probes that got no answer;
/// - netsim's own layout for a user's measurements: `gap_s,rtt_ms`, optionally `carrier` and
///   `access` (any text, shown in reports).
public struct ProbeFile: Sendable {
    public let file: String
    public let probes: [Probe]
    /// The carrier and radio access the file says it measured, if it says.
    public let carrier: String?
    public let access: String?
    /// Rows the study marked as dropped, or that got no answer.
    public let leftOut: Int

    public static let studyColumns: Set<String> = [
        "enabled_radio_type", "carrier", "interval", "RTT1", "RTT2", "active_radio_type", "KeepOrDrop",
    ]
    public static let simpleColumns: Set<String> = ["gap_s", "rtt_ms", "carrier", "access"]

    public init(_ table: MeasurementTable) throws(InputFileError) {
        file = table.file
        var probes: [Probe] = []
        var leftOut = 0
        let gapColumn: Int
        let rttColumn: Int
        var keepColumn: Int?
        let carrierColumn: Int?
        let accessColumn: Int?
        if table.has("interval") {
            try table.requireKnownColumns(Self.studyColumns, format: "an RRC-Probe file")
            gapColumn = try table.index(of: "interval")
            rttColumn = try table.index(of: "RTT1")
            keepColumn = try table.index(of: "KeepOrDrop")
            carrierColumn = table.columns.firstIndex(of: "carrier")
            accessColumn = table.columns.firstIndex(of: "enabled_radio_type")
        } else {
            try table.requireKnownColumns(Self.simpleColumns, format: "a probe file (gap_s, rtt_ms)")
            gapColumn = try table.index(of: "gap_s")
            rttColumn = try table.index(of: "rtt_ms")
            carrierColumn = table.columns.firstIndex(of: "carrier")
            accessColumn = table.columns.firstIndex(of: "access")
        }
        for row in table.rows.indices {
            let gap = try table.number(row, gapColumn)
            let rtt = try table.number(row, rttColumn)
            guard gap >= 0, gap <= 3600 else { throw table.error(row, gapColumn, "\(gap) s is not a gap of 0 s to 1 h") }
            guard rtt >= 0, rtt <= 60_000 else { throw table.error(row, rttColumn, "\(rtt) ms is not a round trip of 0 to 60 s") }
            if let keepColumn, table.text(row, keepColumn) != "YEP" {
                leftOut += 1
                continue
            }
            if rtt == 0 {
                leftOut += 1
                continue
            }
            probes.append(Probe(gap: gap, roundTrip: rtt / 1000))
        }
        guard !probes.isEmpty else {
            throw InputFileError(file: table.file, line: 1, column: 1, message: "no probe in the file is kept (all dropped or unanswered)")
        }
        self.probes = probes
        self.leftOut = leftOut
        func label(_ column: Int?) -> String? {
            guard let column else { return nil }
            let values = Set(table.rows.indices.map { table.text($0, column) })
            return values.count == 1 ? values.first : values.sorted().joined(separator: "+")
        }
        carrier = label(carrierColumn)
        access = label(accessColumn)
    }
}
