import Foundation

/// Two reports of one kind side by side: every numeric figure of either, its change, and
/// whether it regressed as `--baseline` judges.
public struct ReportComparison {
    /// GitHub's limit on a pull-request comment's body, in characters.
    public static let pullRequestCommentLimit = 65_536

    public struct Row: Encodable {
        public var key: String
        public var old: Double?
        public var new: Double?
        public var regression: Bool
    }

    public let old: SavedReport
    public let new: SavedReport
    public let maxRegressionPercent: Double
    public let rows: [Row]
    public let unchanged: Int
    public let notes: [String]

    public init(old: SavedReport, new: SavedReport, maxRegressionPercent: Double) {
        self.old = old
        self.new = new
        self.maxRegressionPercent = maxRegressionPercent
        let schema = new.schema
        let comparison = BaselineComparison.compare(
            current: new.tree, baseline: old.tree, maxRegressionPercent: maxRegressionPercent, schema: schema)
        let regressed = Set(comparison.regressions.map(\.key))
        let before = Self.figures(old.tree, schema)
        let after = Self.figures(new.tree, schema)
        var rows: [Row] = []
        var unchanged = 0
        for key in Set(before.keys).union(after.keys).sorted() {
            guard before[key] != after[key] else {
                unchanged += 1
                continue
            }
            rows.append(Row(key: key, old: before[key], new: after[key], regression: regressed.contains(key)))
        }
        // Regressions first, then the rest in key order.
        self.rows = rows.filter(\.regression) + rows.filter { !$0.regression }
        self.unchanged = unchanged
        self.notes = comparison.notes
    }

    /// Every number in the report by the key a gate would name it with; lists (events,
    /// timelines) are not figures.
    public static func figures(_ tree: ReportTree, _ schema: ReportSchema) -> [String: Double] {
        var figures: [String: Double] = [:]
        func walk(_ node: ReportTree, _ path: [String]) {
            switch node {
            case .number(let value): figures[schema.gateKey(path).joined(separator: ".")] = value
            case .object(let members): for (key, member) in members { walk(member, path + [key]) }
            case .array, .string, .null: break
            }
        }
        walk(tree, [])
        return figures
    }

    public func markdown(limit: Int) -> String {
        let regressions = rows.count { $0.regression }
        var head = "## netsim report compare: \(new.schema.name)s\n\n"
        // Everything from the reports (their keys, profile names, notes on them) and their paths
        // is escaped: the table goes into a CI job's summary.
        head +=
            "Old: \(old.path.markdownCode) (\(Self.identity(old.tree)))  \nNew: \(new.path.markdownCode) (\(Self.identity(new.tree)))\n\n"
        for note in notes { head += "- note: \(note.markdownText)\n" }
        if !notes.isEmpty { head += "\n" }
        head +=
            "\(rows.count) figure(s) changed, \(unchanged) unchanged; \(regressions) regression(s) "
            + "(lower is better and grew more than \(ReportNumber.gate(maxRegressionPercent))%, or a count that must not grow grew).\n\n"
        head += "| figure | old | new | change | |\n|---|---:|---:|---:|---|\n"
        var body = ""
        var shown = 0
        for row in rows {
            let line =
                "| \(row.key.markdownCode) | \(row.old.map(ReportNumber.gate) ?? "-") | \(row.new.map(ReportNumber.gate) ?? "-") | "
                + "\(Self.change(row)) | \(row.regression ? "**regression**" : "") |\n"
            // Room for the closing line.
            guard head.utf8.count + body.utf8.count + line.utf8.count + 200 <= limit else { break }
            body += line
            shown += 1
        }
        let tail = shown < rows.count ? "\n\(rows.count - shown) more changed figure(s) not shown here: `--format json` lists all.\n" : ""
        return head + body + tail
    }

    public func json() throws -> Data {
        struct Document: Encodable {
            var kind: String
            var old: String
            var new: String
            var maxRegressionPercent: Double
            var unchanged: Int
            var notes: [String]
            var changed: [Row]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(
            Document(
                kind: new.schema.name, old: old.path, new: new.path, maxRegressionPercent: maxRegressionPercent, unchanged: unchanged,
                notes: notes, changed: rows))
    }

    private static func change(_ row: Row) -> String {
        guard let old = row.old, let new = row.new else { return row.old == nil ? "new" : "gone" }
        guard old != 0 else { return "+" + ReportNumber.gate(new) }
        let percent = (new / old - 1) * 100
        return (percent >= 0 ? "+" : "") + String(format: "%.1f%%", percent)
    }

    private static func identity(_ tree: ReportTree) -> String {
        ["profile", "seed", "durationSeconds"].compactMap { key in tree[key].map { "\(key) \($0)".markdownText } }.joined(separator: ", ")
    }
}
