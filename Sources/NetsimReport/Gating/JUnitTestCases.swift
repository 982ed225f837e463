import Foundation
import NetsimCore

/// The test cases of a JUnit XML file from the user's own test runner (pytest, Gradle, Jest,
/// `swift test --xunit-output`), with when each ran: `netsim run --junit-in` attributes the
/// radio's wake-ups to them.
///
/// The file comes from elsewhere, so it is read as hostile: at most `mostBytes`, at most
/// `mostCases` test cases, no DOCTYPE (so no entity can expand), only the attributes used
/// (`name`, `classname`, `time`, `timestamp`), numbers checked, names kept as text that every
/// report escapes. A small scanner of tags and attributes, not an XML library: nothing in the
/// file is resolved, fetched or expanded.
public struct JUnitTestCases: Sendable, Equatable {
    public struct TestCase: Sendable, Equatable {
        /// `classname.name`, or `name` alone.
        public var name: String
        /// When it started, in seconds since 1970, and how long it ran.
        public var start: Double
        public var seconds: Double
    }

    public var cases: [TestCase]

    public static let mostBytes = 16 * 1024 * 1024
    public static let mostCases = 100_000

    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// Reads `data`. A test case's start is its own `timestamp`, else its suite's `timestamp`
    /// plus the `time` of the cases before it in that suite (runners write cases in the order
    /// they ran); a case with neither is refused, as nothing says when it ran.
    public init(_ data: Data, source: String) throws(Problem) {
        guard data.count <= Self.mostBytes else {
            throw Problem(description: "\(source): \(data.count) bytes, more than the \(Self.mostBytes) a JUnit file may have")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw Problem(description: "\(source): not UTF-8 text") }
        if text.range(of: "<!DOCTYPE", options: .caseInsensitive) != nil {
            throw Problem(description: "\(source): a DOCTYPE (entities are not read in a JUnit file)")
        }
        var cases: [TestCase] = []
        var suiteStart: Double?
        var suiteElapsed = 0.0
        var sawSuite = false
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            if rest.hasPrefix("!--") {
                guard let end = rest.range(of: "-->") else { throw Problem(description: "\(source): a comment that does not end") }
                rest = rest[end.upperBound...]
                continue
            }
            if rest.hasPrefix("![CDATA[") {
                guard let end = rest.range(of: "]]>") else { throw Problem(description: "\(source): a CDATA section that does not end") }
                rest = rest[end.upperBound...]
                continue
            }
            guard let close = Self.tagEnd(rest) else { throw Problem(description: "\(source): a tag that does not end") }
            let tag = rest[..<close]
            rest = rest[rest.index(after: close)...]
            let nameEnd = tag.firstIndex { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "/" } ?? tag.endIndex
            let element = tag[..<nameEnd]
            guard element == "testsuite" || element == "testcase" else { continue }
            let attributes = try Self.attributes(tag[nameEnd...], source: source)
            if element == "testsuite" {
                sawSuite = true
                suiteStart = nil
                if let text = attributes["timestamp"] { suiteStart = try Self.timestamp(text, source: source) }
                suiteElapsed = 0
                continue
            }
            guard cases.count < Self.mostCases else {
                throw Problem(description: "\(source): more than \(Self.mostCases) test cases")
            }
            var seconds = 0.0
            if let text = attributes["time"] { seconds = try Self.seconds(text, source: source) }
            let start: Double
            if let own = attributes["timestamp"] {
                start = try Self.timestamp(own, source: source)
            } else if let suiteStart {
                start = suiteStart + suiteElapsed
            } else {
                throw Problem(
                    description:
                        "\(source): test case '\(attributes["name"] ?? "")' has no timestamp, nor has its testsuite: nothing says when it ran"
                )
            }
            suiteElapsed += seconds
            let name = attributes["name"] ?? "(unnamed)"
            let qualified = attributes["classname"].map { $0.isEmpty ? name : "\($0).\(name)" } ?? name
            cases.append(TestCase(name: String(qualified.prefix(300)), start: start, seconds: seconds))
        }
        guard sawSuite || !cases.isEmpty else { throw Problem(description: "\(source): no testsuite or testcase: not JUnit XML") }
        self.cases = cases
    }

    /// The `>` that ends a tag, outside quoted attribute values.
    private static func tagEnd(_ text: Substring) -> Substring.Index? {
        var quote: Character?
        for index in text.indices {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == ">" {
                return index
            }
        }
        return nil
    }

    /// `key="value"` pairs, values unescaped (the five XML entities and numeric references).
    private static func attributes(_ text: Substring, source: String) throws(Problem) -> [String: String] {
        var attributes: [String: String] = [:]
        var rest = text
        while let equals = rest.firstIndex(of: "=") {
            let key = rest[..<equals].trimmingCharacters(in: .whitespacesAndNewlines)
            rest = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            guard let quote = rest.first, quote == "\"" || quote == "'" else {
                throw Problem(description: "\(source): attribute '\(key.prefix(40))' has no quoted value")
            }
            rest = rest.dropFirst()
            guard let end = rest.firstIndex(of: quote) else {
                throw Problem(description: "\(source): an attribute value that does not end")
            }
            attributes[key] = unescaped(rest[..<end])
            rest = rest[rest.index(after: end)...]
        }
        return attributes
    }

    static func unescaped(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var result = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            rest = rest[amp...]
            guard let semicolon = rest.prefix(12).firstIndex(of: ";") else {
                result.append("&")
                rest = rest.dropFirst()
                continue
            }
            let entity = rest[rest.index(after: rest.startIndex)..<semicolon]
            let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
            if let character = named[String(entity)] {
                result += character
            } else if entity.hasPrefix("#x"), let code = UInt32(entity.dropFirst(2), radix: 16), let scalar = Unicode.Scalar(code) {
                result.unicodeScalars.append(scalar)
            } else if entity.hasPrefix("#"), let code = UInt32(entity.dropFirst()), let scalar = Unicode.Scalar(code) {
                result.unicodeScalars.append(scalar)
            } else {
                result += rest[...semicolon]
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }

    private static func seconds(_ text: String, source: String) throws(Problem) -> Double {
        guard let value = Double(text.replacingOccurrences(of: ",", with: "")), value.isFinite, value >= 0, value <= 30 * 86_400 else {
            throw Problem(description: "\(source): time '\(text.prefix(40))' is not a duration in seconds")
        }
        return value
    }

    /// ISO 8601 as runners write it: `2026-11-28T05:00:01`, with optional fractional seconds
    /// and zone (`Z`, `+01:00`, `+0100`). Without a zone it is the machine's local time, as
    /// pytest and Gradle write it: the runner ran on this machine, beside netsim.
    private static func timestamp(_ text: String, source: String) throws(Problem) -> Double {
        let refused = Problem(description: "\(source): timestamp '\(text.prefix(40))' is not an ISO 8601 time")
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 19 else { throw refused }
        let base = String(trimmed.prefix(19))
        var rest = trimmed.dropFirst(19)
        var fraction = 0.0
        if rest.first == "." {
            let digits = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let value = Double("0." + digits) else { throw refused }
            fraction = value
            rest = rest.dropFirst(1 + digits.count)
        }
        var zone = TimeZone.current
        if rest == "Z" {
            zone = TimeZone(identifier: "UTC") ?? zone
        } else if let sign = rest.first, sign == "+" || sign == "-" {
            let digits = rest.dropFirst().filter { $0 != ":" }
            guard digits.count == 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let hours = Int(digits.prefix(2)),
                let minutes = Int(digits.suffix(2)),
                let offset = TimeZone(secondsFromGMT: (sign == "+" ? 1 : -1) * (hours * 3600 + minutes * 60))
            else { throw refused }
            zone = offset
        } else if !rest.isEmpty {
            throw refused
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        formatter.timeZone = zone
        guard let date = formatter.date(from: base) else { throw refused }
        return date.timeIntervalSince1970 + fraction
    }
}
