/// One overridable parameter of a model: its profile key, unit and where it is stored.
///
/// Parameter tables let the profile loader accept per-parameter overrides (with the nearest
/// valid key suggested for a typo) and let `netsim profiles show` print every value, without
/// either of them knowing the individual models.
public struct ParameterField<Root>: Sendable {
    public enum Unit: Sendable {
        case duration, power, powerPerMbps, powerPerDecibel, signalStrength, byteCount, bitRate

        /// Parses a profile value in this unit into the base SI value.
        public func parse(_ text: String) throws(Quantity.ParseError) -> Double {
            switch self {
            case .duration: try Quantity.duration(text)
            case .power: try Quantity.power(text)
            case .powerPerMbps: try Quantity.powerPerMbps(text)
            case .powerPerDecibel: try Quantity.powerPerDecibel(text)
            case .signalStrength: try Quantity.signalStrength(text)
            case .byteCount: Double(try Quantity.byteCount(text))
            case .bitRate: try Quantity.bitRate(text)
            }
        }

        public func format(_ value: Double) -> String {
            switch self {
            case .duration: Quantity.formatDuration(value)
            case .power: Quantity.formatPower(value)
            case .powerPerMbps: "\(Quantity.trimmed(value * 1000))mW/Mbps"
            case .powerPerDecibel: "\(Quantity.trimmed(value * 1000))mW/dB"
            case .signalStrength: "\(Quantity.trimmed(value))dBm"
            case .byteCount: "\(Int(value))B"
            case .bitRate: Quantity.formatBitRate(value)
            }
        }
    }

    public let key: String
    public let unit: Unit
    nonisolated(unsafe) public let keyPath: WritableKeyPath<Root, Double>

    public init(_ key: String, _ unit: Unit, _ keyPath: WritableKeyPath<Root, Double>) {
        self.key = key
        self.unit = unit
        self.keyPath = keyPath
    }
}

/// A parameter set whose every field can be overridden from a profile.
public protocol OverridableParameters: Sendable, Equatable {
    /// The fields that apply to this parameter set, in the order they are documented.
    var fields: [ParameterField<Self>] { get }
}
