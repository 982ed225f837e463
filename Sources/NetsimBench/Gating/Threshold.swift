import Foundation
import NetsimModel

/// A CI gate over the JSON report: `grpc.latencyMs.p95 > 300` fails the run when the value at
/// that key path is above 300. Operators: `<`, `<=`, `>`, `>=`, `==`, `!=`.
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

    /// The key path in the JSON report, e.g. ["grpc", "latencyMs", "p95"].
    public let path: [String]
    public let comparison: Comparison
    public let limit: Double

    public var key: String { path.joined(separator: ".") }
    public var description: String { "\(key) \(comparison.rawValue) \(Self.format(limit))" }

    /// Parses `KEY OP NUMBER`. A key naming a transport (`rest`, `ws`, `grpc`) addresses that
    /// transport's object; other keys are top-level (`durationSeconds`). The key must exist in
    /// the report's schema.
    public init(parsing expression: String) throws(ParseError) {
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
        try Self.checkSchema(path, expression: expression)
        self.path = path
        self.comparison = comparison
        self.limit = limit
    }

    /// The value at this key in a report, or nil when it has none there.
    public func value(in report: ReportTree) -> Double? {
        Self.value(at: path, in: report)
    }

    /// Whether `report` breaches this threshold: the comparison holds, or the key is missing.
    public func breach(in report: ReportTree) -> String? {
        guard let value = value(in: report) else { return "\(key): not in the report (\(self))" }
        guard comparison.holds(value, limit) else { return nil }
        return "\(key) = \(Self.format(value)), which is \(comparison.rawValue) \(Self.format(limit))"
    }

    static func value(at path: [String], in report: ReportTree) -> Double? {
        report.node(at: fullPath(path))?.number
    }

    /// A key naming a transport addresses that transport's object.
    static func fullPath(_ path: [String]) -> [String] {
        BenchTransport(rawValue: path[0]) != nil ? ["transports"] + path : path
    }

    /// Refuses key paths the report can never have, before a long run rather than after it.
    /// Maps keyed by radio state (`secondsByState`, ...) accept any state name.
    static func checkSchema(_ path: [String], expression: String) throws(ParseError) {
        var node = schemaSample
        let full = fullPath(path)
        for (index, key) in full.enumerated() {
            guard case .object(let members) = node else {
                throw ParseError(expression: expression, reason: "'\(full[..<index].joined(separator: "."))' is a number, not an object")
            }
            guard let next = members[key] ?? (index > 0 && Self.isStateMap(full[index - 1]) ? Spread([1]).asReportTree : nil) else {
                let known = members.keys.sorted().joined(separator: ", ")
                throw ParseError(expression: expression, reason: "no key '\(key)' there (known: \(known))")
            }
            node = next
        }
        guard node.number != nil else {
            throw ParseError(expression: expression, reason: "'\(path.joined(separator: "."))' is an object, not a number")
        }
    }

    static func isStateMap(_ key: String) -> Bool { key.hasSuffix("ByState") || key.hasSuffix("ByOrigin") }

    /// A report with every transport and zero figures: the schema's shape.
    static let schemaSample: ReportTree = {
        var report = BenchReport.empty
        let (transport, _) = BenchAnalysis.summarize([])
        for key in BenchTransport.allCases { report.transports[key.rawValue] = transport }
        return try! JSONDecoder().decode(ReportTree.self, from: report.json())
    }()

    /// Whole numbers as they are, large ones without decimals, small ones to four significant digits.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return abs(value) >= 1000 ? String(format: "%.0f", value) : String(format: "%.4g", value)
    }
}

extension Spread {
    var asReportTree: ReportTree {
        .object(["mean": .number(mean), "min": .number(min), "max": .number(max), "standardDeviation": .number(standardDeviation)])
    }
}

extension BenchReport {
    /// A report of nothing: the base of the schema sample.
    static let empty = BenchReport(
        netsimVersion: "", engine: "live", profile: "", seed: 0, durationSeconds: 0, drain: Drain(limitSeconds: 0, seconds: 0),
        devicesPerTransport: 0,
        workload: WorkloadSummary(
            eventMeanGapSeconds: 0, eventPayloadBytes: 0, messageIntervalSeconds: 0, messagePayloadBytes: 0, outboxLimit: 0),
        client: "", transports: [:])
}
