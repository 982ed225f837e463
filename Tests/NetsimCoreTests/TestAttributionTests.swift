import Foundation
import NetsimCore
import NetsimReport
import NetsimTestSupport
import Testing

/// `netsim run --junit-in`: the user's JUnit XML read as hostile input, and the radio's
/// wake-ups given to the test case that was running.
@Suite(.computes) struct TestAttributionTests {
    /// pytest's form: the suite's timestamp (local time, no zone) and each case's time, cases
    /// in the order they ran; a case's own timestamp wins; names unescaped, kept as text.
    @Test func casesStartAtTheirSuitesTimestampPlusTheTimesBefore() throws {
        let xml = """
            <?xml version="1.0" encoding="utf-8"?>
            <testsuites><testsuite name="pytest" timestamp="2026-11-28T05:00:00.500000Z" tests="3">
            <testcase classname="tests.test_api" name="test_login" time="1.250"/>
            <!-- a comment <testcase name="not this one" time="9"/> -->
            <testcase classname="tests.test_api" name="test_&lt;script&gt;&amp;feed" time="2.0"><system-out><![CDATA[<testcase name="nor this">]]></system-out></testcase>
            <testcase name="own" time="0.5" timestamp="2026-11-28T06:00:00+01:00"/>
            </testsuite></testsuites>
            """
        let cases = try JUnitTestCases(Data(xml.utf8), source: "junit.xml").cases
        let start = 1_795_842_000.5  // 2026-11-28T05:00:00.5Z
        #expect(cases.map(\.name) == ["tests.test_api.test_login", "tests.test_api.test_<script>&feed", "own"])
        #expect(cases.map(\.start) == [start, start + 1.25, start - 0.5])
        #expect(cases.map(\.seconds) == [1.25, 2.0, 0.5])
    }

    @Test(arguments: [
        ("<!DOCTYPE x [<!ENTITY a \"b\">]><testsuite timestamp=\"2026-11-28T05:00:00Z\"><testcase name=\"&a;\"/></testsuite>", "DOCTYPE"),
        ("<testsuite><testcase name=\"a\" time=\"1\"/></testsuite>", "nothing says when it ran"),
        ("<testsuite timestamp=\"yesterday\"><testcase name=\"a\"/></testsuite>", "is not an ISO 8601 time"),
        ("<testsuite timestamp=\"2026-11-28T05:00:00Z\"><testcase name=\"a\" time=\"-1\"/></testsuite>", "is not a duration"),
        ("<testsuite timestamp=\"2026-11-28T05:00:00Z\"><testcase name=\"a", "does not end"),
        ("<html><body>hello</body></html>", "not JUnit XML"),
    ])
    func hostileOrBrokenFilesAreRefusedWithTheReason(xml: String, reason: String) {
        #expect {
            try JUnitTestCases(Data(xml.utf8), source: "junit.xml")
        } throws: { error in
            "\(error)".hasPrefix("junit.xml: ") && "\(error)".contains(reason)
        }
    }

    @Test func aFileBeyondTheBoundIsRefused() {
        let big = Data(repeating: 32, count: JUnitTestCases.mostBytes + 1)
        #expect(throws: JUnitTestCases.Problem.self) { try JUnitTestCases(big, source: "big.xml") }
    }

    /// Two promotions in test A (at 1 s and 4 s), one in B (at 12 s), one outside (at 20 s);
    /// hand sums of wake time and energy at each state's mean power (PROMOTION 1 W, CONNECTED
    /// 2 W, IDLE 0.1 W over the run).
    @Test func promotionsAndEnergyGoToTheTestThatWasRunning() {
        let timeline: [RadioStateSegment] = [
            .init(state: .idle, start: 0, end: 1), .init(state: .promotion, start: 1, end: 1.5),
            .init(state: .connected, start: 1.5, end: 3),
            .init(state: .idle, start: 3, end: 4), .init(state: .promotion, start: 4, end: 4.5),
            .init(state: .connected, start: 4.5, end: 6),
            .init(state: .idle, start: 6, end: 12), .init(state: .promotion, start: 12, end: 12.5),
            .init(state: .connected, start: 12.5, end: 14), .init(state: .idle, start: 14, end: 20),
            .init(state: .promotion, start: 20, end: 20.5), .init(state: .connected, start: 20.5, end: 22),
        ]
        let seconds: [RadioState: Double] = [.idle: 14, .promotion: 2, .connected: 6]
        let radio = RadioReport(
            model: "nr", durationSeconds: 22, wakeSeconds: 8, promotions: 4, promotionsByOrigin: [.idle: 4], energyJoules: 15.4,
            transferEnergyJoules: 0, secondsByState: seconds, energyJoulesByState: [.idle: 1.4, .promotion: 2, .connected: 12],
            bytes: PerDirection(up: 0, down: 0), timeline: timeline)
        let rows = radio.byTest([("A", 0.5, 5.5), ("B", 11, 2)])
        #expect(rows.map(\.test) == ["A", "B", TestRadioFigures.outside])
        #expect(rows.map(\.promotions) == [2, 1, 1])
        // A covers 0.5-6: idle 0.5 + 1, promotions 1, connected 3 s.
        #expect(abs(rows[0].wakeSeconds - 4) < 1e-9 && abs(rows[0].energyJoules - (1.5 * 0.1 + 1 * 1 + 3 * 2)) < 1e-9)
        // B covers 11-13: idle 1, promotion 0.5, connected 0.5.
        #expect(abs(rows[1].wakeSeconds - 1) < 1e-9 && abs(rows[1].energyJoules - (0.1 + 0.5 + 1)) < 1e-9)
        // Outside: the rest of the run.
        #expect(abs(rows[2].wakeSeconds - 3) < 1e-9)
        #expect(abs(rows.map(\.energyJoules).reduce(0, +) - 15.4) < 1e-9)
    }
}
