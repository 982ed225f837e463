import Foundation
import NetsimCore

/// A JSON report (bench, run or tune) as the gates read it: `--fail-if` and `--baseline` address
/// figures by key path (`grpc.latencyMs.p95`, `radio.promotions`), so they need the report's
/// shape rather than its Swift type; a baseline may also come from another netsim version.
/// Booleans count as 1 and 0, as numbers in JSON always could.
public enum ReportTree: Sendable, Equatable {
    case number(Double)
    case string(String)
    case array([ReportTree])
    case object([String: ReportTree])
    case null

    /// The member `key` of an object; nil for a missing key or a node that is no object.
    public subscript(key: String) -> ReportTree? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    public var number: Double? {
        guard case .number(let value) = self else { return nil }
        return value
    }

    /// The node at `path`, or nil when the report has none there.
    public func node(at path: [String]) -> ReportTree? {
        var node = self
        for key in path {
            guard let next = node[key] else { return nil }
            node = next
        }
        return node
    }
}

extension ReportTree {
    /// The tree of a JSON text (an object, an array or a bare value).
    ///
    /// Read with `JSONSerialization`, not as a `Decodable`: a decoder can only learn a value's
    /// kind by asking for each kind in turn, and each refusal builds an error with its whole
    /// coding path, so a 340 KB shard part took 0.4 s to read that way, half of `report merge`.
    public init(json: Data) throws {
        self.init(parsed: try JSONSerialization.jsonObject(with: json, options: .fragmentsAllowed))
    }

    private init(parsed value: Any) {
        switch value {
        case let members as [String: Any]: self = .object(members.mapValues(ReportTree.init(parsed:)))
        case let elements as [Any]: self = .array(elements.map(ReportTree.init(parsed:)))
        case let text as String: self = .string(text)
        // A number, or a Boolean as 1 and 0 (`NSNumber(true).doubleValue` is 1).
        case let number as NSNumber: self = .number(number.doubleValue)
        default: self = .null
        }
    }
}

extension ReportTree: CustomStringConvertible {
    /// How notes show a value: numbers as the gates print them, strings bare.
    public var description: String {
        switch self {
        case .number(let value): ReportNumber.gate(value)
        case .string(let text): text
        case .array(let elements): "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .object(let members): "{" + members.keys.sorted().map { "\($0): \(members[$0]!)" }.joined(separator: ", ") + "}"
        case .null: "null"
        }
    }
}

extension ReportTree: ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByStringLiteral
{
    public init(dictionaryLiteral elements: (String, ReportTree)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
}
