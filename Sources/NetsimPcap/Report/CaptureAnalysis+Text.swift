import Foundation
import NetsimCore
import NetsimReport

extension AnalysisBound: CustomStringConvertible {
    public var description: String {
        switch reason {
        case .runStart: "the run's start record"
        case .runEnd: "the run's end record"
        case .until: "--until"
        case .firstPacket: "one promotion before the first packet"
        case .lastTail: "the last packet's tail ended"
        case .firstInterval: "one promotion before the first interval"
        case .lastInterval: "the last interval's end"
        }
    }
}

extension CaptureSummary {
    /// What the radio figures cover, in words: `from the run's start record to the run's end
    /// record (0.0-20.0 s)`.
    public var analysisSpan: String {
        "from \(analysisStart.description) to \(analysisEnd.reason == .lastTail ? "when " : "")\(analysisEnd.description) "
            + "(\(ReportNumber.fixed(analysisStart.seconds, decimals: 1))-\(ReportNumber.fixed(analysisEnd.seconds, decimals: 1)) s)"
    }
}

extension CaptureAnalysis {
    /// The readable report `netsim analyze` prints: summary, radio, flows, periodic
    /// transfers, and the start of the state timeline.
    public func textReport(maximumFlows: Int = 20, maximumTimelineRows: Int = 40) -> String {
        var sections = [captureSection(), radioSection()]
        sections.append(flowSection(maximumFlows: maximumFlows))
        if !servers.isEmpty { sections.append(serverSection(maximumServers: maximumFlows)) }
        if !periodicTransfers.isEmpty { sections.append(periodicSection()) }
        if let timeline = radio.timeline, !timeline.isEmpty {
            sections.append(timelineSection(timeline, maximumRows: maximumTimelineRows))
        }
        return sections.joined(separator: "\n\n")
    }

    func captureSection() -> String {
        captureFacts().map { $0.label.padding(toLength: 9, withPad: " ", startingAt: 0) + $0.value }.joined(separator: "\n")
    }

    /// What the capture held and how it was read, as label and value: the text report's first
    /// section and the HTML summary's first rows.
    func captureFacts() -> [(label: String, value: String)] {
        if let counters { return counterFacts(counters) }
        let summary = capture
        var lines: [(label: String, value: String)] = [
            (
                "Capture",
                "\(summary.file) (\(summary.format), \(summary.linkType)): \(summary.packets) packets over "
                    + "\(ReportNumber.seconds(summary.durationSeconds, decimals: 2))"
            ),
            (
                "Device",
                "\(summary.deviceAddresses.isEmpty ? "none found" : summary.deviceAddresses.joined(separator: ", ")) "
                    + "(\(summary.deviceAddressSource)); \(summary.devicePackets) packets to or from it"
            ),
            ("Radio", "\(summary.radioModel) (\(summary.radioSource))"),
        ]
        var skipped: [String] = []
        if summary.nonIPPackets > 0 { skipped.append("\(summary.nonIPPackets) without IP") }
        if summary.otherHostPackets > 0 { skipped.append("\(summary.otherHostPackets) between other hosts") }
        if summary.undecodablePackets > 0 {
            skipped.append("\(summary.undecodablePackets) undecodable (first: \(summary.firstUndecodable ?? "?"))")
        }
        if !skipped.isEmpty { lines.append(("Skipped", skipped.joined(separator: ", "))) }
        if let readError = summary.readError {
            lines.append(("Broken", "\(readError): the figures cover the \(summary.packets) packets before it"))
        }
        if summary.packetsAfterEnd > 0 {
            lines.append(
                (
                    "Stopped",
                    "at \(ReportNumber.seconds(summary.analysisEnd.seconds, decimals: 2)) (\(summary.analysisEnd.description)): "
                        + "\(summary.packetsAfterEnd) later packets not analyzed"
                ))
        }
        if summary.outOfOrderPackets > 0 {
            lines.append(("Note", "\(summary.outOfOrderPackets) packets are timestamped before one earlier in the file"))
        }
        if summary.deviceEndGuesses > 0 {
            lines.append(
                (
                    "Note",
                    "\(summary.deviceEndGuesses) flows join two ports of the device's address with no single ephemeral port: "
                        + "the higher port was taken as the device's (--device HOST:PORT names it)"
                ))
        }
        return lines
    }

    /// A counter file's facts: its rows and columns, and which radio priced which access.
    private func counterFacts(_ counters: CounterSummary) -> [(label: String, value: String)] {
        let format = counters.format
        var columns = [
            "time '\(format.timeColumn)' (\(counters.timeFormat.rawValue))", "rx '\(format.rxColumn)'", "tx '\(format.txColumn)'",
        ]
        if let access = format.accessColumn { columns.append("access '\(access)'") }
        var lines: [(label: String, value: String)] = [
            (
                "Counters",
                "\(capture.file) (\(format.cumulative ? "cumulative" : "per interval")): \(counters.rows) rows, "
                    + "\(counters.intervals) intervals over \(ReportNumber.seconds(capture.durationSeconds, decimals: 2)), "
                    + "\(counters.trafficIntervals) with traffic, each spread evenly over its interval"
            ),
            ("Columns", columns.joined(separator: ", ").escapingControlCharacters),
            ("Radio", "\(capture.radioModel) (\(capture.radioSource))"),
        ]
        if format.accessColumn != nil {
            let shares = counters.access.map {
                "'\($0.access)' \($0.radioModel) \(ReportNumber.seconds($0.seconds, decimals: 0))"
            }
            lines.append(("Access", shares.joined(separator: ", ")))
        }
        if capture.packetsAfterEnd > 0 {
            lines.append(
                (
                    "Stopped",
                    "at \(ReportNumber.seconds(capture.analysisEnd.seconds, decimals: 2)) (\(capture.analysisEnd.description)): "
                        + "\(capture.packetsAfterEnd) later intervals not priced"
                ))
        }
        return lines
    }

    func radioSection() -> String {
        var lines = ["Radio model \(radio.model), \(capture.analysisSpan)"]
        lines += radioFacts().map { "  " + $0.label.padding(toLength: 13, withPad: " ", startingAt: 0) + $0.value }
        lines.append("")
        var table = TextTable(header: ["STATE", "SECONDS", "SHARE", "ENERGY J"], rightAligned: [1, 2, 3])
        table.rows = stateRows()
        lines.append(table.rendered())
        return lines.joined(separator: "\n")
    }

    /// The radio's figures as label and value, in the text report's order.
    func radioFacts() -> [(label: String, value: String)] {
        let share = radio.durationSeconds > 0 ? radio.wakeSeconds / radio.durationSeconds : 0
        let origins = radio.promotionsByOrigin.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) from \($0.key.rawValue)" }
        return [
            ("duration", ReportNumber.seconds(radio.durationSeconds, decimals: 2)),
            ("wake time", "\(ReportNumber.seconds(radio.wakeSeconds, decimals: 2)) (\(ReportNumber.percent(share, decimals: 1)))"),
            ("promotions", origins.isEmpty ? "none" : origins.joined(separator: ", ")),
            (
                "energy",
                "\(ReportNumber.joules(radio.energyJoules, decimals: 2)), mean power \(ReportNumber.milliwatts(radio.meanPowerMilliwatts, decimals: 1)) "
                    + "(throughput \(ReportNumber.joules(radio.transferEnergyJoules, decimals: 2)), idle \(ReportNumber.joules(idleEnergyJoules, decimals: 2)))"
            ),
            ("bytes", "\(radio.bytes.up) up, \(radio.bytes.down) down (transport payload)"),
        ]
    }

    /// Each state's seconds, share of the duration and energy, in the order the radio walks them.
    func stateRows() -> [[String]] {
        stateOrder().map { state in
            let seconds = radio.secondsByState[state] ?? 0
            return [
                state.rawValue, ReportNumber.fixed(seconds, decimals: 3),
                ReportNumber.percent(radio.durationSeconds > 0 ? seconds / radio.durationSeconds : 0, decimals: 1),
                ReportNumber.fixed(radio.energyJoulesByState[state] ?? 0, decimals: 3),
            ]
        }
    }

    /// States in the order the radio walks them, as the timeline shows them first; states never
    /// entered come last, by name.
    func stateOrder() -> [RadioState] {
        var order: [RadioState] = []
        for segment in radio.timeline ?? [] where !order.contains(segment.state) { order.append(segment.state) }
        for state in radio.secondsByState.keys.sorted(by: RadioState.byName) where !order.contains(state) { order.append(state) }
        return order
    }

    private func flowSection(maximumFlows: Int) -> String {
        guard !flows.isEmpty else { return "Flows: none" }
        var table = TextTable(
            header: ["#", "PROTO", "DEVICE", "REMOTE", "SERVER", "PKTS", "UP B", "DOWN B", "WAKE-UPS", "WAKE S", "ENERGY J", "SHARE"],
            rightAligned: [0, 5, 6, 7, 8, 9, 10, 11])
        for flow in flows.prefix(maximumFlows) {
            table.rows.append([
                "\(flow.id)", flow.transport, flow.device, flow.remote, flow.serverName ?? "-", "\(flow.packets)",
                "\(flow.bytesUp)", "\(flow.bytesDown)", "\(flow.wakeUps)", ReportNumber.fixed(flow.wakeSeconds, decimals: 2),
                ReportNumber.fixed(flow.energyJoules, decimals: 2), ReportNumber.percent(flow.energyShare, decimals: 1),
            ])
        }
        let title =
            flows.count > maximumFlows
            ? "Flows by energy, top \(maximumFlows) of \(flows.count) (all in --format json)"
            : "Flows by energy"
        return title + "; a promotion is charged to the packet that needed it, a tail to the packet before it\n"
            + table.rendered()
    }

    private func serverSection(maximumServers: Int) -> String {
        var table = TextTable(header: ServerReport.header, rightAligned: [2, 3, 4, 5, 6, 7, 8])
        table.rows = servers.prefix(maximumServers).map(\.cells)
        let title =
            servers.count > maximumServers
            ? "Servers by energy, top \(maximumServers) of \(servers.count) (all in --format json)" : "Servers by energy"
        return title + " (flows by name, else address)\n" + table.rendered()
    }

    private func periodicSection() -> String {
        // The columns of `PeriodicTransfer.cells`.
        var table = TextTable(
            header: ["FLOW", "SERVER", "PERIOD S", "REPEATS", "BURSTS/REPEAT", "WAKE S/REPEAT", "J/REPEAT", "WAKE S/H", "J/H", "MEAN MW"],
            rightAligned: [0, 2, 3, 4, 5, 6, 7, 8, 9])
        table.rows = periodicTransfers.map(\.cells)
        return "Periodic transfers (cost per hour at their period)\n" + table.rendered()
    }

    private func timelineSection(_ timeline: [RadioStateSegment], maximumRows: Int) -> String {
        var table = TextTable(header: ["FROM S", "TO S", "STATE"], rightAligned: [0, 1])
        for segment in timeline.prefix(maximumRows) {
            table.rows.append([
                ReportNumber.fixed(segment.start, decimals: 3), ReportNumber.fixed(segment.end, decimals: 3), segment.state.rawValue,
            ])
        }
        let title =
            timeline.count > maximumRows
            ? "State timeline (first \(maximumRows) of \(timeline.count) spans; all in --format json or html)"
            : "State timeline"
        return title + " (seconds from the first packet)\n" + table.rendered()
    }
}

extension ServerReport {
    static let header = ["SERVER", "FLOWS", "PKTS", "UP B", "DOWN B", "WAKE-UPS", "WAKE S", "ENERGY J", "SHARE"]

    /// One row of the servers table, as the text and HTML reports both print it.
    var cells: [String] {
        [
            server, flows.map(String.init).joined(separator: ","), "\(packets)", "\(bytesUp)", "\(bytesDown)", "\(wakeUps)",
            ReportNumber.fixed(wakeSeconds, decimals: 2), ReportNumber.fixed(energyJoules, decimals: 2),
            ReportNumber.percent(energyShare, decimals: 1),
        ]
    }
}

extension PeriodicTransfer {
    /// One row of the periodic-transfers table, as the text and HTML reports both print it:
    /// flow (or flows), server, period, repetitions, bursts per repetition, wake and energy per
    /// repetition and per hour, mean power.
    var cells: [String] {
        [
            flows.map(String.init).joined(separator: ","), serverName ?? remote, ReportNumber.fixed(periodSeconds, decimals: 1),
            "\(repetitions)",
            ReportNumber.fixed(burstsPerRepetition, decimals: 1), ReportNumber.fixed(wakeSecondsPerRepetition, decimals: 2),
            ReportNumber.fixed(energyJoulesPerRepetition, decimals: 2), ReportNumber.fixed(wakeSecondsPerHour, decimals: 0),
            ReportNumber.fixed(energyJoulesPerHour, decimals: 0), ReportNumber.fixed(meanPowerMilliwatts, decimals: 1),
        ]
    }
}
