import Foundation
import Testing

@testable import NetsimCore

/// The run report as people read it (`netsim report show`), and the one renderer of Markdown and
/// HTML it is written with.
@Suite struct ReportDocumentTests {
    /// A run of one LTE phone: one promotion, two chunks up, one down.
    func runReport() -> RunReport {
        let network = Network(
            name: "lte", radio: .lte(LTERadioParameters()), up: LinkParameters(delay: 0.02), down: LinkParameters(delay: 0.05))
        let profile = Profile(name: "my|lte", description: "", networks: [network], start: "lte")
        var model = DeviceModel(profile: profile, seed: 1, recordsChunkDelays: true)
        let connection = model.openConnection(at: 0)
        _ = model.send(100, .up, on: connection, at: 30)
        _ = model.send(100, .up, on: connection, at: 30.3)
        _ = model.send(100, .down, on: connection, at: 30.31)
        return RunReport(
            netsimVersion: "0.1.0", profile: profile.name, seed: 7, durationSeconds: 60,
            connections: ConnectionCounters(opened: 1, closed: 1),
            bytes: PerDirection(up: 200, down: 100), segments: SegmentCounts(), radio: model.radioReport(until: 60),
            radioLatency: model.radioWaits(until: 60), chunkDelays: model.chunkDelays(until: 60), events: [], eventCounts: [:],
            eventsNotListed: 0)
    }

    @Test func aRunReportShowsItsFiguresRadioAndPerChunkDelays() {
        let markdown = runReport().document.markdown
        #expect(markdown.hasPrefix("## netsim run: profile my\\|lte, seed 7, 60.0 s\n"), "a | in a name does not split a cell")
        #expect(markdown.contains("| connections opened | 1 |"))
        #expect(markdown.contains("| promotions | 1 |"))
        // Up: 280 ms then 20 ms (the promotion, then the link); down: the link's 50 ms. The 95th
        // percentile is its bucket's (three significant digits: 279.8), the maximum exact.
        #expect(markdown.contains("| up | 2 | 20.0 / 279.8 / 280.0 | 0.0 / 260.0 / 260.0 | 20.0 / 20.0 / 20.0 |"), "\(markdown)")
        #expect(markdown.contains("| down | 1 | 50.0 / 50.0 / 50.0 | 0.0 / 0.0 / 0.0 | 50.0 / 50.0 / 50.0 |"), "\(markdown)")
        #expect(!markdown.contains("### Events"))
    }

    @Test func htmlAndMarkdownEscapeWhatAReportCarries() {
        let document = ReportDocument(
            title: "a <b>name</b>",
            blocks: [.paragraph("line\u{1B}[31m *bold* [link](x)"), .table(header: ["k", "v"], rows: [["a|b", "<i>"]])])
        let markdown = document.markdown
        #expect(markdown.contains(#"line\u{1B}\[31m \*bold\* \[link\](x)"#), "\(markdown)")
        #expect(markdown.contains(#"| a\|b | \<i\> |"#))
        let html = document.html
        #expect(html.contains("<h1>a &lt;b&gt;name&lt;/b&gt;</h1>"))
        #expect(html.contains("<tr><th>a|b</th><td>&lt;i&gt;</td></tr>"))
        #expect(!html.contains("\u{1B}"))
    }
}
