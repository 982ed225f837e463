import Foundation
import NetsimCore
import NetsimModel
import NetsimReport

/// The HTML report: one self-contained file (inline CSS and SVG, no scripts) with the
/// comparison table, the charts (radio state timelines with the profile's events, latency
/// CDFs, bytes per minute), and the details the Markdown report has.
public enum HTMLReport {
    public static func render(_ result: BenchResult) -> String {
        let escape: (String) -> String = \.htmlText
        var profile = "<h2>Profile</h2><p><b>\(escape(result.profile.name))</b>: \(escape(result.profile.description))</p>"
        if !result.profileEvents.isEmpty {
            profile += "<ul>" + result.profileEvents.map { "<li>\(escape("\($0)"))</li>" }.joined() + "</ul>"
        }
        return render(
            result.report, charts: (result.charts, result.profileEvents),
            closing: [profile, "<h2>Workload and clients</h2>" + list(MarkdownReport.settings(result))])
    }

    /// A saved report again (`netsim report show`): the JSON keeps neither the radio timelines
    /// nor the latency distributions, so those charts are left out (with a note); the rest is as
    /// the bench wrote it, with what `MarkdownReport.render(saved:)` says of the profile and
    /// settings.
    public static func render(saved report: BenchReport) -> String {
        let escape: (String) -> String = \.htmlText
        let profile =
            "<h2>Profile</h2><p><b>\(escape(report.profile))</b> (<code>netsim profiles show \(escape(report.profile))</code> shows its "
            + "networks and events)</p>"
        let settings =
            MarkdownReport.workloadLines(report.workload) + ["- Client settings: \(ClientSettings.describe(source: report.client))"]
        return render(report, charts: nil, closing: [profile, "<h2>Workload and clients</h2>" + list(settings)])
    }

    /// The page: the report's table, its charts (the radio timelines and latency CDFs from
    /// `charts` when there are any), its details, then `closing`.
    private static func render(
        _ report: BenchReport, charts: (byTransport: [BenchTransport: TransportCharts], profileEvents: [DeviceEvent])?, closing: [String]
    ) -> String {
        let transports = report.orderedTransports
        let escape: (String) -> String = \.htmlText
        var body: [String] = [
            "<h1>netsim bench: \(escape(report.profile))</h1>",
            "<p>\(report.devicesPerTransport) devices per transport, \(Quantity.formatDuration(report.durationSeconds)), "
                + "seed \(report.seed), netsim \(escape(report.netsimVersion))"
                + (report.engine == .model ? ", played by the model engine in virtual time.</p>" : ".</p>"),
        ]
        if let partial = ReportFormatting.partial(report) { body.append("<p><strong>\(escape(partial))</strong></p>") }
        if let gates = report.gates, !gates.isEmpty { body += GateOutcome.html(gates) }
        body += [
            "<table><tr><th></th>" + transports.map { "<th>\(escape($0.0.title))</th>" }.joined() + "</tr>"
        ]
        for (label, cells) in ReportFormatting.comparisonRows(report) {
            body.append("<tr><th>\(escape(label))</th>" + cells.map { "<td>\(escape($0))</td>" }.joined() + "</tr>")
        }
        body.append("</table>")
        body.append(
            "<p class=\"note\">Bandwidth, wake time and energy are per device (mean ± standard deviation); latencies are pooled "
                + "over the fleet; delivery counts and reconnects are fleet totals.</p>")
        body.append("<p class=\"note\">\(escape(ReportFormatting.drain(report)))</p>")

        if let charts {
            body += chartSections(report, charts.byTransport, profileEvents: charts.profileEvents)
        } else {
            body.append("<h2>Radio state timelines and latency distributions</h2>")
            body.append(
                "<p class=\"note\">Not in the JSON report: the HTML report the bench wrote has them. The percentiles are in "
                    + "the table above.</p>")
        }
        body.append("<h2>Bytes per minute per device</h2>")
        body.append(SVGCharts.bytesPerMinute(transports.map { ($0.0, payload: $0.1.bytes.perMinute, wire: $0.1.bytes.wire.perMinute) }))

        body.append("<h2>Details</h2>")
        for (transport, details) in transports {
            body.append(list(MarkdownReport.details(transport, details)))
        }
        body += closing
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>netsim bench: \(escape(report.profile))</title>
            <style>
            body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px; color: #222; max-width: 960px; }
            table { border-collapse: collapse; margin: 12px 0; }
            th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; font-size: 14px; }
            th:first-child { text-align: left; }
            .note { color: #555; font-size: 13px; }
            .key { margin-right: 12px; font-size: 13px; white-space: nowrap; }
            .swatch { display: inline-block; width: 12px; height: 12px; margin-right: 4px; vertical-align: middle; }
            svg { display: block; margin: 6px 0 16px; font-family: inherit; }
            </style></head>
            <body>
            \(body.joined(separator: "\n"))
            </body></html>

            """
    }

    /// Markdown lines (a `### title` and `- item`s) as HTML.
    /// The radio state timelines (with the profile's events) and the latency CDFs.
    private static func chartSections(
        _ report: BenchReport, _ charts: [BenchTransport: TransportCharts], profileEvents: [DeviceEvent]
    ) -> [String] {
        let transports = report.orderedTransports
        let escape: (String) -> String = \.htmlText
        var body: [String] = []
        let timelineEnd =
            transports.flatMap { transport in
                charts[transport.0]?.timelines.compactMap { $0.last?.end } ?? []
            }.max() ?? report.durationSeconds
        let states = Set(transports.flatMap { charts[$0.0]?.timelines.flatMap { $0.map(\.state) } ?? [] })
        if states.isEmpty {
            body.append("<h2>Radio state timelines</h2>")
            body.append(
                "<p class=\"note\">Not recorded: the model engine keeps per-device state timelines for runs of up to "
                    + "\(escape(Quantity.formatDuration(ModelBenchRunner.longestChartedRun))); the time by state is in the JSON report.</p>"
            )
        } else {
            body.append("<h2>Radio state timelines</h2><p>\(RadioTimelineChart.stateLegend(states))</p>")
            body.append(
                "<p class=\"note\">Hatched: the profile's outages and handover gaps, over the radio states; lines: its events, a colour per kind (set solid blue, handover purple, NAT expiry orange).</p>"
            )
            for (transport, _) in transports {
                guard let transportCharts = charts[transport] else { continue }
                body.append("<h3>\(escape(transport.title))</h3>")
                body.append(SVGCharts.radioTimeline(transportCharts.timelines, events: profileEvents, duration: timelineEnd))
            }
        }
        let legend = transports.map { transport, _ in
            "<span class=\"key\"><span class=\"swatch\" style=\"background:\(SVGCharts.color(transport))\"></span>\(escape(transport.title))</span>"
        }.joined(separator: " ")
        body.append("<h2>Latency, server events (creation to delivery in the app)</h2><p>\(legend)</p>")
        body.append(SVGCharts.latencyCDF(transports.map { ($0.0, charts[$0.0]?.latencyCDF ?? []) }))
        body.append("<h2>Latency, client messages (production to arrival at the server)</h2><p>\(legend)</p>")
        body.append(SVGCharts.latencyCDF(transports.map { ($0.0, charts[$0.0]?.uplinkLatencyCDF ?? []) }))
        return body
    }

    static func list(_ lines: [String]) -> String {
        var html: [String] = []
        var items: [String] = []
        for line in lines {
            if line.hasPrefix("### ") {
                html.append("<h3>\(String(line.dropFirst(4)).htmlText)</h3>")
            } else if line.hasPrefix("- ") {
                items.append("<li>\(String(line.dropFirst(2)).htmlText)</li>")
            }
        }
        return html.joined() + "<ul>" + items.joined() + "</ul>"
    }
}
