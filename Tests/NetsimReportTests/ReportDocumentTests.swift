import Foundation
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimReport

/// The run report as people read it (`netsim report show`), and the one renderer of Markdown and
/// HTML it is written with.
@Suite(.computes) struct ReportDocumentTests {
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

    /// A failed gate's row stands out in HTML, a held one's does not; Markdown keeps the plain
    /// table (the verdict says FAILED).
    @Test func aFailedGatesRowStandsOutInHTML() {
        let outcomes = [
            GateOutcome(gate: "ws.events.lost > 0", threshold: "fails if > 0", passed: true, measured: "ws.events.lost = 0", failure: nil),
            GateOutcome(
                gate: "grpc.latencyMs.p95 > 300", threshold: "fails if > 300", passed: false, measured: "grpc.latencyMs.p95 = 347",
                failure: "347 > 300"),
        ]
        let html = GateOutcome.html(outcomes).joined(separator: "\n")
        let rows = html.split(separator: "\n").filter { $0.contains("<td>") }
        #expect(rows.count == 2)
        #expect(rows.first?.hasPrefix("<tr><th>ws.events.lost &gt; 0</th>") == true, "\(html)")
        #expect(rows.last?.hasPrefix(#"<tr class="failing""#) == true && rows.last?.contains("<td>FAILED</td>") == true, "\(html)")
        #expect(!GateOutcome.markdown(outcomes).joined().contains("failing"))
    }

    /// A wrapped command's words, as a shell reads them back.
    @Test func aCommandIsNamedAsAShellReadsItBack() {
        #expect(["make", "test"].shellQuoted == "make test")
        #expect(["sh", "-c", "sleep 1"].shellQuoted == "sh -c 'sleep 1'")
        #expect(["echo", "it's", ""].shellQuoted == #"echo 'it'\''s' ''"#)
        #expect(["swift", "test", "--filter=Link.Tests/a_b", "x@y:1,2%"].shellQuoted == "swift test --filter=Link.Tests/a_b x@y:1,2%")
        #expect(["a;b", "$HOME", "é"].shellQuoted == "'a;b' '$HOME' 'é'")
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
