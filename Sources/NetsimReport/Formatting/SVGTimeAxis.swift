import Foundation
import NetsimCore

/// The time axis under every report chart drawn over time (`bench`'s radio timelines,
/// `analyze`'s state lanes): one choice of tick step and one drawing, so the two reports mark
/// time alike.
public enum SVGTimeAxis {
    /// The steps a time axis takes from a second up: round in seconds and in minutes.
    private static let stepsFromOneSecond: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600]

    /// The smallest round step giving at most `maximumTicks` intervals over `span` seconds:
    /// 1, 2 or 5 times a power of ten below a second, then 1, 2, 5, 10, 15 and 30 s, 1, 2, 5,
    /// 10 and 30 min and an hour (the largest; a longer span gets more ticks).
    public static func step(forSpan span: Double, maximumTicks: Double = 12) -> Double {
        guard span > 0, span.isFinite else { return 1 }
        if span / 1 <= maximumTicks {
            let rough = span / maximumTicks
            let magnitude = pow(10, floor(log10(rough)))
            for multiple in [1.0, 2, 5] where rough <= multiple * magnitude { return multiple * magnitude }
            return 10 * magnitude
        }
        return stepsFromOneSecond.first { span / $0 <= maximumTicks } ?? stepsFromOneSecond[stepsFromOneSecond.count - 1]
    }

    /// The multiples of `step` from `start` to `end`, both included. Each is computed from its
    /// index (no accumulated rounding), and never -0.
    public static func ticks(from start: Double, to end: Double, step: Double) -> [Double] {
        guard step > 0, end >= start else { return [] }
        let first = (start / step).rounded(.up)
        let last = (end / step + 1e-9).rounded(.down)
        guard first <= last else { return [] }
        return stride(from: first, through: last, by: 1).map { $0 * step + 0 }
    }

    /// A tick's label in the one unit of its whole axis (never "90 s" beside "2 min"): seconds
    /// up to a 15-minute span, minutes up to 3 hours, hours beyond; as many decimals as the
    /// step needs.
    public static func label(_ tick: Double, step: Double, span: Double) -> String {
        let (unit, scale): (String, Double) = span <= 900 ? ("s", 1) : span <= 3 * 3600 ? ("min", 60) : ("h", 3600)
        let scaledStep = step / scale
        let decimals =
            (0...3).first { digits in
                let shifted = scaledStep * pow(10, Double(digits))
                return abs(shifted - shifted.rounded()) < 1e-6
            } ?? 3
        return "\(ReportNumber.fixed(tick / scale, decimals: decimals)) \(unit)"
    }

    /// How the ticks are drawn.
    public enum Style: Sendable {
        /// A baseline with short tick marks below it (a chart of strips).
        case marks
        /// Light grid lines from `gridTop` down through the plot, no baseline (a chart of lanes).
        case grid(top: Double)
    }

    /// The axis for times `start` to `end` drawn from `left` over `plotWidth` pixels at height
    /// `y`, each tick labelled by `label(tick, step)` centred under it.
    public static func svg(
        from start: Double, to end: Double, left: Double, plotWidth: Double, y: Double, style: Style,
        label: (_ tick: Double, _ step: Double) -> String
    ) -> String {
        let span = max(end - start, 1e-9)
        let step = step(forSpan: end - start)
        func x(_ time: Double) -> Double { left + (time - start) / span * plotWidth }
        var parts: [String] = []
        if case .marks = style {
            parts.append(line(left, y, left + plotWidth, y, stroke: "#333"))
        }
        for tick in ticks(from: start, to: end, step: step) {
            switch style {
            case .marks: parts.append(line(x(tick), y, x(tick), y + 4, stroke: "#333"))
            case .grid(let top): parts.append(line(x(tick), top, x(tick), y + 4, stroke: "#ccc"))
            }
            parts.append(
                String(format: "<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" text-anchor=\"middle\">", x(tick), y + 16)
                    + label(tick, step).htmlEscaped + "</text>")
        }
        return parts.joined()
    }

    private static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String) -> String {
        String(format: "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%@\"/>", x1, y1, x2, y2, stroke)
    }
}
