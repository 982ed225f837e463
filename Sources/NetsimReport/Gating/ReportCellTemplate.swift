import Foundation
import NetsimCore

/// One cell of `netsim report table`: text with figures of a report in braces, as
/// `{events.delivered}/{events.sent}` or `{latencyMs.p95/1000:.1f} s`. A figure is a key path
/// (checked against the report's kind before any report is read, as a gate's is), optionally
/// divided by a number, optionally printed with a fixed number of decimals; without them it is
/// printed as the gates print numbers. A figure the report lacks (an optional section) is `-`,
/// and so is a cell whose every figure it lacks.
public struct ReportCellTemplate: Sendable, Equatable {
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public let template: String
        public let reason: String
        public var description: String { "cell '\(template)': \(reason)" }
    }

    enum Part: Sendable, Equatable {
        case text(String)
        case figure(path: [String], divisor: Double, decimals: Int?)
    }

    public let template: String
    let parts: [Part]

    /// Parses `template`; with `scope`, the keys are under that path of a `schema` report (a
    /// bench report's transport), else at its top.
    public init(_ template: String, schema: ReportSchema, scope: [String] = []) throws(ParseError) {
        self.template = template
        var parts: [Part] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw ParseError(template: template, reason: "a '{' is never closed")
            }
            parts.append(try Self.figure(String(rest[rest.index(after: open)..<close]), template: template, schema: schema, scope: scope))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty {
            guard !rest.contains("}") else { throw ParseError(template: template, reason: "a '}' closes nothing") }
            parts.append(.text(String(rest)))
        }
        self.parts = parts
    }

    /// `path[/divisor][:.Nf]`, its key checked against the schema.
    private static func figure(_ spec: String, template: String, schema: ReportSchema, scope: [String]) throws(ParseError) -> Part {
        let (expression, format) =
            spec.firstIndex(of: ":").map { (String(spec[..<$0]), String(spec[spec.index(after: $0)...])) } ?? (spec, nil)
        var decimals: Int?
        if let format {
            guard format.hasPrefix("."), format.hasSuffix("f"), let count = Int(format.dropFirst().dropLast()), (0...9).contains(count)
            else {
                throw ParseError(template: template, reason: "'\(format)' is not a format such as .1f")
            }
            decimals = count
        }
        let pieces = expression.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard pieces.count <= 2, let key = pieces.first, !key.isEmpty else {
            throw ParseError(template: template, reason: "'\(expression)' is not KEY or KEY/NUMBER")
        }
        var divisor = 1.0
        if pieces.count == 2 {
            guard let number = Double(pieces[1]), number > 0, number.isFinite else {
                throw ParseError(template: template, reason: "'\(pieces[1])' is not a positive number to divide by")
            }
            divisor = number
        }
        let path = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        do {
            _ = try schema.check(schema.expand(scope + path), key: key, expression: template)
        } catch {
            throw ParseError(template: template, reason: error.reason)
        }
        return .figure(path: path, divisor: divisor, decimals: decimals)
    }

    /// The cell for `report` (the node the keys are under): `-` alone when the report has none
    /// of its figures (a section only some reports have).
    public func render(_ report: ReportTree) -> String {
        let figures = parts.compactMap { part -> [String]? in
            guard case .figure(let path, _, _) = part else { return nil }
            return path
        }
        if !figures.isEmpty, figures.allSatisfy({ report.node(at: $0)?.number == nil }) { return "-" }
        return parts.map { part in
            switch part {
            case .text(let text): return text
            case .figure(let path, let divisor, let decimals):
                guard let value = report.node(at: path)?.number else { return "-" }
                let scaled = value / divisor
                return decimals.map { String(format: "%.\($0)f", scaled) } ?? ReportNumber.gate(scaled)
            }
        }.joined()
    }
}
