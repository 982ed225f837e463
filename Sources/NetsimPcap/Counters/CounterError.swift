import NetsimCore

/// Why a traffic counter file cannot be priced, and where: the file, the row (the file's line,
/// the header being line 1) and the column. A counter file is read whole before anything is
/// priced, so an error means nothing was priced from it.
public struct CounterError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// The file's 1-based line; nil for the file as a whole.
    public var line: Int?
    /// The column's name as the header has it; nil for the row as a whole.
    public var column: String?
    public var detail: String

    public init(file: String, line: Int? = nil, column: String? = nil, detail: String) {
        self.file = file
        self.line = line
        self.column = column
        self.detail = detail
    }

    /// `counters.csv: row 14, column 'mobileRx': ...`; names from the file escaped.
    public var description: String {
        var location = [file.escapingControlCharacters]
        if let line { location.append(line == 1 ? "row 1 (the header)" : "row \(line)") }
        if let column { location.append("column '\(column.escapingControlCharacters)'") }
        return location.joined(separator: ", ") + ": " + detail
    }
}
