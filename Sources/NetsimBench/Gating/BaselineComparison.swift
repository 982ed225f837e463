import Foundation
import NetsimModel

/// `--baseline FILE.json --max-regression PCT`: compares this run's report with an earlier one,
/// transport by transport, on the figures where lower is better. A figure more than PCT percent
/// above its baseline is a regression; so is any loss where the baseline lost nothing.
public enum BaselineComparison {
    /// Figures compared relatively (lower is better).
    public static let relativeKeys = [
        "latencyMs.p95", "latencyMs.p99", "uplinkLatencyMs.p95", "bytes.perMinute", "bytes.wire.perMinute",
        "perDevice.wakeSeconds.mean", "perDevice.energyJoules.mean", "reconnects", "recoverySeconds.max",
    ]
    /// Figures that must not grow at all.
    public static let absoluteKeys = ["events.lost", "events.duplicated", "messages.lost"]

    /// The regressions, one line each; empty when there are none. Also warns (in the returned
    /// notes) when the runs differ in profile, duration or fleet size, which makes them hard to compare.
    public static func compare(
        current: ReportTree, baseline: ReportTree, maxRegressionPercent: Double
    ) -> (regressions: [String], notes: [String]) {
        var regressions: [String] = []
        var notes: [String] = []
        for key in ["profile", "durationSeconds", "devicesPerTransport", "seed"] {
            let now = current[key]?.description
            let before = baseline[key]?.description
            if now != before { notes.append("the baseline's \(key) is \(before ?? "missing"), this run's \(now ?? "missing")") }
        }
        for transport in BenchTransport.allCases {
            for key in relativeKeys + absoluteKeys {
                let path = [transport.rawValue] + key.split(separator: ".").map(String.init)
                guard let now = Threshold.value(at: path, in: current), let before = Threshold.value(at: path, in: baseline) else {
                    continue
                }
                let name = "\(transport.rawValue).\(key)"
                if absoluteKeys.contains(key) {
                    if now > before { regressions.append("\(name): \(Threshold.format(now)), baseline \(Threshold.format(before))") }
                } else if before > 0, now > before * (1 + maxRegressionPercent / 100) {
                    let change = (now / before - 1) * 100
                    regressions.append(
                        "\(name): \(Threshold.format(now)), baseline \(Threshold.format(before)) "
                            + "(+\(String(format: "%.1f", change))%, more than \(Threshold.format(maxRegressionPercent))%)")
                }
            }
        }
        return (regressions, notes)
    }
}
