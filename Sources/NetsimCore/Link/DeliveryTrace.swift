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

    /// The most delivery opportunities (lines) a trace may have: 40 MB of opportunities in
    /// memory. An hour of a 12 Mbit/s link is 3.6 million; a file from elsewhere with more is
    /// refused at the line past it, rather than taking the machine's memory.
    public static let maximumOpportunities = 10_000_000
    /// The largest trace file read: `maximumOpportunities` lines of ten digits and a CRLF. A
    /// larger file is refused before it is read.
    public static let maximumFileBytes = maximumOpportunities * 12

    /// Parses a trace's text. `source` names the file in error messages.
    public init(parsing text: String, source: String) throws(FormatError) {
        var text = text
        let parsed = text.withUTF8 { bytes -> Result<[UInt32], FormatError> in
            do throws(FormatError) {
                return .success(try Self.opportunities(in: bytes, source: source))
            } catch {
                return .failure(error)
            }
        }
        self.source = source
        self.opportunitiesMs = try parsed.get()
    }

    /// The opportunities of a trace's bytes, in one pass over them: no line is copied out, so
    /// the only memory it takes is the 4 bytes an opportunity holds.
    private static func opportunities(in bytes: UnsafeBufferPointer<UInt8>, source: String) throws(FormatError) -> [UInt32] {
        guard !bytes.isEmpty else { throw FormatError(source: source, line: 1, reason: "the trace is empty") }
        var opportunities: [UInt32] = []
        // Every line is at least a digit and a newline.
        opportunities.reserveCapacity(min(bytes.count / 2 + 1, maximumOpportunities))
        var lineNumber = 0
        var previous: UInt32 = 0
        var lineStart = 0
        // A final newline ends the file, so the loop stops at the end rather than read an empty line.
        while lineStart < bytes.count {
            lineNumber += 1
            var end = lineStart
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            var digitsEnd = end
            if digitsEnd > lineStart, bytes[digitsEnd - 1] == UInt8(ascii: "\r") { digitsEnd -= 1 }
            let digits = UnsafeBufferPointer(rebasing: bytes[lineStart..<digitsEnd])
            lineStart = end + 1
            guard !digits.isEmpty else {
                throw FormatError(source: source, line: lineNumber, reason: "empty line (one integer per line expected)")
            }
            guard opportunities.count < maximumOpportunities else {
                throw FormatError(
                    source: source, line: lineNumber,
                    reason:
                        "more than \(maximumOpportunities) lines: a trace may have at most \(maximumOpportunities) delivery opportunities")
            }
            let milliseconds = try Self.milliseconds(digits, source: source, line: lineNumber)
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
        return opportunities
    }

    /// One line's whole number of milliseconds. A bad line is quoted up to 20 bytes: a file
    /// from elsewhere may hold one line of gigabytes.
    private static func milliseconds(_ digits: UnsafeBufferPointer<UInt8>, source: String, line: Int) throws(FormatError) -> UInt32 {
        var value: UInt64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                let quoted = String(decoding: digits.prefix(20), as: UTF8.self) + (digits.count > 20 ? "..." : "")
                throw FormatError(source: source, line: line, reason: "'\(quoted)' is not a whole number of milliseconds")
            }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
            guard value <= UInt64(UInt32.max) else { throw FormatError(source: source, line: line, reason: "value too large") }
        }
        return UInt32(value)
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
