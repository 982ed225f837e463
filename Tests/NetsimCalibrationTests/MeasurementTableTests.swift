import NetsimCalibration
import NetsimInput
import NetsimTestSupport
import Testing

@Suite(.computes) struct MeasurementTableTests {
    @Test func quotedCellsWithCommasAndDoubledQuotesAreOneCell() throws {
        let table = try MeasurementTable(file: "t.csv", text: "a,b,c\n1,\"x, \"\"y\"\"\",3\r\n")
        #expect(table.columns == ["a", "b", "c"])
        #expect(table.rows == [["1", "x, \"y\"", "3"]])
        #expect(table.lines == [2])
    }

    @Test func anEmptyFileIsAnErrorAtItsFirstLine() {
        #expect(
            throws: InputFileError(file: "e.csv", line: 1, column: 1, message: "the file is empty: it needs a header row and data rows")
        ) {
            try MeasurementTable(file: "e.csv", text: "")
        }
    }

    @Test func aHeaderWithoutRowsIsAnError() {
        #expect(throws: InputFileError(file: "h.csv", line: 1, column: 1, message: "the file has a header but no data rows")) {
            try MeasurementTable(file: "h.csv", text: "gap_s,rtt_ms\n")
        }
    }

    @Test func aNonNumericCellNamesTheFileRowAndColumn() throws {
        let table = try MeasurementTable(file: "p.csv", text: "gap_s,rtt_ms\n0,50\n0.1,fast\n")
        #expect(throws: InputFileError(file: "p.csv", line: 3, column: 2, message: "column 'rtt_ms': 'fast' is not a number")) {
            try ProbeFile(table)
        }
    }

    @Test func anUnknownColumnIsRefusedByName() throws {
        let table = try MeasurementTable(file: "p.csv", text: "gap_s,rtt_ms,colour\n0,50,red\n")
        let error = #expect(throws: InputFileError.self) { try ProbeFile(table) }
        #expect(error?.line == 1)
        #expect(error?.column == 3)
        #expect(error?.message.hasPrefix("unknown column 'colour'") == true)
    }

    @Test func aRowWithTooFewCellsIsRefused() {
        #expect(throws: InputFileError(file: "r.csv", line: 3, column: 2, message: "this row has 1 cells; the header has 2")) {
            try MeasurementTable(file: "r.csv", text: "gap_s,rtt_ms\n0,50\n7\n")
        }
    }

    @Test func anUnclosedQuoteIsRefused() {
        #expect(throws: InputFileError.self) { try MeasurementTable(file: "q.csv", text: "a,b\n1,\"open\n") }
    }

    @Test func aCumulativeCounterThatGoesDownIsAnErrorNotANegativeInterval() throws {
        let table = try MeasurementTable(file: "c.csv", text: "time_s,down_bytes,up_bytes,power_mw\n1,-5,0,100\n")
        #expect(throws: InputFileError(file: "c.csv", line: 2, column: 2, message: "column 'down_bytes': a byte count below zero")) {
            try PowerLog(table)
        }
    }

    @Test func aSignalNoPhoneReportsIsAnErrorAtItsCell() throws {
        let table = try MeasurementTable(file: "s.csv", text: "time_s,down_bytes,up_bytes,power_mw,rsrp_dbm\n1,100,0,500,-20\n")
        #expect(
            throws: InputFileError(
                file: "s.csv", line: 2, column: 5, message: "column 'rsrp_dbm': -20.0 dBm is not a signal strength (-156 to -31 dBm)")
        ) {
            try PowerLog(table)
        }
    }
}
