import NetsimCore

/// An optional report field whose nil is written as `null`, not left out: a reader of the JSON
/// tells "none" (no NAT) from a key an older netsim did not write. Synthesized `Codable` leaves
/// nil optionals out; a field wrapped in this is encoded whatever its value, and read back as
/// nil when null or missing.
@propertyWrapper
public struct ExplicitNull<Value: Codable>: Codable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension ExplicitNull: Sendable where Value: Sendable {}
extension ExplicitNull: Equatable where Value: Equatable {}

extension KeyedDecodingContainer {
    /// A missing key is nil too (synthesized decoding would call it an error).
    public func decode<Value>(_ type: ExplicitNull<Value>.Type, forKey key: Key) throws -> ExplicitNull<Value> {
        try decodeIfPresent(type, forKey: key) ?? ExplicitNull(wrappedValue: nil)
    }
}
