/// A mahimahi-format packet-delivery trace: one line per delivery opportunity, each the number
/// of milliseconds from the trace start at which one packet of up to 1500 bytes, headers
/// included, may leave: a full 1448-byte TCP segment and its 52 bytes of headers. Values never
/// decrease; a repeated value is several opportunities in the same millisecond. The trace
/// repeats with a period equal to its last value (radio-parameters.md).
public struct DeliveryTrace: Sendable, Equatable, Codable {
    /// Bytes on the wire one opportunity may carry, headers included (mahimahi's reference
    /// implementation uses 1504; radio-parameters.md).
    public static let bytesPerOpportunity = 1500

    /// Where the trace was read from, for messages and reports.
    public let source: String
    /// Opportunity times in milliseconds from the trace start, non-decreasing.
    public let opportunitiesMs: [UInt32]

    /// The repetition period in seconds.
    public var period: Double { Double(opportunitiesMs.last ?? 0) / 1000 }

    /// The mean capacity in bits per second over one period.
    public var meanBitsPerSecond: Double {
        Double(opportunitiesMs.count * Self.bytesPerOpportunity * 8) / period
    }

    public struct FormatError: Error, Equatable, CustomStringConvertible {
        public let source: String
        public let line: Int
        public let reason: String
        public var description: String { "\(source):\(line): \(reason)" }
    }

    /// Parses a trace's text. `source` names the file in error messages.
    public init(parsing text: String, source: String) throws(FormatError) {
        guard !text.isEmpty else { throw FormatError(source: source, line: 1, reason: "the trace is empty") }
        var opportunities: [UInt32] = []
        opportunities.reserveCapacity(text.utf8.count / 5)
        var lineNumber = 0
        var previous: UInt32 = 0
        for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            var digits = line[...]
            if digits.last == UInt8(ascii: "\r") { digits = digits.dropLast() }
            if digits.isEmpty {
                // A final newline ends the file; an empty line anywhere else is an error.
                if lineNumber > 1, line.endIndex == text.utf8.endIndex { continue }
                throw FormatError(source: source, line: lineNumber, reason: "empty line (one integer per line expected)")
            }
            var value: UInt64 = 0
            for byte in digits {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                    throw FormatError(
                        source: source, line: lineNumber,
                        reason: "'\(String(decoding: digits, as: UTF8.self))' is not a whole number of milliseconds")
                }
                value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
                guard value <= UInt64(UInt32.max) else {
                    throw FormatError(source: source, line: lineNumber, reason: "value too large")
                }
            }
            let milliseconds = UInt32(value)
            guard milliseconds >= previous else {
                throw FormatError(
                    source: source, line: lineNumber,
                    reason: "\(milliseconds) is less than the line before (\(previous)): values must not decrease")
            }
            previous = milliseconds
            opportunities.append(milliseconds)
        }
        guard let last = opportunities.last else {
            throw FormatError(source: source, line: 1, reason: "the trace has no delivery opportunities")
        }
        guard last > 0 else {
            throw FormatError(source: source, line: lineNumber, reason: "the last opportunity must be after 0 ms (it sets the period)")
        }
        self.source = source
        self.opportunitiesMs = opportunities
    }

    public init(opportunitiesMs: [UInt32], source: String) {
        precondition(!opportunitiesMs.isEmpty && opportunitiesMs.last! > 0, "a trace needs a positive period")
        self.opportunitiesMs = opportunitiesMs
        self.source = source
    }

    public static func == (lhs: DeliveryTrace, rhs: DeliveryTrace) -> Bool {
        lhs.source == rhs.source && lhs.opportunitiesMs == rhs.opportunitiesMs
    }
}
