import Foundation
import NetsimCore
import NetsimInput
import NetsimModel
import NetsimProxy
import NetsimReport
import NetsimTestSupport
import Testing

@testable import NetsimBench

/// The reports' parts, from model runs and hand-made inputs: what `LiveReportRenderingTests`
/// does not need a live run for.
@Suite(.computes) struct ReportRenderingTests {
    /// Regression: states with the same time (5G SA's INACTIVE and IDLE, which REST polling
    /// never lets the radio reach) were listed in hash order, so two identical runs printed
    /// different Markdown (this failed about every other run). Ties now go by name.
    @Test func timeByStateListsTiesByName() throws {
        var configuration = BenchConfiguration(profile: try ProfileCatalog.builtin(named: "nr-sa"))
        configuration.transports = [.rest]
        configuration.devices = 3
        configuration.duration = 3600
        let report = try #require(ModelBenchRunner.run(configuration) { _ in }.report.transports[.rest])
        #expect(report.perDevice.secondsByState[.idle]?.mean == report.perDevice.secondsByState[.inactive]?.mean)
        let line = try #require(MarkdownReport.details(.rest, report).first { $0.hasPrefix("- Time by state per device:") })
        #expect(line.hasSuffix("IDLE 0.0 ± 0.0 s, INACTIVE 0.0 ± 0.0 s"), "\(line)")
    }

    /// SIGTERM during a long model bench ended it with no report. Stopped between
    /// batches, it reports the devices played, every transport among them, marked partial.
    @Test func aStoppedModelBenchReportsWhatWasPlayedMarkedPartial() throws {
        var configuration = BenchConfiguration(profile: try ProfileCatalog.builtin(named: "lte-good"))
        configuration.devices = 100
        configuration.duration = 60
        let result = try ModelBenchRunner.run(configuration, shouldStop: { true }, onProgress: { _ in })
        #expect(result.report.partial == true)
        #expect(result.report.devicesPlayed == 64)
        #expect(result.report.transports.keys.sorted() == [.rest, .ws, .grpc])
        let json = try JSONSerialization.jsonObject(with: try result.report.json()) as? [String: Any]
        #expect(json?["partial"] as? Bool == true)
        let line = "Partial: the bench was stopped (SIGINT or SIGTERM) after 64 of 300 devices had played"
        #expect(MarkdownReport.render(result).contains("**" + line))
        #expect(HTMLReport.render(result).contains("<p><strong>" + line))

        configuration.devices = 2
        let finished = try ModelBenchRunner.run(configuration, shouldStop: { true }, onProgress: { _ in })
        #expect(finished.report.partial == nil && finished.report.devicesPlayed == nil)
        #expect(!MarkdownReport.render(finished).contains("Partial"))
    }

    /// The engine and the transports are types in Swift and their names in the JSON: `engine` is
    /// `live` or `model` (absent from reports older than the model engine, which read as nil and
    /// are written back without it), and `transports` an object keyed `grpc`, `rest`, `ws`.
    @Test func theEngineAndTheTransportsAreTheirNamesInTheJSON() throws {
        var report = BenchReport.empty
        report.engine = .model
        let (transport, _) = BenchAnalysis.summarize([])
        for key in BenchTransport.allCases { report.transports[key] = transport }
        let text = String(decoding: try report.json(), as: UTF8.self)
        #expect(text.contains(#""engine" : "model","#))
        let keys = ["grpc", "rest", "ws"].compactMap { text.range(of: "\n    \"\($0)\" : {\n")?.lowerBound }
        #expect(keys.count == 3 && keys == keys.sorted(), "an object, its keys sorted")
        #expect(try JSONDecoder().decode(BenchReport.self, from: report.json()) == report)

        var object = try #require(try JSONSerialization.jsonObject(with: report.json()) as? [String: Any])
        object["engine"] = nil
        let older = try JSONDecoder().decode(BenchReport.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(older.engine == nil && older.transports == report.transports)
        #expect(!String(decoding: try older.json(), as: UTF8.self).contains(#""engine""#))
    }

    /// lte-tunnel's `set` at 40 s and `outage` at 45 s printed over each other on a 2-minute
    /// timeline: a label that would overlap the one before goes a line higher, and a later one
    /// that clears the first line goes back to it.
    @Test func eventLabelsCloseTogetherGoOnSeparateLines() {
        #expect(RadioTimelineChart.labelLanes([(100, "set"), (110, "outage"), (200, "handover")]) == [0, 1, 0])
        #expect(
            RadioTimelineChart.labelLanes([(100, "outage"), (101, "outage"), (102, "outage"), (103, "outage"), (104, "outage")]) == [
                0, 1, 2, 3, 0,
            ])
        let svg = SVGCharts.radioTimeline(
            [], events: [DeviceEvent(at: 40, kind: .set), DeviceEvent(at: 45, kind: .outage, mode: .stall, durationSeconds: 30)],
            duration: 120)
        #expect(svg.contains(">set<") && svg.contains(">outage<"))
    }

    /// The charts: an outage is hatched over the strips (the state under it shows), a
    /// `set` is a solid line in its own colour, and every axis speaks one unit.
    @Test func timelinesHatchOutagesOverTheStatesAndAxesSpeakOneUnit() throws {
        let strip = [RadioStateSegment(state: .connected, start: 0, end: 120)]
        let svg = SVGCharts.radioTimeline(
            [strip], events: [DeviceEvent(at: 40, kind: .set), DeviceEvent(at: 45, kind: .outage, mode: .stall, durationSeconds: 30)],
            duration: 120)
        let stripAt = try #require(svg.range(of: "fill=\"\(RadioState.connected.chartColor)\""))
        let hatchAt = try #require(svg.range(of: "fill=\"url(#outage-hatch)\""))
        #expect(stripAt.lowerBound < hatchAt.lowerBound, "the hatch is drawn over the strip")
        #expect(svg.contains("stroke=\"#0571b0\" stroke-width=\"1.5\"/>"), "a set is a solid blue line")
        let labels = svg.components(separatedBy: "text-anchor=\"middle\">").dropFirst().map { $0.prefix { $0 != "<" } }
        #expect(!labels.isEmpty && labels.allSatisfy { $0.hasSuffix(" s") }, "\(labels)")

        #expect(SVGTimeAxis.label(90, step: 15, span: 120) == "90 s")
        #expect(SVGTimeAxis.label(120, step: 120, span: 1800) == "2 min")
        #expect(SVGTimeAxis.label(1800, step: 1800, span: 6 * 3600) == "0.5 h")
        #expect(SVGTimeAxis.label(0.4, step: 0.2, span: 2) == "0.4 s")

        let curve = (1...100).map { CDFPoint(milliseconds: Double($0) * 200, fraction: Double($0) / 100) }
        let cdf = SVGCharts.latencyCDF([(.ws, curve)])
        #expect(!cdf.contains(" ms<"), "an axis reaching 20 s is in seconds throughout")
        #expect(cdf.contains(">10 s<") && cdf.contains(">0.1 s<"))
        #expect(
            cdf.contains(">p50: <tspan fill=\"#1f77b4\">WebSocket 10.0 s</tspan>; p95: <tspan fill=\"#1f77b4\">WebSocket 19.0 s</tspan><"))
    }

    @Test func wireEstimateAddsHeadersAcksAndHandshakes() {
        var segments = SegmentCounts(up: .init(chunks: 2, segments: 3), down: .init(chunks: 1, segments: 1))
        let estimate = WireEstimate(payload: .init(up: 2000, down: 100), segments: segments, connections: 1)
        // Up: payload + 3 headers + 1 ACK for the one down segment + SYN, ACK and close.
        #expect(estimate.up == 2000 + 52 * (3 + 1) + 60 + 52 + 104)
        // Down: payload + 1 header + 3 ACKs for up's (3 + 2) / 2 + SYN-ACK and close.
        #expect(estimate.down == 100 + 52 * (1 + 3) + 60 + 104)
        segments.up.chunks = 0
        #expect(segments.up.acknowledgements == 2)
    }
}

/// The three reports of one short live run on an LTE radio with an outage, and the same report
/// shown from its saved JSON: a live bench on the wall clock (3 s), so not among the computing
/// tests.
@Suite(.serialized, .playsLive(.benches)) struct LiveReportRenderingTests {
    static func shortRun() async throws -> BenchResult {
        var lte = LTERadioParameters()
        lte.longDRXTime = 1
        let link = LinkParameters(capacity: .rate(bitsPerSecond: 5e6), delay: 0.02)
        let profile = Profile(
            name: "short-lte", description: "LTE <radio> & a short outage",
            networks: [Network(name: "lte", radio: .lte(lte), up: link, down: link)],
            start: "lte", timeline: Timeline(events: [TimelineEvent(at: 1, kind: .outage(duration: 0.5, mode: .stall))]))
        var configuration = BenchEndToEndTests.configuration(profile, duration: 3)
        configuration.devices = 1
        return try await BenchRunner.run(configuration, logger: BenchEndToEndTests.logger) { _ in }
    }

    @Test func markdownJSONAndHTML() async throws {
        let result = try await Self.shortRun()

        let markdown = MarkdownReport.render(result)
        #expect(markdown.contains("| | REST polling | WebSocket | gRPC bidi |"))
        for row in [
            "Bandwidth per device, KB/min", "p95 latency", "Delivery, events", "Reconnects", "Radio wake time", "Energy per device",
        ] {
            #expect(markdown.contains("| \(row)"), "row \(row)")
        }
        #expect(markdown.contains("### Profile") && markdown.contains("### Workload and clients"))

        let json = try JSONSerialization.jsonObject(with: result.report.json()) as! [String: Any]
        #expect(json["profile"] as? String == "short-lte")
        #expect(json["seed"] as? Int == 1)
        #expect(json["durationSeconds"] as? Double == 3)
        #expect(Set((json["drain"] as! [String: Any]).keys) == ["limitSeconds", "seconds"])
        let transports = json["transports"] as! [String: [String: Any]]
        #expect(Set(transports.keys) == ["rest", "ws", "grpc"])
        for (name, transport) in transports {
            #expect(Set((transport["bytes"] as! [String: Any]).keys).isSuperset(of: ["up", "down", "perMinute"]), "\(name)")
            #expect(Set((transport["latencyMs"] as! [String: Any]).keys).isSuperset(of: ["p50", "p95", "p99", "max"]))
            #expect(
                Set((transport["events"] as! [String: Any]).keys).isSuperset(of: ["sent", "delivered", "lost", "inFlight", "duplicated"]))
            #expect(transport["reconnects"] is Int)
            let radio = transport["radioFleetTotal"] as! [String: Any]
            #expect(radio["model"] as? String == "lte")
            #expect(Set(radio.keys).isSuperset(of: ["wakeSeconds", "promotions", "energyJoules", "meanPowerMilliwatts", "secondsByState"]))
        }
        // The report decodes back to itself: the schema is stable both ways.
        #expect(try JSONDecoder().decode(BenchReport.self, from: result.report.json()) == result.report)

        let html = HTMLReport.render(result)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.hasSuffix("</html>\n"))
        #expect(html.components(separatedBy: "<svg ").count - 1 == 6, "3 timelines, 2 CDFs, 1 bar chart")
        #expect(html.components(separatedBy: "<svg ").count == html.components(separatedBy: "</svg>").count)
        #expect(html.contains("LTE &lt;radio&gt; &amp; a short outage"))
        #expect(!html.contains("<script"))
        #expect(html.contains(RadioState.promotion.chartColor) && html.contains(">outage</text>"))
    }

    /// `netsim report show` of a bench's JSON: the Markdown the bench wrote up to its profile and
    /// settings, which the JSON keeps less of; the HTML without the charts the JSON cannot draw.
    @Test func aSavedReportRendersAsTheBenchWroteItLessWhatItsJSONDoesNotKeep() async throws {
        let result = try await Self.shortRun()
        let saved = try JSONDecoder().decode(BenchReport.self, from: result.report.json())
        let written = MarkdownReport.render(result)
        let shown = MarkdownReport.render(saved: saved)
        let tables = { (markdown: String) in markdown.components(separatedBy: "### Profile")[0] }
        #expect(tables(shown) == tables(written))
        #expect(shown.contains("**short-lte** (`netsim profiles show short-lte`"))
        // The workload's lines are the bench's own; the client settings are their source only.
        let workloadLines = written.split(separator: "\n").filter { $0.hasPrefix("- Server events") || $0.hasPrefix("- Client messages") }
        #expect(workloadLines.count == 2 && workloadLines.allSatisfy { shown.contains($0) })
        #expect(shown.contains("- Client settings: \(result.clientSettings.source)"))

        let html = HTMLReport.render(saved: saved)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.hasSuffix("</html>\n"))
        #expect(html.components(separatedBy: "<svg ").count - 1 == 1, "the bytes-per-minute chart only")
        #expect(html.contains("Not in the JSON report"))
        #expect(html.contains(HTMLReport.render(result).components(separatedBy: "<h2>")[0]), "the same table")
    }
}
