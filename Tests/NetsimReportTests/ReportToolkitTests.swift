import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimReport

/// The pieces every report draws and writes with: the time axis, the state colours, the numbers.
@Suite(.computes)
struct ReportToolkitTests {
    @Test(arguments: [
        (0.5, 0.05), (1.0, 0.1), (12.0, 1.0), (30.0, 5.0), (600.0, 60.0), (3600.0, 300.0), (7200.0, 600.0),
        (86_400.0, 3600.0),
    ])
    func aTimeAxisStepIsRoundAndGivesAtMostTwelveTicks(span: Double, step: Double) {
        #expect(SVGTimeAxis.step(forSpan: span) == step)
    }

    @Test func ticksAreTheStepsMultiplesWithinTheSpanAndNeverNegativeZero() throws {
        let ticks = SVGTimeAxis.ticks(from: -0.3, to: 1, step: 0.5)
        #expect(ticks == [0, 0.5, 1])
        #expect(try #require(ticks.first).sign == .plus)
        #expect(SVGTimeAxis.ticks(from: 0, to: 3600, step: 300).count == 13)
        #expect(SVGTimeAxis.ticks(from: 12.5, to: 27.9, step: 5) == [15, 20, 25])
    }

    @Test func theAxisLabelsEachTickEscaped() {
        let svg = SVGTimeAxis.svg(from: 0, to: 30, left: 10, plotWidth: 300, y: 50, style: .marks) { tick, _ in
            "<\(Int(tick))>"
        }
        #expect(svg.components(separatedBy: "<text").count - 1 == 7)
        #expect(svg.contains(">&lt;30&gt;</text>"))
    }

    @Test func eachAwakeStateHasItsOwnColourAndLegendsListStatesByName() {
        #expect([RadioState.idle, .dch, .promotion, .fach].sorted(by: RadioState.byName) == [.dch, .fach, .idle, .promotion])
        let awake: [RadioState] = [.promotion, .continuousReception, .shortDRX, .longDRX, .inactive]
        #expect(Set(awake.map(\.chartColor)).count == awake.count)
        #expect(!awake.map(\.chartColor).contains(RadioState.idle.chartColor))
    }

    @Test func figuresCarryTheirUnitAfterASpace() {
        #expect(ReportNumber.fixed(2.345, decimals: 1) == "2.3")
        #expect(ReportNumber.seconds(59.96, decimals: 1) == "60.0 s")
        #expect(ReportNumber.joules(1234.4, decimals: 0) == "1234 J")
        #expect(ReportNumber.milliwatts(1108.62, decimals: 1) == "1108.6 mW")
        #expect(ReportNumber.percent(0.1234, decimals: 1) == "12.3%")
    }
}
