import Foundation

/// Parsing of the units a profile is written in: durations (`ms`, `s`, `m`, `h`), bit rates
/// (`bps`, `kbps`, `mbps`, `gbps`), percentages (`%`), byte sizes (`B`, `KB`, `KiB`, `MB`,
/// `MiB`, `packets` of 1500 bytes), powers (`W`, `mW`), throughput power (`mW/Mbps`), signal
/// strength (`dBm`, the one signed quantity) and power per dB of signal (`mW/dB`).
///
/// Every value in `NetsimCore` is kept in base SI units once parsed: seconds, bits per second,
/// bytes, watts, and a fraction in 0...1 for percentages.
///
/// These parsers are the one place a value's range is checked, whatever it comes from (a
/// profile, a command-line flag, the admin API, a bench settings file): every value is finite,
/// durations are at most `maximumDuration` and rates lie in `bitRateRange`. Beyond those, the
/// time arithmetic downstream (wall-clock deadlines in nanoseconds) would overflow.
public enum Quantity {
    /// The longest duration accepted anywhere: 30 days, for a run as for anything in a profile.
    public static let maximumDuration: Double = 30 * 86_400
    /// `maximumDuration` as the messages that refuse a longer one say it: "30 days".
    public static let maximumDurationText = "\(trimmed(maximumDuration / 86_400)) days"
    /// Rates from 1 kbit/s to 1 Tbit/s. The floor is about a tenth of the slowest cellular
    /// bearer (a GPRS timeslot's 9 kbit/s): there a full 1500-byte packet already takes 12 s,
    /// longer than TCP's retransmission timers, and below it a few queued bytes hold a phone's
    /// link for minutes (at 1 bit/s, 100 bytes for 800 s), which tests nothing but patience.
    public static let bitRateRange: ClosedRange<Double> = 1e3...1e12
    /// How the messages that refuse a rate out of `bitRateRange` say it.
    static let bitRateRangeText = "a rate from 1kbps (the floor: a 1500-byte packet takes 12 s there) to 1000gbps"
    /// Powers (and powers per Mbit/s) up to 100 W; a phone's radio draws about 1 W.
    public static let maximumPower: Double = 100

    /// Why a quantity did not parse; the message names the unit set that was expected.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let text: String
        public let expected: String
        public var description: String { "'\(text)' is not \(expected)" }
    }

    public static func duration(_ text: String) throws(ParseError) -> Double {
        let value = try parse(
            text, units: ["ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86_400], expected: "a duration such as 250ms, 1.5s or 2m")
        guard value <= maximumDuration else {
            throw ParseError(text: text, expected: "a duration of at most \(maximumDurationText) (\(trimmed(maximumDuration / 3600))h)")
        }
        return value
    }

    public static func bitRate(_ text: String) throws(ParseError) -> Double {
        let value = try parse(
            text, units: ["bps": 1, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9],
            expected: "a rate such as 384kbps or 12mbps", caseInsensitive: true)
        guard value > 0 else { throw ParseError(text: text, expected: "a rate above zero") }
        guard bitRateRange.contains(value) else { throw ParseError(text: text, expected: bitRateRangeText) }
        return value
    }

    /// A percentage as a fraction in 0...1.
    public static func percentage(_ text: String) throws(ParseError) -> Double {
        let value = try parse(text, units: ["%": 0.01], expected: "a percentage such as 1% or 0.5%")
        guard (0...1).contains(value) else { throw ParseError(text: text, expected: "a percentage from 0% to 100%") }
        return value
    }

    /// A size in bytes; `packets` counts 1500-byte packets (the MTU the link models assume).
    public static func byteCount(_ text: String) throws(ParseError) -> Int {
        let value = try parse(
            text,
            units: ["b": 1, "kb": 1e3, "kib": 1024, "mb": 1e6, "mib": 1_048_576, "packets": 1500, "packet": 1500],
            expected: "a size such as 64KiB, 1MB or 100packets", caseInsensitive: true)
        guard value >= 1, value < 1e12 else { throw ParseError(text: text, expected: "a size from 1 byte to under 1 TB") }
        return Int(value)
    }

    /// Power in watts.
    public static func power(_ text: String) throws(ParseError) -> Double {
        let value = try parse(
            text, units: ["w": 1, "mw": 0.001], expected: "a power such as 1.21W or 594mW", caseInsensitive: true)
        guard value <= maximumPower else { throw ParseError(text: text, expected: "a power of at most 100W") }
        return value
    }

    /// Throughput-dependent power (Video Optimizer's alpha) in watts per Mbit/s.
    public static func powerPerMbps(_ text: String) throws(ParseError) -> Double {
        let value = try parse(
            text, units: ["mw/mbps": 0.001, "w/mbps": 1],
            expected: "a throughput power such as 438.39mW/Mbps", caseInsensitive: true)
        guard value <= maximumPower else { throw ParseError(text: text, expected: "a throughput power of at most 100W/Mbps") }
        return value
    }

    /// Power per dB of signal strength (the radio's `rsrpSlope`), in watts per dB.
    public static func powerPerDecibel(_ text: String) throws(ParseError) -> Double {
        let value = try parse(
            text, units: ["mw/db": 0.001, "w/db": 1], expected: "a power per dB such as 13.3mW/dB", caseInsensitive: true)
        guard value <= maximumPower else { throw ParseError(text: text, expected: "a power per dB of at most 100W/dB") }
        return value
    }

    /// The range of reference signal received power (RSRP) a phone reports: 3GPP TS 38.133
    /// maps NR's SS-RSRP from -156 dBm to -31 dBm (LTE's, TS 36.133, lies within it).
    public static let signalStrengthRange: ClosedRange<Double> = -156 ... -31

    /// A signal strength in dBm (`-105dBm`), the received power of the reference signal.
    public static func signalStrength(_ text: String) throws(ParseError) -> Double {
        let trimmedText = text.trimmingWhitespace()
        let expected = "a signal strength such as -105dBm"
        guard trimmedText.hasPrefix("-") else { throw ParseError(text: text, expected: expected) }
        let value = -(try parse(String(trimmedText.dropFirst()), units: ["dbm": 1], expected: expected, caseInsensitive: true))
        guard signalStrengthRange.contains(value) else {
            throw ParseError(text: text, expected: "a signal strength from -156dBm to -31dBm")
        }
        return value
    }

    /// Renders seconds the way a profile writes them (`260ms`, `1.5s`, `2m`, `30d`).
    public static func formatDuration(_ seconds: Double) -> String {
        if seconds.isInfinite { return "forever" }
        if seconds != 0, abs(seconds) < 1 { return "\(trimmed(seconds * 1000))ms" }
        if seconds >= 86_400, seconds.truncatingRemainder(dividingBy: 86_400) == 0 { return "\(trimmed(seconds / 86_400))d" }
        if seconds >= 120, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(trimmed(seconds / 60))m" }
        return "\(trimmed(seconds))s"
    }

    public static func formatBitRate(_ bitsPerSecond: Double) -> String {
        if bitsPerSecond >= 1e9 { return "\(trimmed(bitsPerSecond / 1e9))gbps" }
        if bitsPerSecond >= 1e6 { return "\(trimmed(bitsPerSecond / 1e6))mbps" }
        if bitsPerSecond >= 1e3 { return "\(trimmed(bitsPerSecond / 1e3))kbps" }
        return "\(trimmed(bitsPerSecond))bps"
    }

    public static func formatPower(_ watts: Double) -> String {
        watts != 0 && abs(watts) < 1 ? "\(trimmed(watts * 1000))mW" : "\(trimmed(watts))W"
    }

    /// An amount of data for people to read: `512 B`, `12.3 KB`, `4.56 MB` (decimal units).
    public static func formatDataSize(_ bytes: Double) -> String {
        switch bytes {
        case ..<1000: String(format: "%.0f B", bytes)
        case ..<1_000_000: String(format: "%.1f KB", bytes / 1e3)
        default: String(format: "%.2f MB", bytes / 1e6)
        }
    }

    /// A number with at most four decimals and no trailing zeros.
    public static func trimmed(_ value: Double) -> String {
        let rounded = (value * 10_000).rounded() / 10_000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return String(rounded)
    }

    private static func parse(
        _ text: String, units: [String: Double], expected: String, caseInsensitive: Bool = false
    ) throws(ParseError) -> Double {
        let trimmedText = text.trimmingWhitespace()
        let numberEnd = trimmedText.firstIndex { !($0.isASCII && ($0.isNumber || $0 == ".")) } ?? trimmedText.endIndex
        let numberPart = trimmedText[..<numberEnd]
        var unitPart = String(trimmedText[numberEnd...]).trimmingWhitespace()
        if caseInsensitive { unitPart = unitPart.lowercased() }
        guard let number = Double(numberPart), number.isFinite, number >= 0,
            let scale = units[unitPart]
        else { throw ParseError(text: text, expected: expected) }
        return number * scale
    }
}

extension String {
    package func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while scalars.first?.isWhitespace == true { scalars.removeFirst() }
        while scalars.last?.isWhitespace == true { scalars.removeLast() }
        return String(scalars)
    }
}
