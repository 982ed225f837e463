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

extension ReportTree: Decodable {
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: MemberKey.self) {
            var members: [String: ReportTree] = [:]
            for key in container.allKeys { members[key.stringValue] = try container.decode(ReportTree.self, forKey: key) }
            self = .object(members)
        } else if var container = try? decoder.unkeyedContainer() {
            var elements: [ReportTree] = []
            while !container.isAtEnd { elements.append(try container.decode(ReportTree.self)) }
            self = .array(elements)
        } else {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .number(value ? 1 : 0)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else {
                self = .string(try container.decode(String.self))
            }
        }
    }

    private struct MemberKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
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
