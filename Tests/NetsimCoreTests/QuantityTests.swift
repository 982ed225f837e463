import NetsimCore
import NetsimTestSupport
import Testing

@Suite("Quantity parsing and formatting", .computes)
struct QuantityTests {
    @Test(
        "durations in ms, s, m, h and d",
        arguments: [
            ("250ms", 0.25), ("1.5s", 1.5), ("2m", 120), ("1h", 3600), ("2d", 172_800), (" 20ms ", 0.02), ("0s", 0),
        ])
    func durations(text: String, seconds: Double) throws {
        #expect(try Quantity.duration(text) == seconds)
    }

    @Test(
        "bit rates, unit case-insensitive",
        arguments: [
            ("384kbps", 384_000.0), ("12mbps", 12e6), ("12Mbps", 12e6), ("1gbps", 1e9), ("9600bps", 9600),
        ])
    func bitRates(text: String, bitsPerSecond: Double) throws {
        #expect(try Quantity.bitRate(text) == bitsPerSecond)
    }

    @Test("sizes, with 1500-byte packets")
    func sizes() throws {
        #expect(try Quantity.byteCount("64KiB") == 65_536)
        #expect(try Quantity.byteCount("1MB") == 1_000_000)
        #expect(try Quantity.byteCount("2MiB") == 2_097_152)
        #expect(try Quantity.byteCount("100packets") == 150_000)
        #expect(try Quantity.byteCount("1packet") == 1500)
        #expect(try Quantity.byteCount("512B") == 512)
    }

    @Test("percentages are fractions")
    func percentages() throws {
        #expect(try Quantity.percentage("0.5%") == 0.005)
        #expect(try Quantity.percentage("100%") == 1)
        #expect(try Quantity.percentage("0%") == 0)
    }

    @Test("powers")
    func powers() throws {
        #expect(try Quantity.power("1.21W") == 1.21)
        #expect(try Quantity.power("594mW") == 0.594)
        #expect(abs(try Quantity.powerPerMbps("438.39mW/Mbps") - 0.43839) < 1e-12)
        #expect(abs(try Quantity.powerPerDecibel("13.3mW/dB") - 0.0133) < 1e-12)
    }

    @Test("a signal strength is the one signed quantity, within what phones report")
    func signalStrengths() throws {
        #expect(try Quantity.signalStrength("-105dBm") == -105)
        #expect(try Quantity.signalStrength(" -90.5 dbm ") == -90.5)
        #expect(throws: Quantity.ParseError.self) { try Quantity.signalStrength("105dBm") }
        #expect(throws: Quantity.ParseError.self) { try Quantity.signalStrength("-20dBm") }
        #expect(throws: Quantity.ParseError.self) { try Quantity.signalStrength("-200dBm") }
        #expect(throws: Quantity.ParseError.self) { try Quantity.signalStrength("--90dBm") }
        #expect(ParameterField<NRRadioParameters>.Unit.signalStrength.format(-105) == "-105dBm")
    }

    @Test("a parse error names the value and what was expected")
    func parseErrors() {
        func failure(_ parse: () throws -> Any) -> String? {
            do {
                _ = try parse()
                return nil
            } catch {
                return (error as? Quantity.ParseError)?.description
            }
        }
        #expect(failure { try Quantity.duration("20") } == "'20' is not a duration such as 250ms, 1.5s or 2m")
        #expect(failure { try Quantity.duration("5 sec") } == "'5 sec' is not a duration such as 250ms, 1.5s or 2m")
        #expect(failure { try Quantity.duration("-5ms") } == "'-5ms' is not a duration such as 250ms, 1.5s or 2m")
        #expect(failure { try Quantity.percentage("150%") } == "'150%' is not a percentage from 0% to 100%")
        #expect(failure { try Quantity.bitRate("0kbps") } == "'0kbps' is not a rate above zero")
        #expect(failure { try Quantity.byteCount("0B") } == "'0B' is not a size from 1 byte to under 1 TB")
        #expect(failure { try Quantity.power("1.2") } == "'1.2' is not a power such as 1.21W or 594mW")
    }

    @Test("every quantity has a range, so that nothing parsed is infinite or overflows the time arithmetic")
    func ranges() throws {
        func failure(_ parse: () throws -> Any) -> String? {
            do {
                _ = try parse()
                return nil
            } catch {
                return (error as? Quantity.ParseError)?.description
            }
        }
        #expect(try Quantity.duration("720h") == 30 * 86_400)
        #expect(Quantity.maximumDurationText == "30 days")
        #expect(failure { try Quantity.duration("720.001h") } == "'720.001h' is not a duration of at most 30 days (720h)")
        #expect(failure { try Quantity.duration("1" + String(repeating: "0", count: 306) + "h") } != nil)
        #expect(
            failure { try Quantity.duration("100000000000000000000s") }
                == "'100000000000000000000s' is not a duration of at most 30 days (720h)")
        #expect(try Quantity.bitRate("1kbps") == 1000)
        #expect(try Quantity.bitRate("1000gbps") == 1e12)
        #expect(
            failure { try Quantity.bitRate("999bps") }
                == "'999bps' is not a rate from 1kbps (the floor: a 1500-byte packet takes 12 s there) to 1000gbps")
        #expect(failure { try Quantity.bitRate("1" + String(repeating: "0", count: 306) + "gbps") } != nil)
        #expect(failure { try Quantity.power("101W") } == "'101W' is not a power of at most 100W")
        #expect(failure { try Quantity.powerPerMbps("1" + String(repeating: "0", count: 306) + "W/Mbps") } != nil)
    }

    @Test("formatting writes values the way a profile does")
    func formatting() {
        #expect(Quantity.formatDuration(0.26) == "260ms")
        #expect(Quantity.formatDuration(1.5) == "1.5s")
        #expect(Quantity.formatDuration(120) == "2m")
        #expect(Quantity.formatDuration(90) == "90s")
        #expect(Quantity.formatDuration(0) == "0s")
        #expect(Quantity.formatDuration(.infinity) == "forever")
        #expect(Quantity.formatDuration(30 * 86_400) == "30d")
        #expect(Quantity.formatDuration(86_400) == "1d")
        #expect(Quantity.formatDuration(90_000) == "1500m")
        #expect(Quantity.formatBitRate(8.1e6) == "8.1mbps")
        #expect(Quantity.formatBitRate(675_000) == "675kbps")
        #expect(Quantity.formatPower(0.594) == "594mW")
        #expect(Quantity.formatPower(1.21) == "1.21W")
        #expect(Quantity.trimmed(0.123456) == "0.1235")
    }

    @Test("formatted durations parse back to the same value", arguments: [0.002, 0.26, 1.28, 11.456, 120, 600, 86_400, 2_592_000.0])
    func roundTrip(seconds: Double) throws {
        #expect(try Quantity.duration(Quantity.formatDuration(seconds)) == seconds)
    }
}
