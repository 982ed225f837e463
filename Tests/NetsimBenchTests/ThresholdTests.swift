import Foundation
import NetsimCore
import NetsimReport
import NetsimTestSupport
import Testing

@testable import NetsimBench

@Suite(.computes)
struct ThresholdTests {
    @Test func parsesKeyOperatorAndNumber() throws {
        let threshold = try Threshold(parsing: "grpc.latencyMs.p95 > 300", schema: .bench)
        #expect(threshold.path == ["grpc", "latencyMs", "p95"])
        #expect(threshold.comparison == .above)
        #expect(threshold.limit == 300)
        #expect(try Threshold(parsing: "rest.bytes.perMinute<=1.5e4", schema: .bench).comparison == .atMost)
        #expect(try Threshold(parsing: "ws.events.lost != 0", schema: .bench).comparison == .notEqual)
        #expect(try Threshold(parsing: "grpc.perDevice.secondsByState.IDLE.mean < 10", schema: .bench).path.count == 5)
        #expect(try Threshold(parsing: "durationSeconds >= 60", schema: .bench).path == ["durationSeconds"])
    }

    @Test(arguments: [
        ("grpc.latencyMs.p95 300", "no comparison"),
        ("grpc.latencyMs.p95 > fast", "is not a number"),
        ("> 3", "no key"),
        ("grpc.latencyMs.p96 > 3", "no key 'p96' in a bench report there"),
        ("grpc.latency.p95 > 3", "no key 'latency' in a bench report there"),
        ("grpc.latencyMs > 3", "is an object, not a number"),
        ("grpc.latencyMs.p95.x > 3", "is a number, not an object"),
        ("grpc..p95 > 3", "empty key part"),
    ])
    func refusesBadExpressions(expression: String, reason: String) {
        #expect {
            try Threshold(parsing: expression, schema: .bench)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    static var report: ReportTree {
        [
            "durationSeconds": 120,
            "transports": [
                "grpc": ["latencyMs": ["p95": 412.5], "events": ["lost": 0]],
                "rest": ["latencyMs": ["p95": 950.0], "events": ["lost": 2]],
            ],
        ]
    }

    @Test func evaluatesAgainstTheReport() throws {
        #expect(
            try Threshold(parsing: "grpc.latencyMs.p95 > 300", schema: .bench).breach(in: Self.report)
                == "grpc.latencyMs.p95 = 412.5, which is > 300")
        #expect(try Threshold(parsing: "grpc.latencyMs.p95 > 500", schema: .bench).breach(in: Self.report) == nil)
        #expect(try Threshold(parsing: "rest.events.lost > 0", schema: .bench).breach(in: Self.report) != nil)
        #expect(try Threshold(parsing: "grpc.events.lost > 0", schema: .bench).breach(in: Self.report) == nil)
        #expect(try Threshold(parsing: "durationSeconds < 60", schema: .bench).breach(in: Self.report) == nil)
        // A key the report lacks (a transport that did not run) is a breach, not a pass.
        #expect(
            try Threshold(parsing: "ws.latencyMs.p95 > 300", schema: .bench).breach(in: Self.report)?.contains("not in the report") == true)
    }

    /// The gates read the report's own JSON: objects, numbers (booleans as 1 and 0), and the
    /// strings, arrays and nulls they step over.
    @Test func readsAReportsJSON() throws {
        let json =
            #"{"profile": "subway", "durationSeconds": 120, "drained": true, "events": [1, "x", null],"#
            + #" "transports": {"grpc": {"latencyMs": {"p95": 412.5}}}}"#
        let report = try ReportTree(json: Data(json.utf8))
        #expect(
            try Threshold(parsing: "grpc.latencyMs.p95 > 300", schema: .bench).breach(in: report)
                == "grpc.latencyMs.p95 = 412.5, which is > 300")
        #expect(report.node(at: ["drained"])?.number == 1)
        #expect(report.node(at: ["profile"])?.number == nil)
        #expect(report["events"] == .array([1, "x", .null]))
        // Integers past Int64 and a bare value read as JSON's numbers do; a text that is no
        // JSON is refused.
        let edges = try ReportTree(json: Data(#"[false, 9223372036854775807, 18446744073709551616, -5, 1e308]"#.utf8))
        #expect(edges == .array([0, 9.223_372_036_854_775_807e18, 1.844_674_407_370_955_161_6e19, -5, 1e308]))
        #expect(try ReportTree(json: Data("2.5".utf8)) == 2.5)
        #expect(throws: (any Error).self) { try ReportTree(json: Data(#"{"a": NaN}"#.utf8)) }
        let sample = try ReportTree(json: BenchReport.empty.json())
        #expect(try Threshold(parsing: "durationSeconds >= 0", schema: .bench).breach(in: sample) == "durationSeconds = 0, which is >= 0")
    }

    @Test func baselineFlagsRegressionsBeyondTheAllowance() {
        let baseline: ReportTree = [
            "profile": "lte-tunnel", "durationSeconds": 120, "devicesPerTransport": 10, "seed": 1,
            "transports": ["grpc": ["latencyMs": ["p95": 300.0], "bytes": ["perMinute": 1000.0], "events": ["lost": 0]]],
        ]
        let current: ReportTree = [
            "profile": "lte-tunnel", "durationSeconds": 120, "devicesPerTransport": 10, "seed": 1,
            "transports": ["grpc": ["latencyMs": ["p95": 320.0], "bytes": ["perMinute": 1200.0], "events": ["lost": 1]]],
        ]
        let comparison = BaselineComparison.compare(current: current, baseline: baseline, maxRegressionPercent: 10, schema: .bench)
        #expect(comparison.notes.isEmpty)
        #expect(comparison.regressions.count == 2)
        #expect(comparison.regressions.contains { $0.description.hasPrefix("grpc.bytes.perMinute: 1200, baseline 1000 (+20.0%") })
        #expect(comparison.regressions.contains { $0.description.hasPrefix("grpc.events.lost: 1, baseline 0") })
        #expect(
            BaselineComparison.compare(current: current, baseline: current, maxRegressionPercent: 0, schema: .bench).regressions.isEmpty)
    }

    @Test func baselineNotesRunsThatDiffer() {
        let a: ReportTree = ["profile": "lte-good", "durationSeconds": 120, "devicesPerTransport": 10, "seed": 1, "transports": [:]]
        let b: ReportTree = ["profile": "lte-tunnel", "durationSeconds": 120, "devicesPerTransport": 10, "seed": 1, "transports": [:]]
        #expect(BaselineComparison.compare(current: a, baseline: b, maxRegressionPercent: 10, schema: .bench).notes.count == 1)
    }
}
