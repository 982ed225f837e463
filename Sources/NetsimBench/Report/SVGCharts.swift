import Foundation
import NetsimCore
import NetsimModel

/// The HTML report's charts, drawn as inline SVG (no scripts, no external files).
enum SVGCharts {
    static let width = 900.0
    static let transportColors: [BenchTransport: String] = [.rest: "#d62728", .ws: "#1f77b4", .grpc: "#2ca02c"]

    /// One strip per device (at most `maximumRows`), the profile's outages and handover gaps
    /// hatched over the strips and its events marked.
    static func radioTimeline(_ timelines: [[RadioStateSegment]], events: [DeviceEvent], duration: Double, maximumRows: Int = 10) -> String
    {
        let rows = Array(timelines.prefix(maximumRows))
        let left = 70.0
        let rowHeight = 12.0
        let plotWidth = width - left - 10
        let x = { (time: Double) in left + min(max(time, 0), duration) / max(duration, 1e-9) * plotWidth }
        let lanes = labelLanes(events.map { (x($0.at), $0.kind.rawValue) })
        let top = 18.0 + Self.labelLineHeight * Double(max(0, (lanes.max() ?? 0)))
        let height = top + Double(rows.count) * (rowHeight + 3) + 28
        var svg = [svgOpen(height: height), Self.outageHatch]
        for (index, segments) in rows.enumerated() {
            let y = top + Double(index) * (rowHeight + 3)
            svg.append(text(4, y + rowHeight - 2, "device \(index)", size: 10))
            for segment in segments where segment.end > segment.start {
                let start = x(segment.start)
                svg.append(rect(start, y, max(0.5, x(segment.end) - start), rowHeight, fill: RadioState.chartColor(named: segment.state)))
            }
        }
        // Over the strips: an outage or gap hatched (the radio state shows through), each
        // event a line in its kind's colour with its label.
        for (event, lane) in zip(events, lanes) {
            let start = x(event.at)
            if let gap = event.durationSeconds, gap > 0 {
                svg.append(
                    String(
                        format:
                            "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"url(#outage-hatch)\" stroke=\"#333\" stroke-opacity=\"0.5\"/>",
                        start, top - 4, max(1, x(event.at + gap) - start), height - top - 24))
            }
            let color = Self.eventColors[event.kind] ?? "#333"
            svg.append(line(start, top - 6, start, height - 26, stroke: color, dashed: event.kind != .set, width: 1.5))
            svg.append(text(start + 2, top - 8 - Self.labelLineHeight * Double(lane), event.kind.rawValue, size: 10, fill: color))
        }
        svg.append(timeAxis(left: left, plotWidth: plotWidth, y: height - 22, duration: duration))
        svg.append("</svg>")
        return svg.joined()
    }

    static let labelLineHeight = 11.0

    /// Each timeline event's colour: a `set` stands out from the gaps around it.
    static let eventColors: [DeviceEvent.Kind: String] = [
        .outage: "#333333", .handover: "#7b3294", .set: "#0571b0", .natExpiry: "#e66101",
    ]

    /// Diagonal lines that let the radio state show through an outage.
    static let outageHatch =
        "<defs><pattern id=\"outage-hatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" patternTransform=\"rotate(45)\">"
        + "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#000\" stroke-width=\"2\" stroke-opacity=\"0.45\"/></pattern></defs>"

    /// The line (0 nearest the strips) each event label goes on, so that labels of events close
    /// together do not print over each other: the lowest line whose last label ends before this
    /// one starts, at most four lines (past that, the line that frees up first).
    static func labelLanes(_ labels: [(x: Double, text: String)]) -> [Int] {
        var lineEnds: [Double] = []
        return labels.map { label in
            // About 5.5 px a character at 10 px, and a little space after.
            let end = label.x + 2 + Double(label.text.count) * 5.5 + 4
            let line: Int
            if let free = lineEnds.firstIndex(where: { $0 <= label.x }) {
                line = free
            } else if lineEnds.count < 4 {
                line = lineEnds.count
                lineEnds.append(0)
            } else {
                line = lineEnds.indices.min { lineEnds[$0] < lineEnds[$1] } ?? 0
            }
            lineEnds[line] = end
            return line
        }
    }

    /// A legend of the states that occur.
    static func stateLegend(_ states: Set<String>) -> String {
        states.sorted().map { state in
            "<span class=\"key\"><span class=\"swatch\" style=\"background:\(RadioState.chartColor(named: state))\"></span>\(escape(state))</span>"
        }.joined(separator: " ")
    }

    /// Latency CDFs on a logarithmic time axis, one line per transport.
    static func latencyCDF(_ curves: [(BenchTransport, [CDFPoint])]) -> String {
        let left = 50.0
        let top = 10.0
        let plotWidth = width - left - 40
        let plotHeight = 220.0
        let values = curves.flatMap { $0.1.map(\.milliseconds) }.filter { $0 > 0 }
        guard let smallest = values.min(), let largest = values.max() else { return "<p>No samples.</p>" }
        let low = pow(10, floor(log10(smallest)))
        let high = pow(10, ceil(log10(max(largest, low * 10))))
        let x = { (ms: Double) in left + (log10(max(ms, low)) - log10(low)) / (log10(high) - log10(low)) * plotWidth }
        let y = { (fraction: Double) in top + (1 - fraction) * plotHeight }
        var svg = [svgOpen(height: top + plotHeight + 58)]
        for fraction in stride(from: 0.0, through: 1.0, by: 0.25) {
            svg.append(line(left, y(fraction), left + plotWidth, y(fraction), stroke: "#ddd"))
            svg.append(text(4, y(fraction) + 4, String(format: "%.0f%%", fraction * 100), size: 10))
        }
        // One unit on the axis: seconds when it reaches 10 s, milliseconds below.
        let inSeconds = high >= 10_000
        var decade = low
        while decade <= high * 1.0001 {
            svg.append(line(x(decade), top, x(decade), top + plotHeight, stroke: "#ddd"))
            let label = inSeconds ? String(format: "%g s", decade / 1000) : String(format: "%g ms", decade)
            svg.append(text(x(decade) - 14, top + plotHeight + 14, label, size: 10))
            decade *= 10
        }
        for (transport, points) in curves where !points.isEmpty {
            let path = points.map { String(format: "%.1f,%.1f", x($0.milliseconds), y($0.fraction)) }.joined(separator: " ")
            svg.append("<polyline fill=\"none\" stroke=\"\(transportColors[transport]!)\" stroke-width=\"2\" points=\"\(path)\"/>")
        }
        // p50 and p95: a guide line each, a dot where each curve crosses it, and the values in
        // a line under the chart (beside the curves they would print over each other).
        var crossings: [String] = []
        for (fraction, name) in [(0.5, "p50"), (0.95, "p95")] {
            svg.append(line(left, y(fraction), left + plotWidth, y(fraction), stroke: "#888", dashed: true))
            svg.append(text(left + plotWidth + 4, y(fraction) + 4, name, size: 10))
            var parts: [String] = []
            for (transport, points) in curves {
                guard let crossing = points.first(where: { $0.fraction >= fraction }) else { continue }
                let color = transportColors[transport]!
                svg.append(
                    String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%@\"/>", x(crossing.milliseconds), y(fraction), color))
                let value =
                    inSeconds
                    ? ReportFormatting.seconds(crossing.milliseconds / 1000) : ReportFormatting.milliseconds(crossing.milliseconds)
                parts.append("<tspan fill=\"\(color)\">\(escape(transport.title)) \(escape(value))</tspan>")
            }
            if !parts.isEmpty { crossings.append("\(name): " + parts.joined(separator: ", ")) }
        }
        svg.append(text(left + plotWidth / 2 - 40, top + plotHeight + 32, "latency (log scale)", size: 11))
        svg.append(
            String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", left, top + plotHeight + 50) + crossings.joined(separator: "; ")
                + "</text>")
        svg.append("</svg>")
        return svg.joined()
    }

    /// Bytes per minute per device, payload and estimated wire, one pair of bars per transport.
    static func bytesPerMinute(_ bars: [(BenchTransport, payload: Double, wire: Double)]) -> String {
        let left = 110.0
        let barHeight = 14.0
        let plotWidth = width - left - 90
        let largest = max(bars.map(\.wire).max() ?? 0, bars.map(\.payload).max() ?? 0, 1)
        let height = Double(bars.count) * (2 * barHeight + 14) + 10
        var svg = [svgOpen(height: height)]
        for (index, bar) in bars.enumerated() {
            let y = 5 + Double(index) * (2 * barHeight + 14)
            let color = transportColors[bar.0]!
            svg.append(text(4, y + barHeight + 4, bar.0.title, size: 11))
            svg.append(rect(left, y, bar.payload / largest * plotWidth, barHeight, fill: color))
            svg.append(
                text(
                    left + bar.payload / largest * plotWidth + 4, y + 11, "\(ReportFormatting.kilobytes(bar.payload)) KB payload", size: 10)
            )
            svg.append(rect(left, y + barHeight, bar.wire / largest * plotWidth, barHeight, fill: color, opacity: 0.45))
            svg.append(
                text(
                    left + bar.wire / largest * plotWidth + 4, y + barHeight + 11, "\(ReportFormatting.kilobytes(bar.wire)) KB wire",
                    size: 10))
        }
        svg.append("</svg>")
        return svg.joined()
    }

    static func timeAxis(left: Double, plotWidth: Double, y: Double, duration: Double) -> String {
        SVGTimeAxis.svg(from: 0, to: duration, left: left, plotWidth: plotWidth, y: y, style: .marks) { tick, step in
            SVGTimeAxis.label(tick, step: step, span: duration)
        }
    }

    static func svgOpen(height: Double) -> String {
        String(
            format: "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">", width, height,
            width, height)
    }

    static func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double, fill: String, opacity: Double = 1) -> String {
        String(
            format: "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%@\" fill-opacity=\"%.2f\"/>", x, y, width, height,
            fill, opacity)
    }

    static func line(
        _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, dashed: Bool = false, width: Double = 1
    ) -> String {
        String(
            format: "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%@\" stroke-width=\"%.1f\"%@/>", x1, y1, x2, y2, stroke,
            width, dashed ? " stroke-dasharray=\"3,3\"" : "")
    }

    static func text(_ x: Double, _ y: Double, _ content: String, size: Double, fill: String = "#000") -> String {
        String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" fill=\"%@\">", x, y, size, fill) + escape(content) + "</text>"
    }

    static func escape(_ text: String) -> String { text.htmlEscaped }
}
