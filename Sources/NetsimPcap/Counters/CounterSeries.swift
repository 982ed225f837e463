import Foundation
import NetsimCore
import NetsimReport

/// Which columns of a traffic counter CSV hold what: Android's `TrafficStats` sampled by an
/// app, 5GTracker, a MetricKit export, the SIGCOMM'21 study's walking loops (`timestamp`,
/// `mobileRx`, `mobileTx` cumulative, `nrStatus`).
public struct CounterFormat: Sendable, Equatable, Codable {
    public var timeColumn: String
    public var timeFormat: CounterTimeFormat
    /// Bytes received (downlink) and sent (uplink).
    public var rxColumn: String
    public var txColumn: String
    /// Cumulative counters (each row the total so far: the bytes of an interval are the growth
    /// from the row before), or per interval (each row the bytes since the row before).
    public var cumulative: Bool
    /// The radio access in each interval (`nrStatus`: `CONNECTED` when the NR leg is up); nil
    /// for none.
    public var accessColumn: String?
    /// Per-interval counters: how long the last row's interval lasts. Nil: as long as the
    /// interval before it.
    public var lastInterval: Double?

    public init(
        timeColumn: String = "timestamp", timeFormat: CounterTimeFormat = .auto, rxColumn: String = "rx", txColumn: String = "tx",
        cumulative: Bool = true, accessColumn: String? = nil, lastInterval: Double? = nil
    ) {
        self.timeColumn = timeColumn
        self.timeFormat = timeFormat
        self.rxColumn = rxColumn
        self.txColumn = txColumn
        self.cumulative = cumulative
        self.accessColumn = accessColumn
        self.lastInterval = lastInterval
    }
}

/// One interval of a counter file: the bytes moved in it, spread over it, and its radio access.
public struct CounterInterval: Sendable, Equatable, Codable {
    /// Seconds from the file's first row.
    public var start: Double
    public var duration: Double
    /// Bytes received (downlink) and sent (uplink) in the interval.
    public var rxBytes: Int
    public var txBytes: Int
    /// The access column's value in the row that gives the interval's bytes (control
    /// characters escaped); nil without an access column.
    public var access: String?
    /// The file's line that gives the interval's bytes (the header is line 1).
    public var line: Int

    public var end: Double { start + duration }

    public init(start: Double, duration: Double, rxBytes: Int, txBytes: Int, access: String? = nil, line: Int = 0) {
        self.start = start
        self.duration = duration
        self.rxBytes = rxBytes
        self.txBytes = txBytes
        self.access = access
        self.line = line
    }
}

/// A traffic counter file read whole and checked: its intervals in time order, contiguous (each
/// starts where the one before ended). Priced with `CaptureAnalysis.price`.
public struct CounterSeries: Sendable, Equatable {
    /// What a counter file may hold: a file beyond them is refused, not priced in part.
    public struct Limits: Sendable, Equatable {
        /// 64 MiB: a day of one-second rows with a hundred columns.
        public var maximumFileBytes = 64 << 20
        /// A million rows: eleven days of one-second rows.
        public var maximumRows = 1_000_000
        /// An interval longer than a week is a gap in the counters, not one transfer.
        public var maximumIntervalSeconds = 7 * 86_400.0
        /// 100 Gbit/s: no phone moves more bytes in an interval than this rate allows.
        public var maximumBitsPerSecond = 100e9

        public init() {}
    }

    public var file: String
    public var format: CounterFormat
    /// The time format the file turned out to use (`auto` settled).
    public var timeFormat: CounterTimeFormat
    /// The first row's time, in the time column's seconds (since 1970 for timestamps).
    public var startTime: Double
    /// Data rows in the file (the header not counted).
    public var rows: Int
    public var intervals: [CounterInterval]

    public init(
        file: String, format: CounterFormat, timeFormat: CounterTimeFormat, startTime: Double, rows: Int, intervals: [CounterInterval]
    ) {
        self.file = file
        self.format = format
        self.timeFormat = timeFormat
        self.startTime = startTime
        self.rows = rows
        self.intervals = intervals
    }

    /// Reads and checks the counter CSV at `path`. Every row must hold a time later than the
    /// row before and whole, non-negative byte counts (cumulative ones never going down); the
    /// first error names the file, the row and the column, and nothing is returned.
    public static func read(file path: String, format: CounterFormat, limits: Limits = Limits()) throws(CounterError) -> CounterSeries {
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            // One byte past the limit says the file is beyond it without reading it all.
            data = try handle.read(upToCount: limits.maximumFileBytes + 1) ?? Data()
        } catch {
            throw CounterError(file: path, detail: "cannot read the file: \(error.localizedDescription)")
        }
        guard data.count <= limits.maximumFileBytes else {
            throw CounterError(file: path, detail: "larger than \(limits.maximumFileBytes >> 20) MiB, the most a counter file may be")
        }
        return try parse(String(decoding: data, as: UTF8.self), file: path, format: format, limits: limits)
    }

    /// Reads and checks counter CSV text; `file` names it in errors.
    public static func parse(
        _ text: String, file: String, format: CounterFormat, limits: Limits = Limits()
    ) throws(CounterError)
        -> CounterSeries
    {
        var reader = CounterRowReader(file: file, format: format, limits: limits)
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = line.last == "\r" ? line.dropLast() : line
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            try reader.add(line, number: lineNumber)
        }
        return try reader.finish()
    }
}

/// Reads a counter file's rows one at a time into intervals, checking each.
private struct CounterRowReader {
    let file: String
    let format: CounterFormat
    let limits: CounterSeries.Limits
    /// The header's cell count, and where the used columns are.
    private var width = 0
    private var timeIndex = 0
    private var rxIndex = 0
    private var txIndex = 0
    private var accessIndex: Int?
    private var sawHeader = false
    private var timeFormat: CounterTimeFormat
    private var rows: [(line: Int, time: Double, rx: Int, tx: Int, access: String?)] = []

    init(file: String, format: CounterFormat, limits: CounterSeries.Limits) {
        self.file = file
        self.format = format
        self.limits = limits
        self.timeFormat = format.timeFormat
    }

    mutating func add(_ line: Substring, number: Int) throws(CounterError) {
        guard let cells = CSVRow.cells(line) else {
            throw CounterError(file: file, line: number, detail: "a quoted cell is not closed where its cell ends")
        }
        guard sawHeader else { return try readHeader(cells, number: number) }
        guard rows.count < limits.maximumRows else {
            throw CounterError(file: file, line: number, detail: "more than \(limits.maximumRows) rows, the most a counter file may have")
        }
        guard cells.count == width else {
            throw CounterError(file: file, line: number, detail: "\(cells.count) cells where the header has \(width): a cut or broken row")
        }
        let timeCell = cells[timeIndex]
        timeFormat = timeFormat.settled(by: timeCell)
        guard let time = timeFormat.seconds(timeCell) else {
            throw CounterError(
                file: file, line: number, column: format.timeColumn,
                detail: "'\(Self.shown(timeCell))' is not a time in \(timeFormat.rawValue) (--time-format)")
        }
        if let previous = rows.last {
            guard time > previous.time else {
                throw CounterError(
                    file: file, line: number, column: format.timeColumn,
                    detail: "the time does not move forward from row \(previous.line)'s: rows must be in time order, one per interval")
            }
            guard time - previous.time <= limits.maximumIntervalSeconds else {
                throw CounterError(
                    file: file, line: number, column: format.timeColumn,
                    detail: "\(ReportNumber.seconds(time - previous.time, decimals: 0)) after row \(previous.line): longer than the "
                        + "\(ReportNumber.seconds(limits.maximumIntervalSeconds, decimals: 0)) an interval may last")
            }
        }
        let rx = try count(cells[rxIndex], column: format.rxColumn, line: number)
        let tx = try count(cells[txIndex], column: format.txColumn, line: number)
        let access = accessIndex.map { String(cells[$0].prefix(64)).escapingControlCharacters }
        rows.append((number, time, rx, tx, access))
    }

    private mutating func readHeader(_ cells: [Substring], number: Int) throws(CounterError) {
        sawHeader = true
        width = cells.count
        let names = cells.map { $0.trimmingCharacters(in: .whitespaces) }
        func index(of column: String) throws(CounterError) -> Int {
            guard let found = names.firstIndex(of: column) else {
                let known = names.prefix(40).map { "'\($0.escapingControlCharacters)'" }.joined(separator: ", ")
                throw CounterError(
                    file: file, line: number, column: column,
                    detail: "no such column; the header has \(known)\(names.count > 40 ? ", ..." : "")")
            }
            return found
        }
        timeIndex = try index(of: format.timeColumn)
        rxIndex = try index(of: format.rxColumn)
        txIndex = try index(of: format.txColumn)
        if let access = format.accessColumn { accessIndex = try index(of: access) }
    }

    /// A byte count: a whole, non-negative number (a count written as `551.0` is read).
    private func count(_ cell: Substring, column: String, line: Int) throws(CounterError) -> Int {
        let trimmed = cell.trimmingCharacters(in: .whitespaces)
        guard let value = Double(trimmed), value.isFinite else {
            throw CounterError(file: file, line: line, column: column, detail: "'\(Self.shown(cell))' is not a number of bytes")
        }
        guard value >= 0, value == value.rounded() else {
            throw CounterError(file: file, line: line, column: column, detail: "\(trimmed) is not a whole, non-negative number of bytes")
        }
        guard value < 1e18 else {
            throw CounterError(file: file, line: line, column: column, detail: "\(trimmed) bytes is beyond any counter")
        }
        return Int(value)
    }

    /// The intervals: between consecutive rows for cumulative counters, from each row to the
    /// next (the last for `lastInterval`, or as long as the one before) for per-interval ones.
    func finish() throws(CounterError) -> CounterSeries {
        guard sawHeader else { throw CounterError(file: file, detail: "empty: no header and no rows") }
        guard let first = rows.first else { throw CounterError(file: file, line: 1, detail: "a header and no rows") }
        var intervals: [CounterInterval] = []
        intervals.reserveCapacity(rows.count)
        if format.cumulative {
            guard rows.count >= 2 else {
                throw CounterError(file: file, line: first.line, detail: "one row: cumulative counters need two to make an interval")
            }
            for (previous, row) in zip(rows, rows.dropFirst()) {
                guard row.rx >= previous.rx else { throw decrease(row.line, format.rxColumn, previous.rx, row.rx, previous.line) }
                guard row.tx >= previous.tx else { throw decrease(row.line, format.txColumn, previous.tx, row.tx, previous.line) }
                intervals.append(
                    CounterInterval(
                        start: previous.time - first.time, duration: row.time - previous.time, rxBytes: row.rx - previous.rx,
                        txBytes: row.tx - previous.tx, access: row.access, line: row.line))
            }
        } else {
            for (index, row) in rows.enumerated() {
                let duration: Double
                if index + 1 < rows.count {
                    duration = rows[index + 1].time - row.time
                } else if let last = format.lastInterval {
                    duration = last
                } else if index > 0 {
                    duration = row.time - rows[index - 1].time
                } else {
                    throw CounterError(file: file, line: row.line, detail: "one row and no --interval: how long it lasts is unknown")
                }
                intervals.append(
                    CounterInterval(
                        start: row.time - first.time, duration: duration, rxBytes: row.rx, txBytes: row.tx, access: row.access,
                        line: row.line))
            }
        }
        for interval in intervals {
            let bits = Double(interval.rxBytes + interval.txBytes) * 8
            guard bits <= limits.maximumBitsPerSecond * interval.duration else {
                throw CounterError(
                    file: file, line: interval.line, column: interval.rxBytes >= interval.txBytes ? format.rxColumn : format.txColumn,
                    detail: "\(interval.rxBytes + interval.txBytes) bytes in \(ReportNumber.seconds(interval.duration, decimals: 3)): "
                        + "faster than the \(ReportNumber.fixed(limits.maximumBitsPerSecond / 1e9, decimals: 0)) Gbit/s a counter may show")
            }
        }
        return CounterSeries(
            file: file, format: format, timeFormat: timeFormat, startTime: first.time, rows: rows.count, intervals: intervals)
    }

    private func decrease(_ line: Int, _ column: String, _ before: Int, _ after: Int, _ previousLine: Int) -> CounterError {
        CounterError(
            file: file, line: line, column: column,
            detail: "the cumulative counter went down, from \(before) (row \(previousLine)) to \(after): a counter reset, or "
                + "per-interval counts (--per-interval)")
    }

    /// A cell as an error quotes it: escaped, and cut at 40 characters.
    private static func shown(_ cell: Substring) -> String {
        (cell.count > 40 ? String(cell.prefix(40)) + "..." : String(cell)).escapingControlCharacters
    }
}
