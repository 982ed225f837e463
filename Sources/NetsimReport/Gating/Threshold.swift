import Foundation
import NetsimCore

/// A CI gate over a JSON report: `grpc.latencyMs.p95 > 300` or `radio.promotions > 1` fails the
/// run when the value at that key path holds the comparison. Operators: `<`, `<=`, `>`, `>=`,
/// `==`, `!=`. The same gates, read the same way, for every report (`ReportSchema`).
public struct Threshold: Sendable, Equatable, CustomStringConvertible {
    public enum Comparison: String, Sendable, CaseIterable {
        // Two-character operators first, so `<=` is not read as `<`.
        case atMost = "<="
        case atLeast = ">="
        case equal = "=="
        case notEqual = "!="
        case below = "<"
        case above = ">"

        func holds(_ value: Double, _ limit: Double) -> Bool {
            switch self {
            case .atMost: value <= limit
            case .atLeast: value >= limit
            case .equal: value == limit
            case .notEqual: value != limit
            case .below: value < limit
            case .above: value > limit
            }
        }
    }

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let expression: String
        public let reason: String
        public var description: String { "'\(expression)': \(reason)" }
    }

    /// The key path as written, e.g. ["grpc", "latencyMs", "p95"].
    public let path: [String]
    /// The path in the report itself (`ReportSchema.expand`).
    let reportPath: [String]
    /// The map that lists only what happened (per radio state, per event kind) this figure is
    /// a member of, if it is: a member missing there is zero, not a missing figure.
    let openMapPath: [String]?
    public let comparison: Comparison
    public let limit: Double

    public var key: String { path.joined(separator: ".") }
    public var description: String { "\(key) \(comparison.rawValue) \(ReportNumber.gate(limit))" }

    /// Parses `KEY OP NUMBER`; the key must be one `schema`'s reports can have.
    public init(parsing expression: String, schema: ReportSchema) throws(ParseError) {
        let text = expression.trimmingCharacters(in: .whitespaces)
        var found: (Comparison, Range<String.Index>)?
        for comparison in Comparison.allCases {
            if let range = text.range(of: comparison.rawValue) {
                found = (comparison, range)
                break
            }
        }
        guard let (comparison, range) = found else {
            throw ParseError(expression: expression, reason: "no comparison; write KEY OP NUMBER with OP one of < <= > >= == !=")
        }
        let key = text[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
        let number = text[range.upperBound...].trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty else { throw ParseError(expression: expression, reason: "no key before '\(comparison.rawValue)'") }
        guard let limit = Double(number), limit.isFinite else {
            throw ParseError(expression: expression, reason: "'\(number)' is not a number")
        }
        let path = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard path.allSatisfy({ !$0.isEmpty }) else { throw ParseError(expression: expression, reason: "'\(key)' has an empty key part") }
        self.path = path
        self.reportPath = schema.expand(path)
        self.openMapPath = try schema.check(reportPath, key: key, expression: expression)
        self.comparison = comparison
        self.limit = limit
    }

    /// The value at this key in a report, or nil when it has none there.
    public func value(in report: ReportTree) -> Double? {
        if let value = report.node(at: reportPath)?.number { return value }
        // A state or event kind that never happened is absent from its map: zero.
        guard let openMapPath, report.node(at: openMapPath) != nil else { return nil }
        return 0
    }

    /// Whether `report` breaches this threshold: the comparison holds, or the key is missing.
    public func breach(in report: ReportTree) -> String? {
        guard let value = value(in: report) else { return "\(key): not in the report (\(self))" }
        guard comparison.holds(value, limit) else { return nil }
        return "\(key) = \(ReportNumber.gate(value)), which is \(comparison.rawValue) \(ReportNumber.gate(limit))"
    }
}

/// What one kind of report lets gates and baselines address: a sample report with every key
/// (so that a gate naming a key no report can have is refused before a long run, not after
/// it), how a gate's short key maps onto the report, and the figures a baseline compares.
public struct ReportSchema: Sendable {
    /// The report as messages name it, e.g. "bench report".
    public let name: String
    /// A report with every key there is (values do not matter).
    let sample: ReportTree
    /// The key path in the report for a key as a gate writes it (a bench report's `grpc.` is
    /// under `transports`).
    let expand: @Sendable ([String]) -> [String]
    /// The key as a gate writes it for a path in the report: `expand`'s inverse.
    public let gateKey: @Sendable ([String]) -> [String]
    /// Whether the map at this key holds only what happened, keyed by name (radio states,
    /// promotion origins, event kinds): any member name is accepted, and an absent one is zero.
    let isOpenMap: @Sendable (String) -> Bool
    /// A sample member of an open map, for keys below the member (a bench `Spread`'s `mean`).
    let openMapMember: ReportTree
    /// For `--baseline`: where the compared figures are (a bench report's per-transport
    /// objects; the top level for others), as gate keys.
    public let baselineScopes: [[String]]
    /// Figures where lower is better, compared relatively.
    public let relativeKeys: [String]
    /// Figures that must not grow at all.
    public let absoluteKeys: [String]
    /// Top-level keys that say what was run: a baseline that differs in them is noted.
    public let identityKeys: [String]

    public init(
        name: String, sample: ReportTree, expand: @escaping @Sendable ([String]) -> [String] = { $0 },
        gateKey: @escaping @Sendable ([String]) -> [String] = { $0 },
        isOpenMap: @escaping @Sendable (String) -> Bool, openMapMember: ReportTree = .number(0), baselineScopes: [[String]] = [[]],
        relativeKeys: [String], absoluteKeys: [String], identityKeys: [String]
    ) {
        self.name = name
        self.sample = sample
        self.expand = expand
        self.gateKey = gateKey
        self.isOpenMap = isOpenMap
        self.openMapMember = openMapMember
        self.baselineScopes = baselineScopes
        self.relativeKeys = relativeKeys
        self.absoluteKeys = absoluteKeys
        self.identityKeys = identityKeys
    }

    /// Refuses key paths the report can never have; returns the path of the open map the
    /// figure is a member of, if any.
    func check(_ path: [String], key: String, expression: String) throws(Threshold.ParseError) -> [String]? {
        var node = sample
        var openMapPath: [String]?
        for (index, member) in path.enumerated() {
            guard case .object(let members) = node else {
                throw Threshold.ParseError(
                    expression: expression, reason: "'\(path[..<index].joined(separator: "."))' is a number, not an object")
            }
            let inOpenMap = index > 0 && isOpenMap(path[index - 1])
            if inOpenMap { openMapPath = Array(path[..<index]) }
            guard let next = members[member] ?? (inOpenMap ? openMapMember : nil) else {
                let known = members.keys.sorted()
                throw Threshold.ParseError(
                    expression: expression,
                    reason: "no key '\(member)' in a \(name) there\(NameSuggestion.hint(for: member, among: known)) "
                        + "(known: \(known.joined(separator: ", ")))")
            }
            node = next
        }
        guard node.number != nil else {
            throw Threshold.ParseError(expression: expression, reason: "'\(key)' is an object, not a number")
        }
        return openMapPath
    }

    /// A report's JSON as a tree, if it is one of this schema's (it has every identity key).
    public func read(_ json: Data) -> ReportTree? {
        guard let tree = try? ReportTree(json: json), identityKeys.allSatisfy({ tree[$0] != nil }) else {
            return nil
        }
        return tree
    }
}
