import Foundation
import NetsimCore
import NetsimReport

extension ReportSchema {
    /// `netsim fidelity`'s report (docs/fidelity.md): gates name its summary's errors
    /// (`summary.runMedianError`, `summary.probeMaxTailError`, `summary.transferMaxError`).
    public static let fidelity = ReportSchema(
        name: "fidelity report", sample: fidelitySample, isOpenMap: { _ in false },
        relativeKeys: ["summary.runMedianError", "summary.runMaxError", "summary.probeMaxIdleRttError", "summary.transferMaxError"],
        absoluteKeys: [], identityKeys: ["seed"])

    private static var fidelitySample: ReportTree {
        let summary = FidelityReport.Summary(
            runs: 0, runMedianError: 0, runsWithin20Percent: 0, runMaxError: 0, probeFiles: 0, probeMaxTailError: 0,
            probeMaxIdleRttError: 0, transfers: 0, transferMaxError: 0)
        let report = FidelityReport(netsimVersion: "", forcedRadio: nil, seed: 0, summary: summary, probes: [], runs: [], transfers: [])
        return try! ReportTree(json: JSONEncoder().encode(report))
    }
}
