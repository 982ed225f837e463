import Foundation
import NetsimCore
import NetsimModel
import NetsimReport

/// The HTML report's charts, drawn as inline SVG (no scripts, no external files).
enum SVGCharts {
    static let width = 900.0
    /// Each transport's colour in every chart and legend.
    static func color(_ transport: BenchTransport) -> String {
        switch transport {
        case .rest: "#d62728"
        case .ws: "#1f77b4"
        case .grpc: "#2ca02c"
        case .quic: "#9467bd"
        }
    }

    /// One strip per device (at most `maximumRows`), the profile's outages and handover gaps
    /// hatched over the strips and its events marked.
    static func radioTimeline(_ timelines: [[RadioStateSegment]], events: [DeviceEvent], duration: Double, maximumRows: Int = 10) -> String
    {
        let rows = timelines.prefix(maximumRows).enumerated().map { RadioTimelineChart.Row(label: "device \($0)", segments: $1) }
        return RadioTimelineChart.svg(rows, events: events, duration: duration, width: width)
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
        var svg = [SVGDrawing.open(width: width, height: top + plotHeight + 58)]
        for fraction in stride(from: 0.0, through: 1.0, by: 0.25) {
            svg.append(SVGDrawing.line(left, y(fraction), left + plotWidth, y(fraction), stroke: "#ddd"))
            svg.append(SVGDrawing.text(4, y(fraction) + 4, String(format: "%.0f%%", fraction * 100), size: 10))
        }
        // One unit on the axis: seconds when it reaches 10 s, milliseconds below.
        let inSeconds = high >= 10_000
        var decade = low
        while decade <= high * 1.0001 {
            svg.append(SVGDrawing.line(x(decade), top, x(decade), top + plotHeight, stroke: "#ddd"))
            let label = inSeconds ? String(format: "%g s", decade / 1000) : String(format: "%g ms", decade)
            svg.append(SVGDrawing.text(x(decade) - 14, top + plotHeight + 14, label, size: 10))
            decade *= 10
        }
        for (transport, points) in curves where !points.isEmpty {
            let path = points.map { String(format: "%.1f,%.1f", x($0.milliseconds), y($0.fraction)) }.joined(separator: " ")
            svg.append("<polyline fill=\"none\" stroke=\"\(color(transport))\" stroke-width=\"2\" points=\"\(path)\"/>")
        }
        // p50 and p95: a guide line each, a dot where each curve crosses it, and the values in
        // a line under the chart (beside the curves they would print over each other).
        var crossings: [String] = []
        for (fraction, name) in [(0.5, "p50"), (0.95, "p95")] {
            svg.append(SVGDrawing.line(left, y(fraction), left + plotWidth, y(fraction), stroke: "#888", dashed: true))
            svg.append(SVGDrawing.text(left + plotWidth + 4, y(fraction) + 4, name, size: 10))
            var parts: [String] = []
            for (transport, points) in curves {
                guard let crossing = points.first(where: { $0.fraction >= fraction }) else { continue }
                let color = color(transport)
                svg.append(
                    String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%@\"/>", x(crossing.milliseconds), y(fraction), color))
                let value =
                    inSeconds
                    ? ReportFormatting.seconds(crossing.milliseconds / 1000) : ReportFormatting.milliseconds(crossing.milliseconds)
                parts.append("<tspan fill=\"\(color)\">\(transport.title.htmlText) \(value.htmlText)</tspan>")
            }
            if !parts.isEmpty { crossings.append("\(name): " + parts.joined(separator: ", ")) }
        }
        svg.append(SVGDrawing.text(left + plotWidth / 2 - 40, top + plotHeight + 32, "latency (log scale)", size: 11))
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
        var svg = [SVGDrawing.open(width: width, height: height)]
        for (index, bar) in bars.enumerated() {
            let y = 5 + Double(index) * (2 * barHeight + 14)
            let color = color(bar.0)
            svg.append(SVGDrawing.text(4, y + barHeight + 4, bar.0.title, size: 11))
            svg.append(SVGDrawing.rect(left, y, bar.payload / largest * plotWidth, barHeight, fill: color))
            svg.append(
                SVGDrawing.text(
                    left + bar.payload / largest * plotWidth + 4, y + 11, "\(ReportFormatting.kilobytes(bar.payload)) KB payload", size: 10)
            )
            svg.append(SVGDrawing.rect(left, y + barHeight, bar.wire / largest * plotWidth, barHeight, fill: color, opacity: 0.45))
            svg.append(
                SVGDrawing.text(
                    left + bar.wire / largest * plotWidth + 4, y + barHeight + 11, "\(ReportFormatting.kilobytes(bar.wire)) KB wire",
                    size: 10))
        }
        svg.append("</svg>")
        return svg.joined()
    }
}
