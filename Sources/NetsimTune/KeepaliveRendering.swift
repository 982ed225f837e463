import Foundation
import NetsimCore
import NetsimModel
import NetsimReport

/// The tuner's Markdown and HTML reports.
public enum KeepaliveRendering {
    static func joules(_ value: Double) -> String { ReportNumber.joules(value, decimals: 0) }
    /// Seconds as a reader wants them in a table: one decimal under a minute, whole above.
    static func seconds(_ value: Double) -> String {
        ReportNumber.seconds(value, decimals: value < 60 ? 1 : 0)
    }

    /// A NAT idle timeout, in one format everywhere in the tuner's reports: whole seconds as
    /// they are given ("30 s", "1800 s"), and "none" for no NAT.
    static func natTimeout(_ value: Double?) -> String {
        guard let value else { return "none" }
        return ReportNumber.seconds(value, decimals: value == value.rounded() ? 0 : 1)
    }

    /// The line that says a sweep was stopped early; nil for a finished one.
    static func partial(_ results: KeepaliveResults) -> String? {
        guard results.isPartial else { return nil }
        return "Partial: the sweep was stopped (SIGINT or SIGTERM) after \(results.seedsPlayed) of \(results.sweep.seeds) seeds; "
            + "every figure and the recommendation cover those seeds only."
    }

    /// What the sweep played: profiles, NAT timeouts, horizon, seeds, impairments.
    static func scope(_ sweep: KeepaliveSweep) -> String {
        (sweep.transport == .quic ? "Keepalive: the PING interval / the idle timeout. " : "")
            + "Profiles \(sweep.profiles.map(\.name).joined(separator: ", ")); "
            + (sweep.transport == .quic ? "UDP NAT idle timeouts " : "NAT idle timeouts ")
            + sweep.natTimeouts.map(natTimeout).joined(separator: ", ")
            + "; \(seconds(sweep.horizon)) per scenario, \(sweep.seeds) seeds; impairments \(sweep.impairments.summary); "
            + "detect within \(seconds(sweep.detectWithin))."
    }

    /// The report's heading: the transport, with gRPC the client's reconnection, and the
    /// server's ping policy.
    static func title(_ sweep: KeepaliveSweep) -> String {
        let reconnection = sweep.transport == .grpc ? " (\(sweep.grpcReconnection.rawValue) reconnection)" : ""
        return "netsim tune keepalive: \(sweep.transport.rawValue)\(reconnection), server policy \(sweep.serverPolicy.name)"
    }

    public static func markdown(_ results: KeepaliveResults, verification: VerificationTable? = nil, gates: [GateOutcome]? = nil) -> String
    {
        let sweep = results.sweep
        var lines: [String] = []
        lines.append("## \(title(sweep))")
        lines.append("")
        lines.append(scope(sweep))
        lines.append("")
        if let partial = partial(results) { lines += ["**\(partial)**", ""] }
        if let gates, !gates.isEmpty { lines += GateOutcome.markdown(gates) }
        lines.append(results.compromise == nil ? "### Recommendation" : "### Compromise (no configuration is viable)")
        lines.append("")
        lines.append(KeepaliveRecommendationText.paragraph(results))
        lines.append("")
        for snippet in KeepaliveRecommendationText.snippets(results) {
            lines.append("**\(snippet.title)**")
            lines.append("")
            lines.append("```\(snippet.language)")
            lines.append(snippet.text)
            lines.append("```")
            lines.append("")
        }
        if !results.comparisons.isEmpty {
            lines.append("### Against what users bring")
            lines.append("")
            lines.append("| configuration | energy / h | p95 detection | NAT expiries / h | the recommendation saves |")
            lines.append("|---|---:|---:|---:|---:|")
            let report = KeepaliveReport(results)
            for comparison in report.comparisons {
                lines.append(
                    "| \(comparison.name) | \(joules(comparison.energyJoulesPerHour)) | \(seconds(comparison.detectionP95Seconds)) | "
                        + String(format: "%.2f", comparison.natExpiriesPerHour) + " | "
                        + (comparison.recommendationSavesPercent.map {
                            $0 >= 0 ? String(format: "%.0f%%", $0) : String(format: "none: it costs %.0f%% more", -$0)
                        } ?? "-") + " |")
            }
            lines.append("")
            lines.append(
                "\"Tuning cuts streaming battery drain by 40%\": what netsim measures is the radio energy per hour of an idle, "
                    + "open stream (keepalive is all that flows), with the impairments above, averaged over the profiles and NAT "
                    + "timeouts; the saving is the recommendation's against each baseline in the last column. It is radio energy only, "
                    + "not the whole phone's.")
            lines.append("")
        }
        lines.append("### Per NAT timeout")
        lines.append("")
        lines.append(perNATNote(results))
        lines.append("")
        lines.append("| NAT timeout | recommended there | energy / h | p95 detection |")
        lines.append("|---|---|---:|---:|")
        for row in perNATRows(results) { lines.append("| " + row.joined(separator: " | ") + " |") }
        lines.append("")
        if let verification { lines.append(verification.markdown()) }
        lines.append("### The front (viable configurations no other beats on both energy and detection)")
        lines.append("")
        lines.append(table(results.pareto, recommended: results.recommended?.keepalive))
        lines.append("")
        lines.append("### Every configuration")
        lines.append("")
        lines.append(
            table(results.summaries, recommended: results.recommended?.keepalive, compromise: results.compromise?.keepalive, reasons: true))
        lines.append("")
        return lines.joined(separator: "\n")
    }

    /// Which NAT decides the overall recommendation, in a sentence.
    static func perNATNote(_ results: KeepaliveResults) -> String {
        let each = "Each NAT timeout alone (every profile behind it), as for a fleet that meets only that NAT."
        guard let recommended = results.recommended else { return each }
        guard let driving = results.drivingNAT else {
            return each
                + " No single NAT decides the overall recommendation: without any one of them it stays \(recommended.keepalive.label)."
        }
        let instead = driving.instead
        return each + " The \(natTimeout(driving.natTimeoutSeconds)) NAT decides the overall choice: without it, "
            + "\(instead.keepalive.label) would be recommended (\(joules(instead.metrics.energyJoulesPerHour))/h and "
            + "\(seconds(instead.metrics.detectionSeconds.p95)) p95 detection over the whole grid"
            + (instead.viable ? ")." : "; \(instead.disqualified.joined(separator: "; "))).")
    }

    /// NAT timeout, its recommendation, energy per hour and p95 detection behind it.
    static func perNATRows(_ results: KeepaliveResults) -> [[String]] {
        results.perNAT.map { nat in
            guard let recommended = nat.recommended else { return [natTimeout(nat.natTimeoutSeconds), "none viable", "-", "-"] }
            return [
                natTimeout(nat.natTimeoutSeconds), recommended.keepalive.label, joules(recommended.metrics.energyJoulesPerHour),
                seconds(recommended.metrics.detectionSeconds.p95),
            ]
        }
    }

    static func table(
        _ summaries: [KeepaliveResults.Summary], recommended: KeepaliveSweep.Keepalive?, compromise: KeepaliveSweep.Keepalive? = nil,
        reasons: Bool = false
    ) -> String {
        let migrations = summaries.contains { $0.metrics.migrationsPerHour != nil }
        var lines = [
            "| keepalive | energy / h | wake s / h | wake-ups / h | bytes / h | NAT expiries / h | detection p50 / p95 / max | "
                + "blackout s / h | reconnects / h |" + (migrations ? " migrations / h |" : "")
                + " GOAWAYs | server pings/s per 1M clients |" + (reasons ? " not viable because |" : ""),
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|" + (migrations ? "---:|" : "") + "---:|---:|" + (reasons ? "---|" : ""),
        ]
        for summary in summaries {
            let m = summary.metrics
            let name =
                summary.keepalive.label
                + (summary.keepalive == recommended ? " **(recommended)**" : summary.keepalive == compromise ? " **(compromise)**" : "")
            lines.append(
                "| \(name) | \(joules(m.energyJoulesPerHour)) | " + String(format: "%.0f", m.wakeSecondsPerHour) + " | "
                    + String(format: "%.1f", m.promotionsPerHour) + " | " + Quantity.formatDataSize(m.bytesPerHour) + " | "
                    + String(format: "%.2f", m.natExpiriesPerHour) + " | "
                    + "\(seconds(m.detectionSeconds.p50)) / \(seconds(m.detectionSeconds.p95)) / \(seconds(m.detectionSeconds.max)) | "
                    + String(format: "%.0f", m.blackoutSecondsPerHour) + " | " + String(format: "%.2f", m.reconnectsPerHour) + " | "
                    + (m.migrationsPerHour.map { String(format: "%.2f", $0) + " | " } ?? "")
                    + String(format: "%.2f", m.goaways) + " | " + String(format: "%.0f", m.serverPingsPerSecondPerMillionClients) + " |"
                    + (reasons ? " \(summary.disqualified.joined(separator: "; ")) |" : ""))
        }
        return lines.joined(separator: "\n")
    }

    // MARK: HTML

    public static func html(_ results: KeepaliveResults, verification: VerificationTable? = nil, gates: [GateOutcome]? = nil) -> String {
        let sweep = results.sweep
        var body = "<h1>\(escape(title(sweep)))</h1>"
        body += "<p class=\"note\">\(escape(scope(sweep)))</p>"
        if let partial = partial(results) { body += "<p><strong>\(escape(partial))</strong></p>" }
        if let gates, !gates.isEmpty { body += GateOutcome.html(gates).joined() }
        if results.compromise != nil { body += "<h2>Compromise (no configuration is viable)</h2>" }
        body += "<p>\(escape(KeepaliveRecommendationText.paragraph(results)))</p>"
        for snippet in KeepaliveRecommendationText.snippets(results) {
            body += "<h3>\(escape(snippet.title))</h3><pre>\(escape(snippet.text))</pre>"
        }
        body += "<h2>Energy per hour against p95 detection time</h2>"
        body += "<p class=\"note\">Grey: not viable; blue: viable; orange: the front; ringed: the recommendation.</p>"
        body += scatter(results)
        for profile in sweep.profiles {
            body += "<h2>Energy per hour by keepalive time and NAT timeout (\(escape(profile.name)))</h2>"
            body +=
                sweep.transport == .quic
                ? "<p class=\"note\">Crossed cells: the NAT forgot the phone while it had a network (unreachable until its next PING). "
                    + "Each column is a PING interval with the recommended idle timeout.</p>"
                : "<p class=\"note\">Crossed cells lost connections to NAT expiry.</p>"
            body += heatMap(results, profile: profile.name)
        }
        body += "<h2>Per NAT timeout</h2><p class=\"note\">\(escape(perNATNote(results)))</p>"
        body += "<table><tr><th>NAT timeout</th><th>recommended there</th><th>energy / h</th><th>p95 detection</th></tr>"
        body += perNATRows(results).map { "<tr>" + $0.map { "<td>\(escape($0))</td>" }.joined() + "</tr>" }.joined() + "</table>"
        if let verification { body += verificationTable(verification) }
        body += "<h2>Every configuration</h2>" + htmlTable(results)
        return """
            <!doctype html><html><head><meta charset="utf-8"><title>netsim tune keepalive</title><style>
            body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}
            table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}
            th:first-child,td:first-child{text-align:left}pre{background:#f4f4f4;padding:8px;overflow-x:auto}
            .note{color:#666;font-size:13px}svg text{font-size:11px;fill:#333}
            </style></head><body>\(body)</body></html>
            """
    }

    static func escape(_ text: String) -> String { text.htmlEscaped }

    static func scatter(_ results: KeepaliveResults) -> String {
        let width = 760.0
        let height = 380.0
        let left = 70.0
        let bottom = 40.0
        let top = 10.0
        let right = 20.0
        let points = results.summaries
        let maxEnergy = max(points.map(\.metrics.energyJoulesPerHour).max() ?? 1, 1)
        let axis = DetectionAxis(points.map(\.metrics.detectionSeconds.p95))
        func x(_ energy: Double) -> Double { left + energy / maxEnergy * (width - left - right) }
        func y(_ detection: Double) -> Double { height - bottom - axis.position(detection) * (height - top - bottom) }
        var svg = "<svg width=\"\(Int(width))\" height=\"\(Int(height))\" xmlns=\"http://www.w3.org/2000/svg\">"
        svg += "<line x1=\"\(left)\" y1=\"\(height - bottom)\" x2=\"\(width - right)\" y2=\"\(height - bottom)\" stroke=\"#999\"/>"
        svg += "<line x1=\"\(left)\" y1=\"\(top)\" x2=\"\(left)\" y2=\"\(height - bottom)\" stroke=\"#999\"/>"
        for tick in 0...4 {
            let energy = maxEnergy * Double(tick) / 4
            svg += "<text x=\"\(x(energy))\" y=\"\(height - bottom + 15)\" text-anchor=\"middle\">\(joules(energy))</text>"
        }
        // One format on the axis: 1-2-5 ticks need decimals only below a second.
        let decimals = (axis.ticks.first ?? 1) < 1 ? 1 : 0
        for detection in axis.ticks {
            svg +=
                "<text x=\"\(left - 6)\" y=\"\(y(detection) + 4)\" text-anchor=\"end\">\(escape(ReportNumber.seconds(detection, decimals: decimals)))</text>"
        }
        svg += "<text x=\"\((left + width) / 2)\" y=\"\(height - 5)\" text-anchor=\"middle\">radio energy per hour</text>"
        svg +=
            "<text x=\"12\" y=\"\(height / 2)\" transform=\"rotate(-90 12 \(height / 2))\" text-anchor=\"middle\">p95 detection (log scale)</text>"
        let front = Set(results.pareto.map(\.keepalive))
        // Drawn in order of interest, so a front point is never hidden under a neighbour.
        func rank(_ point: KeepaliveResults.Summary) -> Int { front.contains(point.keepalive) ? 2 : point.viable ? 1 : 0 }
        for point in points.sorted(by: { rank($0) < rank($1) }) {
            let colour = front.contains(point.keepalive) ? "#e67e22" : point.viable ? "#2c7fb8" : "#bbb"
            let cx = x(point.metrics.energyJoulesPerHour)
            let cy = y(point.metrics.detectionSeconds.p95)
            svg += "<circle cx=\"\(cx)\" cy=\"\(cy)\" r=\"4\" fill=\"\(colour)\"><title>\(escape(point.keepalive.label))</title></circle>"
            if point.keepalive == results.recommended?.keepalive {
                svg += "<circle cx=\"\(cx)\" cy=\"\(cy)\" r=\"9\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\"/>"
                svg += "<text x=\"\(cx + 12)\" y=\"\(cy - 8)\">\(escape(point.keepalive.label))</text>"
            }
        }
        return svg + "</svg>"
    }

    /// Energy per hour for each keepalive time (columns) and NAT timeout (rows), on `profile`,
    /// with the recommended timeout and permit setting.
    static func heatMap(_ results: KeepaliveResults, profile: String) -> String {
        let sweep = results.sweep
        let reference = results.recommended?.keepalive ?? results.keepalives.first
        let rows = results.rows.filter {
            $0.profile == profile && !$0.keepalive.adaptive
                && (sweep.transport == .ws || $0.keepalive.timeout == reference?.timeout)
                && $0.keepalive.permitWithoutCalls == reference?.permitWithoutCalls
        }
        let times = Array(Set(rows.map(\.keepalive.time))).sorted()
        let cell = 44.0
        let left = 80.0
        let top = 30.0
        let energies = rows.map(\.metrics.energyJoulesPerHour)
        let low = energies.min() ?? 0
        let high = max(energies.max() ?? 1, low + 1e-9)
        var svg =
            "<svg width=\"\(Int(left + cell * Double(times.count) + 10))\" height=\"\(Int(top + cell * Double(sweep.natTimeouts.count) + 10))\" xmlns=\"http://www.w3.org/2000/svg\">"
        for (column, time) in times.enumerated() {
            svg +=
                "<text x=\"\(left + cell * (Double(column) + 0.5))\" y=\"\(top - 8)\" text-anchor=\"middle\">\(escape(seconds(time)))</text>"
        }
        for (rowIndex, nat) in sweep.natTimeouts.enumerated() {
            let ypos = top + cell * Double(rowIndex)
            svg +=
                "<text x=\"\(left - 6)\" y=\"\(ypos + cell / 2 + 4)\" text-anchor=\"end\">NAT \(escape(natTimeout(nat)))</text>"
            for (column, time) in times.enumerated() {
                guard let row = rows.first(where: { $0.natTimeoutSeconds == nat && $0.keepalive.time == time }) else { continue }
                let share = (row.metrics.energyJoulesPerHour - low) / (high - low)
                let red = Int(255 - share * 60)
                let green = Int(245 - share * 170)
                let blue = Int(220 - share * 200)
                let xpos = left + cell * Double(column)
                svg +=
                    "<rect x=\"\(xpos)\" y=\"\(ypos)\" width=\"\(cell - 2)\" height=\"\(cell - 2)\" fill=\"rgb(\(red),\(green),\(blue))\">"
                    + "<title>\(escape(row.keepalive.label)), NAT \(escape(natTimeout(nat))): \(Int(row.metrics.energyJoulesPerHour)) J/h</title></rect>"
                svg +=
                    "<text x=\"\(xpos + cell / 2 - 1)\" y=\"\(ypos + cell / 2 + 4)\" text-anchor=\"middle\">\(Int(row.metrics.energyJoulesPerHour.rounded()))</text>"
                if row.metrics.natExpiriesPerHour > 0 {
                    svg +=
                        "<line x1=\"\(xpos + 3)\" y1=\"\(ypos + 3)\" x2=\"\(xpos + cell - 5)\" y2=\"\(ypos + cell - 5)\" stroke=\"#c0392b\" stroke-width=\"2\"/>"
                }
            }
        }
        return svg + "</svg>"
    }

    static func htmlTable(_ results: KeepaliveResults) -> String {
        var html =
            "<table><tr><th>keepalive</th><th>energy / h</th><th>wake-ups / h</th><th>NAT expiries / h</th>"
            + "<th>p95 detection</th><th>GOAWAYs</th><th>not viable because</th></tr>"
        for summary in results.summaries {
            let m = summary.metrics
            html +=
                "<tr><td>\(escape(summary.keepalive.label + (summary.keepalive == results.compromise?.keepalive ? " (compromise)" : "")))</td><td>\(escape(joules(m.energyJoulesPerHour)))</td>"
                + "<td>\(String(format: "%.1f", m.promotionsPerHour))</td><td>\(String(format: "%.2f", m.natExpiriesPerHour))</td>"
                + "<td>\(escape(seconds(m.detectionSeconds.p95)))</td><td>\(String(format: "%.2f", m.goaways))</td>"
                + "<td style=\"text-align:left\">\(escape(summary.disqualified.joined(separator: "; ")))</td></tr>"
        }
        return html + "</table>"
    }

    static func verificationTable(_ table: VerificationTable) -> String {
        var html =
            "<h2>Verified live</h2><p class=\"note\">The model against the real grpc-swift client and server through "
            + "the real proxy, played \(escape(String(format: "%g", table.timeScale))) times faster than real time; agreement "
            + "within \(Int(KeepaliveVerification.tolerance * 100))%: \(table.agrees ? "yes" : "<b>no</b>").</p>"
        html += "<table><tr><th>configuration</th><th>figure</th><th>model</th><th>live</th><th>live / model</th></tr>"
        for row in table.rows {
            for figure in row.figures {
                let ratio = figure.model > 0 ? String(format: "%.3f", figure.live / figure.model) : "–"
                let style = VerificationTable.agrees(figure.model, figure.live) ? "" : " style=\"color:#b00\""
                html +=
                    "<tr\(style)><td>\(escape(row.role.rawValue + ": " + row.keepalive.label))</td><td>\(escape(figure.name))</td>"
                    + "<td>\(escape(VerificationTable.number(figure.model)))</td><td>\(escape(VerificationTable.number(figure.live)))</td>"
                    + "<td>\(ratio)</td></tr>"
            }
        }
        return html + "</table>"
    }
}

/// The scatter's detection axis, logarithmic: detection times span from seconds to half an
/// hour, and on a linear axis every viable point (under a minute) sat on the floor. Ticks at
/// 1, 2 and 5 of each decade; a time under the axis's floor is drawn on it.
struct DetectionAxis {
    let low: Double
    let high: Double

    init(_ detections: [Double]) {
        let positive = detections.filter { $0 > 0 }
        low = pow(10, log10(max(positive.min() ?? 1, 1)).rounded(.down))
        high = max(pow(10, log10(max(positive.max() ?? 10, 1)).rounded(.up)), low * 10)
    }

    /// Where `seconds` sits, from 0 (the floor) to 1 (the top).
    func position(_ seconds: Double) -> Double {
        (log10(min(max(seconds, low), high)) - log10(low)) / (log10(high) - log10(low))
    }

    var ticks: [Double] {
        var ticks: [Double] = []
        var decade = low
        while decade <= high {
            ticks += [1, 2, 5].map { $0 * decade }.filter { $0 <= high }
            decade *= 10
        }
        return ticks
    }
}
