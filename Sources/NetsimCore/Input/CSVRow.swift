/// One line of a CSV file split into its cells (RFC 4180: commas, double-quoted cells with `""`
/// for a quote). The one CSV reader of the files netsim takes from elsewhere: traffic counters
/// (`netsim analyze --counters`) and measurements (`netsim profiles fit`, `netsim fidelity`).
/// A quoted cell cannot span lines: neither kind of file has one, and a quote left open is more
/// likely a broken file than a cell with a newline.
package enum CSVRow {
    /// The cells of `line`, or nil when a quote is left open or text follows a closing quote.
    package static func cells(_ line: Substring) -> [Substring]? {
        var cells: [Substring] = []
        var index = line.startIndex
        while true {
            if index < line.endIndex, line[index] == "\"" {
                var cell = ""
                var position = line.index(after: index)
                var closed = false
                while position < line.endIndex {
                    let character = line[position]
                    position = line.index(after: position)
                    if character != "\"" {
                        cell.append(character)
                    } else if position < line.endIndex, line[position] == "\"" {
                        cell.append("\"")
                        position = line.index(after: position)
                    } else {
                        closed = true
                        break
                    }
                }
                guard closed, position == line.endIndex || line[position] == "," else { return nil }
                cells.append(Substring(cell))
                index = position
            } else {
                let end = line[index...].firstIndex(of: ",") ?? line.endIndex
                cells.append(line[index..<end])
                index = end
            }
            guard index < line.endIndex else { return cells }
            index = line.index(after: index)  // past the comma
            if index == line.endIndex {
                cells.append("")
                return cells
            }
        }
    }
}
