import NetsimCore

/// Rows of cells laid out in columns for terminal output: text columns left-aligned, numeric
/// columns (those listed in `rightAligned`) right-aligned so their digits line up. A row shorter
/// than the header lets its last cell run on (a message in place of the missing cells) without
/// widening that column for everyone.
public struct TextTable: Sendable {
    public var header: [String]
    public var rightAligned: Set<Int>
    public var rows: [[String]] = []

    public init(header: [String], rightAligned: Set<Int> = [], rows: [[String]] = []) {
        self.header = header
        self.rightAligned = rightAligned
        self.rows = rows
    }

    public func rendered(indent: String = "  ") -> String {
        let all = [header] + rows
        var widths = [Int](repeating: 0, count: header.count)
        for row in all {
            let measured = row.count < header.count ? row.dropLast() : row[...]
            for (column, cell) in measured.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        return all.map { row in
            let cells = row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: max(0, widths[column] - cell.count))
                return rightAligned.contains(column) ? padding + cell : cell + padding
            }
            return indent + cells.joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n")
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
