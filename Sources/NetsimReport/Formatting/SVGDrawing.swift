import Foundation
import NetsimCore

/// The pieces of netsim's inline SVG charts (no scripts, no external files): every text escaped,
/// every number formatted with two decimals at most.
public enum SVGDrawing {
    public static func open(width: Double, height: Double) -> String {
        String(
            format: "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">", width, height,
            width, height)
    }

    public static func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double, fill: String, opacity: Double = 1) -> String {
        String(
            format: "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%@\" fill-opacity=\"%.2f\"/>", x, y, width, height,
            fill, opacity)
    }

    public static func line(
        _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, dashed: Bool = false, width: Double = 1
    ) -> String {
        String(
            format: "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%@\" stroke-width=\"%.1f\"%@/>", x1, y1, x2, y2, stroke,
            width, dashed ? " stroke-dasharray=\"3,3\"" : "")
    }

    public static func text(_ x: Double, _ y: Double, _ content: String, size: Double, fill: String = "#000") -> String {
        String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" fill=\"%@\">", x, y, size, fill) + content.htmlText + "</text>"
    }

    /// A time axis from 0 to `duration` along `plotWidth` from `left`, at `y`.
    public static func timeAxis(left: Double, plotWidth: Double, y: Double, duration: Double) -> String {
        SVGTimeAxis.svg(from: 0, to: duration, left: left, plotWidth: plotWidth, y: y, style: .marks) { tick, step in
            SVGTimeAxis.label(tick, step: step, span: duration)
        }
    }
}

/// Radio state strips on one time axis (a bench's devices, a run's phone), the timeline's
/// outages and handover gaps hatched over them so that the state shows through, and each event
/// marked in its kind's colour.
public enum RadioTimelineChart {
    public struct Row: Sendable {
        public var label: String
        public var segments: [RadioStateSegment]

        public init(label: String, segments: [RadioStateSegment]) {
            self.label = label
            self.segments = segments
        }
    }

    public static func svg(_ rows: [Row], events: [DeviceEvent], duration: Double, width: Double) -> String {
        let left = 70.0
        let rowHeight = 12.0
        let plotWidth = width - left - 10
        let x = { (time: Double) in left + min(max(time, 0), duration) / max(duration, 1e-9) * plotWidth }
        let lanes = labelLanes(events.map { (x($0.at), $0.kind.rawValue) })
        let top = 18.0 + labelLineHeight * Double(max(0, (lanes.max() ?? 0)))
        let height = top + Double(rows.count) * (rowHeight + 3) + 28
        var svg = [SVGDrawing.open(width: width, height: height), outageHatch]
        for (index, row) in rows.enumerated() {
            let y = top + Double(index) * (rowHeight + 3)
            svg.append(SVGDrawing.text(4, y + rowHeight - 2, row.label, size: 10))
            for segment in row.segments where segment.end > segment.start {
                let start = x(segment.start)
                svg.append(
                    SVGDrawing.rect(
                        start, y, max(0.5, x(segment.end) - start), rowHeight, fill: segment.state.chartColor))
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
            let color = eventColors[event.kind] ?? "#333"
            svg.append(SVGDrawing.line(start, top - 6, start, height - 26, stroke: color, dashed: event.kind != .set, width: 1.5))
            svg.append(SVGDrawing.text(start + 2, top - 8 - labelLineHeight * Double(lane), event.kind.rawValue, size: 10, fill: color))
        }
        svg.append(SVGDrawing.timeAxis(left: left, plotWidth: plotWidth, y: height - 22, duration: duration))
        svg.append("</svg>")
        return svg.joined()
    }

    static let labelLineHeight = 11.0

    /// Each timeline event's colour: a `set` stands out from the gaps around it.
    public static let eventColors: [DeviceEvent.Kind: String] = [
        .outage: "#333333", .handover: "#7b3294", .set: "#0571b0", .signal: "#4dac26", .natExpiry: "#e66101",
    ]

    /// Diagonal lines that let the radio state show through an outage.
    static let outageHatch =
        "<defs><pattern id=\"outage-hatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" patternTransform=\"rotate(45)\">"
        + "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#000\" stroke-width=\"2\" stroke-opacity=\"0.45\"/></pattern></defs>"

    /// The line (0 nearest the strips) each event label goes on, so that labels of events close
    /// together do not print over each other: the lowest line whose last label ends before this
    /// one starts, at most four lines (past that, the line that frees up first).
    package static func labelLanes(_ labels: [(x: Double, text: String)]) -> [Int] {
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

    /// The chart as a report's figure, with a legend of the states it shows in its caption.
    public static func figure(_ rows: [Row], events: [DeviceEvent], duration: Double, width: Double, caption: String) -> SVGFigure {
        let states = Set(rows.flatMap { $0.segments.map(\.state) })
        var legend = SVGDrawing.open(width: width, height: 16)
        var x = 4.0
        for state in states.sorted(by: RadioState.byName) {
            legend += SVGDrawing.rect(x, 3, 10, 10, fill: state.chartColor)
            legend += SVGDrawing.text(x + 14, 12, state.rawValue, size: 11)
            x += 26 + Double(state.rawValue.count) * 7.5
        }
        legend += "</svg>"
        return SVGFigure(svg: legend + svg(rows, events: events, duration: duration, width: width), caption: caption)
    }

    /// A legend of the states that occur (HTML, beside the chart).
    public static func stateLegend(_ states: Set<RadioState>) -> String {
        states.sorted(by: RadioState.byName).map { state in
            "<span class=\"key\"><span class=\"swatch\" style=\"background:\(state.chartColor)\"></span>\(state.rawValue.htmlText)</span>"
        }.joined(separator: " ")
    }
}
