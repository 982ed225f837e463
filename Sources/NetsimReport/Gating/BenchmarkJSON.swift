import Foundation
import NetsimCore

/// A report's figures in github-action-benchmark's `customSmallerIsBetter` shape: a JSON array
/// of `{"name", "unit", "value"}`, one per figure a baseline compares (the schema's
/// `relativeKeys` and `absoluteKeys` in each of its scopes; all are smaller-is-better), so
/// that the action charts them across commits and alerts on a jump.
public enum BenchmarkJSON {
    public struct Entry: Codable, Equatable, Sendable {
        public var name: String
        public var unit: String
        public var value: Double

        public init(name: String, unit: String, value: Double) {
            self.name = name
            self.unit = unit
            self.value = value
        }
    }

    /// The entries of `report`, in the schema's order; a figure the report lacks is left out.
    public static func entries(_ report: ReportTree, schema: ReportSchema) -> [Entry] {
        var entries: [Entry] = []
        for scope in schema.baselineScopes {
            for key in schema.relativeKeys + schema.absoluteKeys {
                let gateKey = scope + key.split(separator: ".").map(String.init)
                guard let value = report.node(at: schema.expand(gateKey))?.number else { continue }
                entries.append(Entry(name: gateKey.joined(separator: "."), unit: unit(of: key), value: value))
            }
        }
        return entries
    }

    public static func render(_ report: ReportTree, schema: ReportSchema) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(entries(report, schema: schema))
    }

    /// The unit a figure's key names, by netsim's naming rules (`latencyMs`, `wakeSeconds`,
    /// `energyJoules`, `bytes.perMinute`); a count otherwise.
    public static func unit(of key: String) -> String {
        let parts = key.split(separator: ".")
        if parts.contains(where: { $0.hasSuffix("Ms") }) { return "ms" }
        if parts.contains(where: { $0.hasSuffix("Seconds") }) { return "s" }
        if parts.contains(where: { $0.hasSuffix("Joules") }) { return "J" }
        if parts.first == "bytes" { return parts.last == "perMinute" ? "B/min" : "B" }
        return "count"
    }
}
