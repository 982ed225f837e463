import Foundation
import NetsimCore

/// Charts that put measurements beside netsim's figures (`netsim fidelity`): points against a
/// band, and pairs of bars. Drawn with `SVGDrawing`, every label escaped.
public enum MeasurementCharts {
    /// Measured points over netsim's band (the 10th to 90th percentile of its figures in each
    /// bin of x), on linear axes from zero.
    public static func pointsOverBand(
        points: [(x: Double, y: Double)], band: [(x: Double, low: Double, high: Double)], xLabel: String, yLabel: String,
        caption: String, width: Double = 720, height: Double = 260
    ) -> SVGFigure {
        let left = 56.0
        let bottom = 30.0
        let top = 10.0
        let plotWidth = width - left - 12
        let plotHeight = height - top - bottom
        let xMax = max(points.map(\.x).max() ?? 1, band.map(\.x).max() ?? 1, 1e-9)
        let yMax = max(points.map(\.y).max() ?? 1, band.map(\.high).max() ?? 1, 1e-9) * 1.05
        let x = { (value: Double) in left + value / xMax * plotWidth }
        let y = { (value: Double) in top + plotHeight - value / yMax * plotHeight }
        var svg = [SVGDrawing.open(width: width, height: height)]
        svg.append(SVGDrawing.line(left, top + plotHeight, left + plotWidth, top + plotHeight, stroke: "#888"))
        svg.append(SVGDrawing.line(left, top, left, top + plotHeight, stroke: "#888"))
        for step in 0...4 {
            let value = yMax / 1.05 * Double(step) / 4
            svg.append(SVGDrawing.text(4, y(value) + 4, String(format: "%.0f", value), size: 10))
            let xValue = xMax * Double(step) / 4
            svg.append(SVGDrawing.text(x(xValue) - 8, height - 14, String(format: "%.0f", xValue), size: 10))
        }
        svg.append(SVGDrawing.text(left + plotWidth / 2 - 30, height - 2, xLabel, size: 11))
        svg.append(SVGDrawing.text(left + 4, top + 10, yLabel, size: 11))
        let sorted = band.sorted { $0.x < $1.x }
        if sorted.count > 1 {
            let upper = sorted.map { String(format: "%.2f,%.2f", x($0.x), y($0.high)) }
            let lower = sorted.reversed().map { String(format: "%.2f,%.2f", x($0.x), y($0.low)) }
            svg.append(
                "<polygon points=\"\((upper + lower).joined(separator: " "))\" fill=\"#f28e2b\" fill-opacity=\"0.35\" stroke=\"#f28e2b\"/>")
        }
        for point in points {
            svg.append(
                String(format: "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"1.8\" fill=\"#4e79a7\" fill-opacity=\"0.7\"/>", x(point.x), y(point.y)))
        }
        svg.append("</svg>")
        return SVGFigure(svg: svg.joined(), caption: caption)
    }

    /// One row per label, two bars each (measured in blue, netsim in orange) on a shared scale.
    public static func pairedBars(
        _ rows: [(label: String, measured: Double, netsim: Double)], unit: String, caption: String, width: Double = 720
    ) -> SVGFigure {
        let left = 190.0
        let rowHeight = 16.0
        let plotWidth = width - left - 70
        let height = Double(rows.count) * (2 * rowHeight + 4) + 10
        let most = max(rows.map { max($0.measured, $0.netsim) }.max() ?? 1, 1e-9)
        var svg = [SVGDrawing.open(width: width, height: height)]
        for (index, row) in rows.enumerated() {
            let y = 5 + Double(index) * (2 * rowHeight + 4)
            svg.append(SVGDrawing.text(4, y + rowHeight + 4, String(row.label.prefix(30)), size: 10))
            for (offset, value, color) in [(0.0, row.measured, "#4e79a7"), (rowHeight, row.netsim, "#f28e2b")] {
                let length = value / most * plotWidth
                svg.append(SVGDrawing.rect(left, y + offset, max(0.5, length), rowHeight - 2, fill: color))
                svg.append(SVGDrawing.text(left + length + 4, y + offset + rowHeight - 4, String(format: "%.0f %@", value, unit), size: 10))
            }
        }
        svg.append("</svg>")
        return SVGFigure(svg: svg.joined(), caption: caption)
    }
}
