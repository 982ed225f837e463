import Foundation

/// `--baseline FILE.json --max-regression PCT`: compares this run's report with an earlier one
/// of the same kind, in each of the schema's scopes (a bench report's transports), on the
/// figures where lower is better. A figure more than PCT percent above its baseline is a
/// regression; so is any growth of a figure that must not grow (losses, resets).
public enum BaselineComparison {
    /// The regressions, one line each; empty when there are none. Also notes when the runs
    /// differ in what was run (`ReportSchema.identityKeys`), which makes them hard to compare.
    public static func compare(
        current: ReportTree, baseline: ReportTree, maxRegressionPercent: Double, schema: ReportSchema
    ) -> (regressions: [String], notes: [String]) {
        var regressions: [String] = []
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
                    if now > before { regressions.append("\(name): \(ReportNumber.gate(now)), baseline \(ReportNumber.gate(before))") }
                } else if before > 0, now > before * (1 + maxRegressionPercent / 100) {
                    let change = (now / before - 1) * 100
                    regressions.append(
                        "\(name): \(ReportNumber.gate(now)), baseline \(ReportNumber.gate(before)) "
                            + "(+\(String(format: "%.1f", change))%, more than \(ReportNumber.gate(maxRegressionPercent))%)")
                }
            }
        }
        return (regressions, notes)
    }
}
