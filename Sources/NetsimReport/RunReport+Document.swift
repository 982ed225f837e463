import Foundation
import NetsimCore

extension RunReport {
    /// The run report for people: what `netsim report show` prints as Markdown (a CI job
    /// summary) or HTML, from the JSON alone.
    /// Which test woke the radio: the test cases by promotions, then energy, the first
    /// `testsListed` of them (the JSON has every one), and what fell outside every test.
    func testBlocks(_ tests: [TestRadioFigures]) -> [ReportDocument.Block] {
        let outside = tests.last { $0.test == TestRadioFigures.outside }
        let ranked = Self.ranked(tests.filter { $0.test != TestRadioFigures.outside })
        let rows = (ranked.prefix(Self.testsListed) + (outside.map { [$0] } ?? [])).map { row in
            [
                row.test, row.startSeconds.map { String(format: "%.1f", $0) } ?? "-", row.seconds.map { String(format: "%.2f", $0) } ?? "-",
                "\(row.promotions)", String(format: "%.1f", row.wakeSeconds), String(format: "%.2f", row.energyJoules),
            ]
        }
        var blocks: [ReportDocument.Block] = [
            .heading("Which test woke the radio"),
            .table(header: ["test case", "start (s into the run)", "seconds", "promotions", "awake (s)", "energy (J)"], rows: rows),
        ]
        if ranked.count > Self.testsListed {
            blocks.append(.paragraph("... and \(ranked.count - Self.testsListed) more test cases in the JSON report (tests)."))
        }
        return blocks
    }

    /// The test cases a report lists; the JSON has them all.
    public static let testsListed = 50

    /// Test cases by promotions, then energy, then name.
    public static func ranked(_ tests: [TestRadioFigures]) -> [TestRadioFigures] {
        tests.sorted { ($0.promotions, $0.energyJoules, $1.test) > ($1.promotions, $1.energyJoules, $0.test) }
    }

    public var document: ReportDocument {
        var document = ReportDocument(
            title: "netsim run: profile \(profile), seed \(seed), " + String(format: "%.1f s", durationSeconds),
            blocks: [.paragraph("netsim \(netsimVersion). Every figure ends where the run ended (docs/run-report.md).")])
        if let gates, !gates.isEmpty { document.blocks += GateOutcome.section(gates) }
        if let tests, !tests.isEmpty { document.blocks += testBlocks(tests) }
        document.blocks.append(
            .table(
                header: ["", "figure"],
                rows: [
                    ["connections opened", "\(connections.opened)"],
                    ["connections closed", "\(connections.closed)"],
                    ["connections reset by the profile", "\(connections.reset)"],
                    ["connections blackholed by the profile", "\(connections.blackholed)"],
                    ["bytes delivered up", Quantity.formatDataSize(Double(bytes.up))],
                    ["bytes delivered down", Quantity.formatDataSize(Double(bytes.down))],
                ]))
        document.blocks += radioBlocks + destinationBlocks
        if let chunkDelays {
            let milliseconds = { (summary: DelaySummary) in
                [summary.p50Seconds, summary.p95Seconds, summary.maxSeconds].map { String(format: "%.1f", $0 * 1000) }
                    .joined(separator: " / ")
            }
            document.blocks += [
                .heading("Delay added per chunk (ms: median / 95th percentile / max)"),
                .table(
                    header: ["direction", "chunks", "whole delay", "radio wait", "link wait"],
                    rows: [("up", chunkDelays.up), ("down", chunkDelays.down)].map { name, figures in
                        [
                            name, "\(figures.chunks)", milliseconds(figures.added), milliseconds(figures.radioWait),
                            milliseconds(figures.linkWait),
                        ]
                    }),
            ]
        }
        if !events.isEmpty {
            document.blocks += [.heading("Events"), .list(events.map { "\($0)" })]
            if eventsNotListed > 0 { document.blocks.append(.paragraph("\(eventsNotListed) more, counted in eventCounts, not listed.")) }
        }
        return document
    }

    /// Per destination, what its chunks waited for: the longest waits first.
    private var destinationBlocks: [ReportDocument.Block] {
        guard let destinations, !destinations.isEmpty else { return [] }
        let causes = WaitCause.allCases
        return [
            .heading("What chunks waited for, per destination (seconds in all, and how many chunks)"),
            .table(
                header: ["destination", "connections", "chunks up", "chunks down", "waited"] + causes.map(\.title),
                rows: destinations.map { figures in
                    [
                        figures.destination, "\(figures.connections)", "\(figures.chunks.up)", "\(figures.chunks.down)",
                        "\(figures.waitedChunks)",
                    ] + causes.map { cause in figures.waits[cause].map(\.cell) ?? "" }
                }),
        ]
    }

    private var radioBlocks: [ReportDocument.Block] {
        guard radio.model != RadioTechnology.none.rawValue else {
            return [.heading("Radio"), .paragraph("none: the profile models no radio")]
        }
        let awakeShare = radio.durationSeconds > 0 ? radio.wakeSeconds / radio.durationSeconds * 100 : 0
        let byState = radio.secondsByState.sorted { ($0.value, $1.key.rawValue) > ($1.value, $0.key.rawValue) }
        return [
            .heading("Radio (\(radio.model))"),
            .table(
                header: ["", "figure"],
                rows: [
                    ["awake", String(format: "%.1f s (%.0f%%)", radio.wakeSeconds, awakeShare)],
                    ["promotions", "\(radio.promotions)"],
                    ["energy", String(format: "%.2f J", radio.energyJoules)],
                    ["mean power", String(format: "%.0f mW", radio.meanPowerMilliwatts)],
                    ["chunks the radio delayed", "\(radioLatency.delayedChunks) of \(radioLatency.chunks)"],
                    [
                        "paging, promotion and DRX waits",
                        String(
                            format: "%.2f, %.2f and %.2f s", radioLatency.pagingSeconds, radioLatency.promotionSeconds,
                            radioLatency.drxSeconds),
                    ],
                ]),
            .table(
                header: ["state", "seconds", "joules"],
                rows: byState.map { state, seconds in
                    [state.rawValue, String(format: "%.1f", seconds), String(format: "%.2f", radio.energyJoulesByState[state] ?? 0)]
                }),
        ] + timelineBlocks
    }

    /// The radio's states over the run, with the timeline's events over them.
    private var timelineBlocks: [ReportDocument.Block] {
        guard let timeline = radio.timeline, !timeline.isEmpty else { return [] }
        var blocks: [ReportDocument.Block] = [
            .figure(
                RadioTimelineChart.figure(
                    [.init(label: "radio", segments: timeline)], events: events, duration: durationSeconds, width: 900,
                    caption: "The radio's state over the run; outages and handover gaps hatched, events marked."))
        ]
        if timeline.count >= StateTimelineRecorder.segmentLimit, let last = timeline.last {
            blocks.append(
                .paragraph(
                    "The timeline lists the first \(timeline.count) spans, to \(Quantity.formatDuration(last.end)); the figures above cover the whole run."
                ))
        }
        return blocks
    }
}

extension WaitCause {
    /// The column title in reports.
    public var title: String {
        switch self {
        case .promotion: "promotion"
        case .paging: "paging"
        case .drx: "DRX"
        case .outage: "outage"
        case .queue: "queue"
        }
    }
}

extension WaitFigures {
    /// `0.78 s (3)`: seconds in all, and the chunks that waited; under 0.1 s in milliseconds.
    public var cell: String {
        seconds >= 0.1 ? String(format: "%.2f s (%d)", seconds, chunks) : String(format: "%.1f ms (%d)", seconds * 1000, chunks)
    }
}
