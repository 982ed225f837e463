import Foundation
import NetsimCore
import NetsimReport

extension CaptureAnalysis {
    /// One self-contained HTML page (no scripts, no external files): the summary as tables, the state
    /// timeline as inline SVG (one lane per state, then one per flow with its bursts and the
    /// promotions they caused), the flows and the periodic transfers.
    public func htmlReport(maximumFlows: Int = 100) -> String {
        let title = "netsim analyze: \(capture.file)"
        var body = "<h1>\(escaped(title))</h1>\n"
        body += summaryTables() + "\n"
        body += "<h2>State timeline</h2>\n"
        body +=
            "<p>Under the radio's states, the flows (most energy first): bars are bursts of packets, a red mark one that woke the radio; "
            + "then the radio's energy so far.</p>\n"
        body += timelineSVG() + "\n"
        body += "<h2>Flows by energy</h2>\n" + flowTable(maximumFlows: maximumFlows) + "\n"
        if !servers.isEmpty { body += "<h2>Servers by energy</h2>\n" + serverTable(maximumServers: maximumFlows) + "\n" }
        if !periodicTransfers.isEmpty { body += "<h2>Periodic transfers</h2>\n" + periodicTable() + "\n" }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escaped(title))</title>
            <style>
            body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
            pre { background: #f6f6f6; padding: 1em; overflow-x: auto; }
            table { border-collapse: collapse; font-size: 0.9em; }
            th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
            th:nth-child(-n+5), td:nth-child(-n+5) { text-align: left; }
            table.summary { margin-bottom: 1em; }
            table.summary th { padding-right: 1.5em; }
            svg text { font-size: 11px; fill: #333; }
            </style></head>
            <body>
            \(body)</body></html>

            """
    }

    private func timelineSVG() -> String {
        guard let timeline = radio.timeline, let first = timeline.first, let last = timeline.last else {
            return "<p>No radio activity.</p>"
        }
        let lanes = stateOrder().filter { state in timeline.contains { $0.state == state } }
        let labelWidth = 170.0
        let plotWidth = 1000.0
        let laneHeight = 22.0
        let axisHeight = 24.0
        let start = first.start
        let span = max(last.end - start, 1e-9)
        let shownFlows = flows.prefix(Self.maximumFlowLanes)
        // The shown flows' lanes, and a line that counts the others.
        let flowRows = shownFlows.count + (flows.count > shownFlows.count ? 1 : 0)
        let energyHeight = 3 * laneHeight
        let height = Double(lanes.count + flowRows) * laneHeight + energyHeight + axisHeight
        func x(_ time: Double) -> Double { labelWidth + (time - start) / span * plotWidth }

        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(labelWidth + plotWidth + 20))\" "
        svg += "height=\"\(Int(height))\" role=\"img\" aria-label=\"radio state timeline\">\n"
        for (lane, state) in lanes.enumerated() {
            let y = Double(lane) * laneHeight
            svg += "<text x=\"4\" y=\"\(format(y + 15))\">\(escaped(state.rawValue))</text>\n"
            svg += "<line x1=\"\(format(labelWidth))\" x2=\"\(format(labelWidth + plotWidth))\" y1=\"\(format(y + laneHeight))\" "
            svg += "y2=\"\(format(y + laneHeight))\" stroke=\"#eee\"/>\n"
        }
        for segment in timeline {
            guard let lane = lanes.firstIndex(of: segment.state) else { continue }
            let color = segment.state.chartColor
            // At least half a pixel wide, so a short promotion in a long capture stays visible.
            let width = max(0.5, x(segment.end) - x(segment.start))
            svg += "<rect x=\"\(format(x(segment.start)))\" y=\"\(format(Double(lane) * laneHeight + 3))\" "
            svg += "width=\"\(format(width))\" height=\"\(format(laneHeight - 6))\" fill=\"\(color)\">"
            svg += "<title>\(escaped(segment.state.rawValue)) \(ReportNumber.fixed(segment.start, decimals: 3))–"
            svg += "\(ReportNumber.fixed(segment.end, decimals: 3)) s</title></rect>\n"
        }
        let flowTop = Double(lanes.count) * laneHeight
        for (index, flow) in shownFlows.enumerated() {
            svg += flowLane(
                flow, y: flowTop + Double(index) * laneHeight, height: laneHeight, left: labelWidth, right: labelWidth + plotWidth, x: x)
        }
        if flows.count > shownFlows.count {
            svg += "<text x=\"4\" y=\"\(format(flowTop + Double(shownFlows.count) * laneHeight + 15))\">"
            svg += "\(flows.count - shownFlows.count) more flows in the table</text>\n"
        }
        let energyTop = flowTop + Double(flowRows) * laneHeight
        svg += energyCurve(timeline, top: energyTop, height: energyHeight, left: labelWidth, right: labelWidth + plotWidth, x: x)
        let axisY = energyTop + energyHeight
        svg += SVGTimeAxis.svg(from: start, to: last.end, left: labelWidth, plotWidth: plotWidth, y: axisY, style: .grid(top: 0)) {
            tick, step in SVGTimeAxis.label(tick, step: step, span: last.end - start)
        }
        return svg + "\n</svg>"
    }

    /// The radio's energy so far, over the same time axis: each state at its mean power over the
    /// capture (its energy over its time, throughput included), so the curve ends at the
    /// report's energy. Points closer than half a pixel are drawn as one.
    private func energyCurve(
        _ timeline: [RadioStateSegment], top: Double, height: Double, left: Double, right: Double, x: (Double) -> Double
    ) -> String {
        guard radio.energyJoules > 0, let first = timeline.first else { return "" }
        let bottom = top + height - 4
        func y(_ joules: Double) -> Double { bottom - joules / radio.energyJoules * (height - 10) }
        var points = [(x(first.start), y(0))]
        var joules = 0.0
        for segment in timeline {
            let seconds = radio.secondsByState[segment.state] ?? 0
            let power = seconds > 0 ? (radio.energyJoulesByState[segment.state] ?? 0) / seconds : 0
            joules += power * (segment.end - segment.start)
            let point = (x(segment.end), y(joules))
            if let last = points.last, point.0 - last.0 < 0.5, segment.end < timeline[timeline.count - 1].end {
                points[points.count - 1] = point
            } else {
                points.append(point)
            }
        }
        var svg = "<text x=\"4\" y=\"\(format(top + 15))\">energy so far</text>\n"
        svg +=
            "<text x=\"4\" y=\"\(format(top + 29))\">\(escaped(ReportNumber.joules(radio.energyJoules, decimals: 2))) at the end</text>\n"
        svg += "<line x1=\"\(format(left))\" x2=\"\(format(right))\" y1=\"\(format(bottom))\" y2=\"\(format(bottom))\" stroke=\"#ccc\"/>\n"
        svg += "<polyline fill=\"none\" stroke=\"#b35806\" stroke-width=\"1.5\" points=\""
        svg += points.map { "\(format($0.0)),\(format($0.1))" }.joined(separator: " ") + "\"/>\n"
        return svg
    }

    /// The summary as tables, with the text report's words: the capture, the radio's figures,
    /// and its time and energy per state.
    private func summaryTables() -> String {
        func row(_ label: String, _ value: String) -> String { "<tr><th>\(escaped(label))</th><td>\(escaped(value))</td></tr>" }
        var html = "<table class=\"summary\">" + captureFacts().map { row($0.label, $0.value) }.joined()
        html += "<tr><th colspan=\"2\">Radio model \(escaped(radio.model)), \(escaped(capture.analysisSpan))</th></tr>"
        html += radioFacts().map { row($0.label, $0.value) }.joined() + "</table>\n"
        html += "<table><tr><th>State</th><th>Seconds</th><th>Share</th><th>Energy J</th></tr>"
        html += stateRows().map { "<tr>" + $0.map { "<td>\(escaped($0))</td>" }.joined() + "</tr>" }.joined() + "</table>"
        return html
    }

    /// Flows drawn under the radio's states, the most energy first.
    static let maximumFlowLanes = 12

    /// One flow's lane: its bursts as bars (bursts closer than a pixel drawn as one), a red
    /// mark over each that woke the radio, so a reader sees which flow caused each promotion.
    private func flowLane(
        _ flow: FlowReport, y: Double, height: Double, left: Double, right: Double, x: (Double) -> Double
    ) -> String {
        let name = flow.serverName ?? flow.remote
        let label = "#\(flow.id) " + (name.count > 24 ? String(name.prefix(23)) + "…" : name)
        var svg =
            "<text x=\"4\" y=\"\(format(y + 15))\">\(escaped(label))<title>\(escaped("\(flow.transport) \(flow.device) → \(flow.remote)"))</title></text>\n"
        svg += "<line x1=\"\(format(left))\" x2=\"\(format(right))\" y1=\"\(format(y + height))\" "
        svg += "y2=\"\(format(y + height))\" stroke=\"#eee\"/>\n"
        // The pixels a burst covers: at least one.
        func span(_ burst: FlowBurst) -> (from: Double, to: Double) { (x(burst.start), max(x(burst.end), x(burst.start) + 1)) }
        var bars: [FlowBurst] = []
        for burst in flow.bursts {
            if let last = bars.last, span(burst).from <= span(last).to + 0.5 {
                bars[bars.count - 1].absorb(burst)
            } else {
                bars.append(burst)
            }
        }
        for bar in bars {
            let (from, to) = span(bar)
            svg +=
                "<rect x=\"\(format(from))\" y=\"\(format(y + 7))\" width=\"\(format(to - from))\" height=\"\(format(height - 10))\" "
            svg += "fill=\"#4a6fa5\"><title>\(bar.packets) packets, \(ReportNumber.joules(bar.energyJoules, decimals: 2))"
            svg += bar.wakeUps > 0 ? ", woke the radio\(bar.wakeUps > 1 ? " \(bar.wakeUps) times" : "")" : ""
            svg += "</title></rect>\n"
            if bar.wakeUps > 0 {
                svg +=
                    "<rect x=\"\(format(from))\" y=\"\(format(y + 2))\" width=\"\(format(max(2, to - from)))\" height=\"4\" fill=\"#d62728\"/>\n"
            }
        }
        return svg
    }

    private func flowTable(maximumFlows: Int) -> String {
        guard !flows.isEmpty else { return "<p>No flows to or from the device.</p>" }
        var html = "<table><tr><th>#</th><th>Proto</th><th>Device</th><th>Remote</th><th>Server</th><th>Packets</th>"
        html += "<th>Up B</th><th>Down B</th><th>Wake-ups</th><th>Wake s</th><th>Energy J</th><th>Share</th></tr>\n"
        for flow in flows.prefix(maximumFlows) {
            let cells = [
                "\(flow.id)", flow.transport, flow.device, flow.remote, flow.serverName ?? "-", "\(flow.packets)",
                "\(flow.bytesUp)", "\(flow.bytesDown)", "\(flow.wakeUps)", ReportNumber.fixed(flow.wakeSeconds, decimals: 2),
                ReportNumber.fixed(flow.energyJoules, decimals: 2), ReportNumber.percent(flow.energyShare, decimals: 1),
            ]
            html += "<tr>" + cells.map { "<td>\(escaped($0))</td>" }.joined() + "</tr>\n"
        }
        if flows.count > maximumFlows {
            html += "<tr><td colspan=\"12\">\(flows.count - maximumFlows) more flows in --format json</td></tr>\n"
        }
        return html + "</table>"
    }

    private func serverTable(maximumServers: Int) -> String {
        var html = "<table><tr>" + ServerReport.header.map { "<th>\(escaped($0.capitalized))</th>" }.joined() + "</tr>\n"
        for server in servers.prefix(maximumServers) {
            html += "<tr>" + server.cells.map { "<td>\(escaped($0))</td>" }.joined() + "</tr>\n"
        }
        return html + "</table>"
    }

    private func periodicTable() -> String {
        var html = "<table><tr><th>Flow</th><th>Server</th><th>Period s</th><th>Repeats</th><th>Bursts/repeat</th><th>Wake s/repeat</th>"
        html += "<th>J/repeat</th><th>Wake s/h</th><th>J/h</th><th>Mean mW</th></tr>\n"
        for transfer in periodicTransfers {
            html += "<tr>" + transfer.cells.map { "<td>\(escaped($0))</td>" }.joined() + "</tr>\n"
        }
        return html + "</table>"
    }

    private func format(_ value: Double) -> String { ReportNumber.fixed(value, decimals: 1) }

    private func escaped(_ text: String) -> String { text.htmlEscaped }
}
