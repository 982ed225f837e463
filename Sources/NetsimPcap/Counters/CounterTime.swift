/// How a counter file writes its times, and reading them as seconds.
public enum CounterTimeFormat: String, Sendable, Equatable, CaseIterable, Codable {
    /// From the first row: a number is `seconds`, anything else a `timestamp`.
    case auto
    /// A number of seconds (since 1970, or since any zero: only differences count).
    case seconds
    /// A number of milliseconds (Android's `SystemClock`, `System.currentTimeMillis`).
    case milliseconds
    /// `2021-01-07 18:19:50`, `2021-01-07T18:19:50.250Z`, `2021-01-07 18:19:50-06:00`: a date,
    /// `T` or a space, a time with optional fraction, and an optional zone (none: UTC).
    case timestamp

    /// The format `auto` settles on for a first cell.
    func settled(by cell: Substring) -> CounterTimeFormat {
        guard self == .auto else { return self }
        return Double(cell) != nil ? .seconds : .timestamp
    }

    /// The cell as seconds; nil if it is not in this format (`auto` must be settled first).
    func seconds(_ cell: Substring) -> Double? {
        switch self {
        case .auto: nil
        case .seconds: Double(cell).flatMap { $0.isFinite ? $0 : nil }
        case .milliseconds: Double(cell).flatMap { $0.isFinite ? $0 / 1000 : nil }
        case .timestamp: Self.timestampSeconds(cell)
        }
    }

    /// Seconds since 1970-01-01 UTC of an ISO-8601-like timestamp.
    private static func timestampSeconds(_ cell: Substring) -> Double? {
        var scanner = DigitScanner(Array(cell.utf8))
        guard let year = scanner.number(digits: 4), scanner.skip("-"), let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        guard scanner.skip("T") || scanner.skip(" ") || scanner.skip("t"), let hour = scanner.number(digits: 2), scanner.skip(":"),
            let minute = scanner.number(digits: 2), hour < 24, minute < 60
        else { return nil }
        var seconds = 0.0
        if scanner.skip(":") {
            guard let whole = scanner.number(digits: 2), whole < 61 else { return nil }
            seconds = Double(whole)
            if scanner.skip(".") || scanner.skip(",") {
                guard let fraction = scanner.fraction() else { return nil }
                seconds += fraction
            }
        }
        var offset = 0
        if scanner.skip("Z") || scanner.skip("z") {
        } else if let sign = scanner.sign() {
            guard let hours = scanner.number(digits: 2), hours < 24 else { return nil }
            _ = scanner.skip(":")
            let minutes = scanner.atEnd ? 0 : scanner.number(digits: 2)
            guard let minutes, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard scanner.atEnd else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3600 + minute * 60 - offset) + seconds
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// Reads fixed-width numbers and separators off a timestamp's bytes.
private struct DigitScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func number(digits: Int) -> Int? {
        guard index + digits <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<(index + digits)] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += digits
        return value
    }

    /// Digits after a decimal point, as a fraction of one (at most nine are read).
    mutating func fraction() -> Double? {
        var value = 0.0
        var scale = 1.0
        var count = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            if count < 9 {
                scale /= 10
                value += Double(bytes[index] - UInt8(ascii: "0")) * scale
            }
            count += 1
            index += 1
        }
        return count > 0 ? value : nil
    }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    /// `+` as 1, `-` as -1.
    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
