import Foundation
import NetsimCore

/// `--baseline FILE.json --max-regression PCT`: compares this run's report with an earlier one
/// of the same kind, in each of the schema's scopes (a bench report's transports), on the
/// figures where lower is better. A figure more than PCT percent above its baseline is a
/// regression; so is any growth of a figure that must not grow (losses, resets).
public enum BaselineComparison {
    /// A figure that got worse than a baseline allows.
    public struct Regression: Sendable, Equatable, CustomStringConvertible {
        /// The figure as a gate names it (`grpc.latencyMs.p95`, `radio.promotions`).
        public var key: String
        public var now: Double
        public var before: Double
        /// The largest increase allowed, in percent; nil for a figure that must not grow.
        public var allowedPercent: Double?

        public var description: String {
            guard let allowedPercent else { return "\(key): \(ReportNumber.gate(now)), baseline \(ReportNumber.gate(before))" }
            let change = (now / before - 1) * 100
            return "\(key): \(ReportNumber.gate(now)), baseline \(ReportNumber.gate(before)) "
                + "(+\(String(format: "%.1f", change))%, more than \(ReportNumber.gate(allowedPercent))%)"
        }
    }

    /// The regressions, in the schema's order; empty when there are none. Also notes when the
    /// runs differ in what was run (`ReportSchema.identityKeys`), which makes them hard to compare.
    public static func compare(
        current: ReportTree, baseline: ReportTree, maxRegressionPercent: Double, schema: ReportSchema
    ) -> (regressions: [Regression], notes: [String]) {
        var regressions: [Regression] = []
        var notes: [String] = []
        for key in schema.identityKeys {
            let now = current[key]?.description
            let before = baseline[key]?.description
            if now != before { notes.append("the baseline's \(key) is \(before ?? "missing"), this run's \(now ?? "missing")") }
        }
        for scope in schema.baselineScopes {
            for key in schema.relativeKeys + schema.absoluteKeys {
                let gateKey = scope + key.split(separator: ".").map(String.init)
                let path = schema.expand(gateKey)
                guard let now = current.node(at: path)?.number, let before = baseline.node(at: path)?.number else { continue }
                let name = gateKey.joined(separator: ".")
                if schema.absoluteKeys.contains(key) {
                    if now > before { regressions.append(Regression(key: name, now: now, before: before, allowedPercent: nil)) }
                } else if before > 0, now > before * (1 + maxRegressionPercent / 100) {
                    regressions.append(Regression(key: name, now: now, before: before, allowedPercent: maxRegressionPercent))
                }
            }
        }
        return (regressions, notes)
    }
}
