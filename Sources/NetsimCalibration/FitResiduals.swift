import Foundation
import NetsimCore

/// What a fitted radio leaves unexplained, as the comment lines `netsim profiles fit` writes
/// above the radio: each probe file played through the fitted radio (`ProbePlayer`, the path
/// `netsim fidelity` scores) beside the file, and the power fit's residuals, overall and per
/// file.
public enum FitResiduals {
    public static func probes(_ fits: [(file: ProbeFile, fit: ProbeFit)], radio: RadioStages) -> [String] {
        fits.enumerated().map { index, entry in
            let measured = ProbeAnalysis(entry.file.probes)
            let played = ProbeAnalysis(
                ProbePlayer.play(entry.file.probes, radio: radio, networkRoundTrip: measured.connectedRoundTrip, seed: UInt64(index + 1)))
            var line =
                "probes \((entry.file.file as NSString).lastPathComponent): \(entry.file.probes.count) kept, \(entry.file.leftOut) left out;"
                + " connected round trip \(ms(measured.connectedRoundTrip)) ms; tail \(seconds(measured.tail)) s measured,"
                + " \(seconds(played.tail)) s fitted"
            if let idle = measured.idleRoundTrip, let model = played.idleRoundTrip {
                line +=
                    "; idle round trip p10/p50/p90 \(ms(idle.p10))/\(ms(idle.p50))/\(ms(idle.p90)) ms measured,"
                    + " \(ms(model.p10))/\(ms(model.p50))/\(ms(model.p90)) ms fitted"
                    + " (largest error \(percent(model.largestRelativeError(against: idle))))"
            }
            if measured.awakeAfterIdleGap > 0 {
                line += "; \(measured.awakeAfterIdleGap) probe(s) after 16 s or more came back awake and are left out"
            }
            return line
        }
    }

    public static func power(
        _ fit: PowerFit, logs: [PowerLog], radio: RadioStages, conditions: [(label: String, value: String)]
    ) -> [String] {
        let selection = conditions.isEmpty ? "all intervals" : conditions.map { "\($0.label)=\($0.value)" }.joined(separator: ", ")
        var lines = [
            "power (\(selection)): \(fit.samples) intervals moving data, \(fit.idleSamples) idle;"
                + " beta \(mw(fit.beta)) mW, \(String(format: "%.1f", fit.alphaDown * 1000)) mW/Mbps down,"
                + " \(String(format: "%.1f", fit.alphaUp * 1000)) mW/Mbps up"
                + (fit.signalSamples == 0
                    ? ";" : ", \(String(format: "%.1f", fit.rsrpSlope * 1000)) mW/dB below -90 dBm (\(fit.signalSamples) with a signal);")
                + " rms residual \(mw(fit.rmsResidual)) mW;"
                + " tail \(mw(fit.tailPower)) mW (\(fit.tailPowerMeasured ? "measured" : "assumed"))",
            "energy by file, the fitted formula interval by interval against the meter:",
        ]
        for log in logs where !log.samples.isEmpty {
            let measured = log.samples.reduce(0) { $0 + ($1.measuredEnergy ?? 0) }
            let fitted = log.samples.reduce(0.0) { $0 + fit.power(of: $1) * $1.powerSeconds }
            guard measured > 0 else { continue }
            lines.append(
                "  \((log.file as NSString).lastPathComponent): \(log.samples.count) intervals, \(Int(measured.rounded())) J measured,"
                    + " \(Int(fitted.rounded())) J fitted (\(String(format: "%+.1f%%", (fitted / measured - 1) * 100)))")
        }
        return lines
    }

    static func ms(_ seconds: Double) -> String { String(Int((seconds * 1000).rounded())) }
    static func mw(_ watts: Double) -> String { String(Int((watts * 1000).rounded())) }
    static func seconds(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "none" }
    static func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
}
