import Foundation
import NetsimCore

/// The figures of a run's parts (their counts, byte sums, seconds, histogram buckets), checked
/// before a merge adds them: a part is a file from elsewhere, and what it says is added,
/// multiplied (the wire estimate) and averaged across every part.
///
/// Every number under a part's figure keys must be 0 or more, and the numbers of one key (the
/// same field of every device, of every part: `fleets.grpc.devices[].share.events.sent`) must
/// add up to at most `largestTotal`, the largest whole number a `Double` holds exactly, which
/// the reports' totals and means are computed in. The sums are checked as they are made, so a
/// part with a count of 2^63 - 1, 1e308 or a negative byte count is refused, naming its file
/// and the key, before any arithmetic of the merge sees it; what passes keeps every sum and
/// product the merge makes (a few keys added, times at most a few hundred header bytes)
/// below `Int.max`.
struct ShardFigures {
    /// 2^53.
    static let largestTotal = 9_007_199_254_740_992.0

    /// The run's total of each key so far (device indices and numbered keys left out).
    private var totals: [String: Double] = [:]

    /// The first number anywhere in a part beyond what any of its fields holds (a count, a
    /// seed, a time: within ±2^64), and its key; nil when there is none. Such a number would
    /// fail the part's decoding with no key named.
    static func beyondAnyCount(_ tree: ReportTree, path: String = "") -> (String, Double)? {
        switch tree {
        case .number(let value): return abs(value) > 18_446_744_073_709_551_616.0 ? (path.isEmpty ? "the part" : path, value) : nil
        case .array(let items):
            for (index, item) in items.enumerated() {
                if let found = beyondAnyCount(item, path: "\(path)[\(index)]") { return found }
            }
            return nil
        case .object(let members):
            for key in members.keys.sorted() {
                if let found = beyondAnyCount(members[key]!, path: path.isEmpty ? key : "\(path).\(key)") { return found }
            }
            return nil
        case .string, .null: return nil
        }
    }

    /// Adds the figures of one part's JSON under `keys` (its top-level figure keys), or throws
    /// the first that is out of range, naming `source` and the key.
    mutating func add(_ tree: ReportTree, keys: Set<String>, source: String) throws(ShardMergeProblem) {
        guard case .object(let top) = tree else { return }
        for (key, value) in top where keys.contains(key) {
            try add(value, path: key, total: key, source: source)
        }
    }

    private mutating func add(_ tree: ReportTree, path: String, total: String, source: String) throws(ShardMergeProblem) {
        switch tree {
        case .number(let value):
            guard value >= 0 else {
                throw .outOfRange(source, key: path, reason: "\(value) is below zero: a part's figures are counts, sums and times")
            }
            let sum = (totals[total] ?? 0) + value
            guard sum <= Self.largestTotal else {
                throw .outOfRange(
                    source, key: path,
                    reason:
                        "\(value) takes the run's total of \(total) to \(sum), beyond 2^53 (the largest whole number the reports hold exactly)"
                )
            }
            totals[total] = sum
        case .string(let text):
            // Infinities and NaN are written as strings (`ShardParts.json`); in a figure only a
            // radio stage's endless timer may be infinite.
            if text == "NaN" || text == "-Infinity" {
                throw .outOfRange(source, key: path, reason: "\(text) is not a figure")
            }
        case .array(let items):
            for (index, item) in items.enumerated() {
                try add(item, path: "\(path)[\(index)]", total: total + "[]", source: source)
            }
        case .object(let members):
            for (key, value) in members {
                // Numbered keys (seconds, event kinds by number) add up as one.
                let numbered = !key.isEmpty && key.allSatisfy(\.isNumber)
                try add(value, path: "\(path).\(key)", total: total + (numbered ? ".#" : ".\(key)"), source: source)
            }
        case .null: break
        }
    }
}
