import Foundation
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimReport

/// `netsim run`'s gates: the bench's expression language over the run report's keys.
@Suite(.computes) struct RunGateTests {
    static let report: ReportTree = [
        "profile": "lte-good", "seed": 1, "durationSeconds": 60,
        "radio": ["promotions": 2, "energyJoules": 30.5, "wakeSeconds": 25, "secondsByState": ["IDLE": 35.0, "PROMOTION": 0.5]],
        "connections": ["opened": 2, "reset": 0, "blackholed": 0],
        "eventCounts": ["outage": 1],
    ]

    @Test func gatesReadTheRunReportsKeys() throws {
        #expect(
            try Threshold(parsing: "radio.promotions > 1", schema: .run).breach(in: Self.report) == "radio.promotions = 2, which is > 1")
        #expect(try Threshold(parsing: "radio.promotions > 2", schema: .run).breach(in: Self.report) == nil)
        #expect(try Threshold(parsing: "radio.energyJoules >= 30", schema: .run).breach(in: Self.report) != nil)
        #expect(try Threshold(parsing: "connections.reset > 0", schema: .run).breach(in: Self.report) == nil)
        // An event kind or a radio state that never happened is absent from its map: zero.
        #expect(try Threshold(parsing: "eventCounts.nat-expiry > 0", schema: .run).value(in: Self.report) == 0)
        #expect(try Threshold(parsing: "eventCounts.outage > 0", schema: .run).breach(in: Self.report) != nil)
        #expect(try Threshold(parsing: "radio.secondsByState.LONG_DRX > 1", schema: .run).value(in: Self.report) == 0)
        #expect(try Threshold(parsing: "radio.secondsByState.IDLE < 40", schema: .run).breach(in: Self.report) != nil)
    }

    @Test(arguments: [
        ("grpc.latencyMs.p95 > 3", "no key 'grpc' in a run report there"),
        ("radio.promotion > 1", "no key 'promotion' in a run report there"),
        ("radio > 1", "is an object, not a number"),
        ("radio.promotions > many", "is not a number"),
    ])
    func refusesKeysARunReportCannotHave(expression: String, reason: String) {
        #expect {
            try Threshold(parsing: expression, schema: .run)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    /// A gate key typo gets the profile reader's did-you-mean before the list of keys.
    @Test func aMisspeltKeyGetsADidYouMean() {
        #expect {
            try Threshold(parsing: "radio.promotion > 1", schema: .run)
        } throws: { error in
            "\(error)".contains("no key 'promotion' in a run report there; did you mean 'promotions'? (known: ")
        }
        #expect {
            try Threshold(parsing: "grpc.latencyMs.p95 > 3", schema: .run)
        } throws: { error in
            !"\(error)".contains("did you mean")
        }
    }

    @Test func aBaselineComparesRadioFiguresAndCountsThatMustNotGrow() {
        var worse = Self.report
        if case .object(var members) = worse {
            members["radio"] = ["promotions": 4, "energyJoules": 31.0, "wakeSeconds": 25]
            members["connections"] = ["opened": 2, "reset": 1, "blackholed": 0]
            worse = .object(members)
        }
        let comparison = BaselineComparison.compare(current: worse, baseline: Self.report, maxRegressionPercent: 10, schema: .run)
        #expect(comparison.notes.isEmpty)
        #expect(comparison.regressions.contains { $0.description.hasPrefix("radio.promotions: 4, baseline 2 (+100.0%") })
        #expect(comparison.regressions.contains { $0.description.hasPrefix("connections.reset: 1, baseline 0") })
        // 31 J is within 10% of 30.5 J.
        #expect(!comparison.regressions.contains { $0.key == "radio.energyJoules" })
        #expect(
            BaselineComparison.compare(current: Self.report, baseline: Self.report, maxRegressionPercent: 0, schema: .run).regressions
                .isEmpty)
    }

    @Test func aReportIsReadOnlyAsItsOwnKind() {
        #expect(ReportSchema.run.read(Data(#"{"profile": "x", "seed": 1}"#.utf8)) != nil)
        #expect(ReportSchema.run.read(Data(#"{"profile": "x"}"#.utf8)) == nil)
        #expect(ReportSchema.run.read(Data("not json".utf8)) == nil)
    }
}

/// `--format benchmark-json`: github-action-benchmark's `customSmallerIsBetter` entries.
@Suite(.computes) struct BenchmarkJSONTests {
    @Test func theFiguresABaselineComparesWithTheirUnits() throws {
        let entries = BenchmarkJSON.entries(RunGateTests.report, schema: .run)
        #expect(entries.first == BenchmarkJSON.Entry(name: "radio.energyJoules", unit: "J", value: 30.5))
        #expect(entries.contains(BenchmarkJSON.Entry(name: "radio.wakeSeconds", unit: "s", value: 25)))
        #expect(entries.contains(BenchmarkJSON.Entry(name: "radio.promotions", unit: "count", value: 2)))
        #expect(entries.contains(BenchmarkJSON.Entry(name: "connections.reset", unit: "count", value: 0)))
        // What the report lacks is left out, not invented.
        #expect(!entries.contains { $0.name == "radioLatency.promotionSeconds" })
        let decoded =
            try JSONSerialization.jsonObject(with: try BenchmarkJSON.render(RunGateTests.report, schema: .run)) as? [[String: Any]]
        #expect(decoded?.first?.keys.sorted() == ["name", "unit", "value"])
        #expect(BenchmarkJSON.unit(of: "latencyMs.p95") == "ms")
        #expect(BenchmarkJSON.unit(of: "bytes.perMinute") == "B/min")
    }
}
