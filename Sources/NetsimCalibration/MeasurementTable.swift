import Foundation
import NetsimCore
import NetsimInput

/// A CSV file of measurements, read whole and checked before anything is computed from it: a
/// file from elsewhere is hostile, so its size and row count are bounded, every row must have
/// the header's number of cells, and a cell read as a number must be one. Errors name the
/// file, the line and the column (`FILE:LINE:COLUMN: column 'RTT1' ...`), so nothing is priced
/// or fitted from half a file.
///
/// The dialect is RFC 4180's (`CSVRow`, the reader the traffic counters use too): commas, double
/// quotes around a cell that holds commas or quotes (a quote inside doubled), LF or CRLF line
/// ends, a header row first; a cell may not span lines.
public struct MeasurementTable: Sendable {
    /// The largest file read: the study's biggest file is 6 MB; a phone's day of one-second
    /// counters is about 5 MB.
    public static let maximumBytes = 64 << 20
    /// The most data rows read: a week of one-second rows.
    public static let maximumRows = 604_800

    /// The file's name in messages.
    public let file: String
    public let columns: [String]
    /// The data rows' cells, in file order, and the file line each came from.
    public let rows: [[String]]
    public let lines: [Int]

    public init(file: String, text: String) throws(InputFileError) {
        self.file = file
        var records: [[String]] = []
        var recordLines: [Int] = []
        var lineNumber = 0
        // "\r\n" is one Character in Swift: split on either line end.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            if line.isEmpty { continue }
            guard let cells = CSVRow.cells(line) else {
                throw InputFileError(
                    file: file, line: lineNumber, column: 1,
                    message: "a quoted cell is not closed where its cell ends (a cell may not span lines)")
            }
            records.append(cells.map(String.init))
            recordLines.append(lineNumber)
            if records.count > Self.maximumRows + 1 {
                throw InputFileError(
                    file: file, line: lineNumber, column: 1, message: "more than \(Self.maximumRows) rows: split the file")
            }
        }
        guard let header = records.first else {
            throw InputFileError(file: file, line: 1, column: 1, message: "the file is empty: it needs a header row and data rows")
        }
        let columns = header.map { $0.trimmingCharacters(in: .whitespaces) }
        if let duplicate = columns.enumerated().first(where: { index, name in columns[..<index].contains(name) }) {
            throw InputFileError(
                file: file, line: recordLines[0], column: duplicate.offset + 1,
                message: "column '\(duplicate.element)' appears twice in the header")
        }
        guard records.count > 1 else {
            throw InputFileError(file: file, line: recordLines[0], column: 1, message: "the file has a header but no data rows")
        }
        for (record, line) in zip(records.dropFirst(), recordLines.dropFirst()) where record.count != columns.count {
            throw InputFileError(
                file: file, line: line, column: min(record.count, columns.count) + 1,
                message: "this row has \(record.count) cells; the header has \(columns.count)")
        }
        self.columns = columns
        self.rows = Array(records.dropFirst())
        self.lines = Array(recordLines.dropFirst())
    }

    /// Reads a file, refusing anything but a regular file no larger than `maximumBytes`
    /// (`ProfileLoader.readTextFile`, the one reader of files from elsewhere).
    public static func read(path: String, displayedAs name: String? = nil) throws -> MeasurementTable {
        let name = name ?? path
        let text = try ProfileLoader.readTextFile(path, displayedAs: name, maximumBytes: maximumBytes)
        return try MeasurementTable(file: name, text: text)
    }

    public func has(_ column: String) -> Bool { columns.contains(column) }

    /// The index of a column the caller needs, or an error naming the columns there are.
    public func index(of column: String) throws(InputFileError) -> Int {
        guard let index = columns.firstIndex(of: column) else {
            throw InputFileError(
                file: file, line: 1, column: 1,
                message: "no column '\(column)' (columns: \(columns.joined(separator: ", ")))")
        }
        return index
    }

    /// Refuses a header with columns that none of the readers of this format know: a file of
    /// another format, or a column misspelt, is not read as if it were this one.
    public func requireKnownColumns(_ known: Set<String>, format: String) throws(InputFileError) {
        if let unknown = columns.enumerated().first(where: { !known.contains($0.element) }) {
            throw InputFileError(
                file: file, line: 1, column: unknown.offset + 1,
                message: "unknown column '\(unknown.element)' for \(format) (known: \(known.sorted().joined(separator: ", ")))")
        }
    }

    /// Row `row`'s cell in column `column` as text.
    public func text(_ row: Int, _ column: Int) -> String {
        rows[row][column].trimmingCharacters(in: .whitespaces)
    }

    /// Row `row`'s cell in column `column` as a finite number.
    public func number(_ row: Int, _ column: Int) throws(InputFileError) -> Double {
        let cell = text(row, column)
        guard let value = Double(cell), value.isFinite else {
            throw InputFileError(
                file: file, line: lines[row], column: column + 1,
                message: "column '\(columns[column])': '\(cell.prefix(40))' is not a number")
        }
        return value
    }

    /// Row `row`'s cell as a number, or nil when the cell is empty or `nan` (a reading the
    /// logger did not have).
    public func optionalNumber(_ row: Int, _ column: Int) throws(InputFileError) -> Double? {
        let cell = text(row, column)
        if cell.isEmpty || cell.lowercased() == "nan" { return nil }
        return try number(row, column)
    }

    /// An error about row `row`, column `column`.
    public func error(_ row: Int, _ column: Int, _ message: String) -> InputFileError {
        InputFileError(file: file, line: lines[row], column: column + 1, message: "column '\(columns[column])': \(message)")
    }
}
