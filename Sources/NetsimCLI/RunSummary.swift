import Foundation
import NetsimCore
import NetsimProxy

/// How `netsim run` shows its status and results to a person, and writes its JSON report.
enum RunSummary {
    static func statusLine(_ status: ProxyStatus, duration: Double?) -> String {
        var elapsed = String(format: "%.1fs", status.elapsedSeconds)
        if let duration { elapsed += " / " + Quantity.formatDuration(duration) }
        var line = "\(elapsed) | \(status.network) | radio \(status.radioState.reportName) | \(status.openConnections) conn"
        line += " | up \(Quantity.formatDataSize(Double(status.bytes.up))) down \(Quantity.formatDataSize(Double(status.bytes.down)))"
        if status.disconnected, let event = status.lastEvent {
            line += " | \(event.kind)\(event.mode.map { " (\($0))" } ?? "") in progress"
        }
        return line
    }

    /// The run's summary: a one-phone run's in full; with several phones, a line per phone
    /// and their totals (each phone's in full is in its JSON report).
    static func render(_ reports: [RunReport], stoppedBy reason: String) -> String {
        guard reports.count > 1, let first = reports.first else { return reports.first.map { render($0, stoppedBy: reason) } ?? "" }
        var lines = [
            "netsim run: profile \(first.profile), \(reports.count) phones (seeds \(first.seed) to \(reports[reports.count - 1].seed)), "
                + "\(String(format: "%.1f", first.durationSeconds)) s (stopped by \(reason))",
            "phone  connections  up          down        awake (s)  promotions  energy (J)",
        ]
        func line(_ name: String, _ opened: Int, _ bytes: PerDirection<Int>, _ awake: Double, _ promotions: Int, _ energy: Double) -> String
        {
            [
                name.padding(toLength: 7, withPad: " ", startingAt: 0), String(opened).padding(toLength: 13, withPad: " ", startingAt: 0),
                Quantity.formatDataSize(Double(bytes.up)).padding(toLength: 12, withPad: " ", startingAt: 0),
                Quantity.formatDataSize(Double(bytes.down)).padding(toLength: 12, withPad: " ", startingAt: 0),
                String(format: "%.1f", awake).padding(toLength: 11, withPad: " ", startingAt: 0),
                String(promotions).padding(toLength: 12, withPad: " ", startingAt: 0), String(format: "%.2f", energy),
            ].joined()
        }
        for report in reports {
            lines.append(
                line(
                    "\(report.phone ?? 1)", report.connections.opened, report.bytes, report.radio.wakeSeconds, report.radio.promotions,
                    report.radio.energyJoules))
        }
        lines.append(
            line(
                "all", reports.map(\.connections.opened).reduce(0, +),
                PerDirection(up: reports.map(\.bytes.up).reduce(0, +), down: reports.map(\.bytes.down).reduce(0, +)),
                reports.map(\.radio.wakeSeconds).reduce(0, +), reports.map(\.radio.promotions).reduce(0, +),
                reports.map(\.radio.energyJoules).reduce(0, +)))
        // Each phone's gates, and the wrapped command's once.
        var gates: [GateOutcome] = []
        for gate in reports.flatMap({ $0.gates ?? [] }) where !gates.contains(gate) { gates.append(gate) }
        if !gates.isEmpty { lines += gateLines(gates) }
        return lines.joined(separator: "\n")
    }

    /// Where phone `phone`'s report goes when the run's is `path`: `path` itself in a one-phone
    /// run, else `.phone-K` before its extension (`run.json` becomes `run.phone-2.json`).
    static func path(_ path: String, phone: Int?) -> String {
        guard let phone else { return path }
        let url = URL(fileURLWithPath: path)
        let stem = url.deletingPathExtension().lastPathComponent
        let named = url.pathExtension.isEmpty ? "\(stem).phone-\(phone)" : "\(stem).phone-\(phone).\(url.pathExtension)"
        return (path as NSString).deletingLastPathComponent.isEmpty
            ? named : ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(named)
    }

    static func render(_ report: RunReport, stoppedBy reason: String) -> String {
        let radio = report.radio
        var lines = [
            "netsim run: profile \(report.profile), seed \(report.seed), \(String(format: "%.1f", report.durationSeconds)) s (stopped by \(reason))"
        ]
        // A UDP-only run opened no TCP connection: its figures are datagrams, not "0 opened".
        if report.connections.opened > 0 || report.datagrams == nil {
            lines += [
                "connections: \(report.connections.opened) opened, \(report.connections.closed) closed, "
                    + "\(report.connections.reset) reset, \(report.connections.blackholed) blackholed",
                "bytes delivered: \(Quantity.formatDataSize(Double(report.bytes.up))) up, "
                    + "\(Quantity.formatDataSize(Double(report.bytes.down))) down",
            ]
        } else {
            lines.append("UDP only: no TCP connections")
        }
        if let datagrams = report.datagrams {
            let direction = { (name: String, counts: DatagramCounts) in
                let dropped = counts.dropped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.rawValue)" }
                return "\(name) \(counts.delivered) of \(counts.sent) delivered (\(Quantity.formatDataSize(Double(counts.bytesDelivered))))"
                    + (dropped.isEmpty ? "" : ", dropped: " + dropped.joined(separator: ", "))
            }
            lines.append(
                "UDP datagrams: \(datagrams.flows) flow(s), \(datagrams.remappings) NAT remapping(s); "
                    + direction("up", datagrams.counts.up) + "; " + direction("down", datagrams.counts.down))
        }
        if radio.model != RadioTechnology.none.rawValue {
            let share = radio.durationSeconds > 0 ? radio.wakeSeconds / radio.durationSeconds * 100 : 0
            lines.append(
                "radio (\(radio.model)): awake \(String(format: "%.1f", radio.wakeSeconds)) s (\(String(format: "%.0f", share))%), "
                    + "\(radio.promotions) promotion(s), \(String(format: "%.2f", radio.energyJoules)) J, "
                    + "mean \(String(format: "%.0f", radio.meanPowerMilliwatts)) mW")
            let states = radio.secondsByState.filter { $0.value > 0 }
                .sorted { ($0.value, $1.key.rawValue) > ($1.value, $0.key.rawValue) }
                .map { "\($0.key.rawValue) \(String(format: "%.1f", $0.value)) s" }
            if let shares = radio.byRadio {
                lines.append(
                    "  by network: "
                        + shares.map { share in
                            "\(share.model) awake \(String(format: "%.1f", share.wakeSeconds)) s, \(share.promotions) promotion(s), "
                                + "\(String(format: "%.2f", share.energyJoules)) J"
                        }.joined(separator: "; "))
            }
            lines.append("  time by state: " + states.joined(separator: ", "))
            let waits = report.radioLatency
            // "Waited" is any wait (radio, outage, queue: the per-destination lines); the radio's
            // part alone is "delayed by the radio".
            lines.append(
                "  radio latency: \(waits.delayedChunks) of \(waits.chunks) chunk(s) delayed by the radio; paging "
                    + "\(String(format: "%.2f", waits.pagingSeconds)) s, promotion \(String(format: "%.2f", waits.promotionSeconds)) s, "
                    + "DRX \(String(format: "%.2f", waits.drxSeconds)) s in all")
            if !radio.heldAtEnd.isEmpty {
                let held = { (count: RadioReport.HeldCount) in
                    "\(count.chunks) chunk(s), \(Quantity.formatDataSize(Double(count.bytes)))"
                }
                lines.append(
                    "  held at the end (not yet on air, not counted): up \(held(radio.heldAtEnd.up)), "
                        + "down \(held(radio.heldAtEnd.down))")
            }
        } else {
            lines.append("radio: none")
        }
        if let delays = report.chunkDelays {
            lines.append("delay added per chunk (median / 95th percentile / max):")
            for (name, figures) in [("up", delays.up), ("down", delays.down)] where figures.chunks > 0 {
                lines.append(
                    "  \(name): \(Self.delays(figures.added)) over \(figures.chunks) chunk(s); "
                        + "radio \(Self.delays(figures.radioWait)), link \(Self.delays(figures.linkWait))")
            }
        }
        if let readerWait = report.readerWait {
            for (name, figures) in [("up", readerWait.up), ("down", readerWait.down)] where figures.chunks > 0 {
                lines.append(
                    "waited for the receiving app to read (not the link), \(name): \(figures.chunks) chunk(s), "
                        + "\(Quantity.formatDataSize(Double(figures.bytes))), \(String(format: "%.2f", figures.seconds)) s in all, "
                        + "longest \(String(format: "%.2f", figures.maxSeconds)) s")
            }
        }
        if let destinations = report.destinations, !destinations.isEmpty {
            lines.append("what chunks waited for, per destination (seconds, and how many chunks):")
            for figures in destinations.prefix(Self.destinationsListed) {
                let waits = WaitCause.allCases.compactMap { cause in figures.waits[cause].map { "\(cause.title) \($0.cell)" } }
                lines.append(
                    "  \(figures.destination.escapingControlCharacters): \(figures.waitedChunks) of "
                        + "\(figures.chunks.up + figures.chunks.down) chunk(s) waited"
                        + (waits.isEmpty ? "" : "; " + waits.joined(separator: ", ")))
            }
            if destinations.count > Self.destinationsListed {
                lines.append("  ... and \(destinations.count - Self.destinationsListed) more in the JSON report")
            }
        }
        if let gates = report.gates, !gates.isEmpty { lines += gateLines(gates) }
        if let tests = report.tests, !tests.isEmpty {
            lines.append("which test woke the radio (promotions, awake s, J):")
            let outside = tests.last { $0.test == TestRadioFigures.outside }
            let ranked = RunReport.ranked(tests.filter { $0.test != TestRadioFigures.outside })
            for row in ranked.prefix(Self.testsListed) + (outside.map { [$0] } ?? []) {
                lines.append(
                    "  \(row.test.escapingControlCharacters): \(row.promotions), \(String(format: "%.1f", row.wakeSeconds)), "
                        + String(format: "%.2f", row.energyJoules))
            }
            if ranked.count > Self.testsListed { lines.append("  ... and \(ranked.count - Self.testsListed) more in the JSON report") }
        }
        if !report.events.isEmpty {
            lines.append("events:")
            for event in report.events.prefix(20) { lines.append("  \(event)") }
            let total = report.events.count + report.eventsNotListed
            if total > 20 {
                let listed = report.eventsNotListed > 0 ? " (the first \(report.events.count) listed)" : ""
                lines.append("  ... and \(total - 20) more in the JSON report\(listed)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The gates section of the summary: each gate, its threshold, what was measured and its
    /// verdict, then "N of M gates failed".
    static func gateLines(_ gates: [GateOutcome]) -> [String] {
        ["gates:"]
            + gates.map { gate in
                "  \(gate.passed ? "held  " : "FAILED") \(gate.gate.escapingControlCharacters)"
                    + (gate.threshold.map { " (\($0))" } ?? "") + ": "
                    + gate.measured.split(separator: "\n").joined(separator: "; ").escapingControlCharacters
            } + [GateOutcome.tally(gates)]
    }

    /// The test cases the summary lists, most promotions first; the JSON report has them all.
    static let testsListed = 10

    /// The destinations the summary lists; the JSON report has them all.
    static let destinationsListed = 5

    /// `12 / 240 / 610 ms`: a delay's median, 95th percentile and maximum.
    private static func delays(_ summary: DelaySummary) -> String {
        let milliseconds = [summary.p50Seconds, summary.p95Seconds, summary.maxSeconds].map { String(format: "%.0f", $0 * 1000) }
        return milliseconds.joined(separator: " / ") + " ms"
    }

    static func json(_ report: RunReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(report)
    }
}
