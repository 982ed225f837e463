import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimReport

/// The cells of `netsim report table`: figures of a report in braces, checked against its kind.
@Suite(.computes) struct ReportCellTemplateTests {
    let report: ReportTree = [
        "radio": ["promotions": 3, "energyJoules": 12.345, "secondsByState": ["IDLE": 40]],
        "connections": ["opened": 2, "reset": 0],
    ]

    @Test func figuresAreFormattedDividedOrPrintedAsTheGatesPrintThem() throws {
        let cell = try ReportCellTemplate(
            "{radio.promotions} promotions, {radio.energyJoules:.1f} J, {radio.energyJoules/1000:.3f} kJ", schema: .run)
        #expect(cell.render(report) == "3 promotions, 12.3 J, 0.012 kJ")
        #expect(try ReportCellTemplate("{radio.energyJoules}", schema: .run).render(report) == "12.35")
        #expect(try ReportCellTemplate("{radio.secondsByState.IDLE:.0f} s idle", schema: .run).render(report) == "40 s idle")
    }

    @Test func whatAReportLacksIsADash() throws {
        #expect(try ReportCellTemplate("{radio.promotions} / {radio.wakeSeconds}", schema: .run).render(report) == "3 / -")
        #expect(try ReportCellTemplate("{radio.wakeSeconds} s, {durationSeconds} s", schema: .run).render(report) == "-")
    }

    @Test(
        "a bad cell says what is wrong with it",
        arguments: [
            ("{radio.promotons}", "no key 'promotons' in a run report there"),
            ("{radio}", "'radio' is an object, not a number"),
            ("{radio.promotions", "a '{' is never closed"),
            ("promotions}", "a '}' closes nothing"),
            ("{radio.promotions:2f}", "'2f' is not a format such as .1f"),
            ("{radio.promotions/0}", "'0' is not a positive number to divide by"),
            ("{radio.promotions/2/3}", "is not KEY or KEY/NUMBER"),
        ])
    func badCells(template: String, reason: String) {
        #expect {
            _ = try ReportCellTemplate(template, schema: .run)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }
}
