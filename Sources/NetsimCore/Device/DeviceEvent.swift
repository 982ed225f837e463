/// A timeline event as it happened, for reports.
public struct DeviceEvent: Sendable, Equatable, Codable {
    /// What happened; encoded as the profile's word for it (`nat-expiry` for a NAT mapping's end).
    /// A `CodingKeyRepresentable` key, so a count per kind encodes as `{"outage": 2}`.
    public enum Kind: String, Sendable, Codable, CodingKeyRepresentable, CaseIterable, CustomStringConvertible {
        case outage
        case handover
        case set
        case signal
        case natExpiry = "nat-expiry"

        public var description: String { rawValue }
    }

    /// What the event did to open connections: an outage's, handover's or NAT expiry's mode,
    /// under the profile's name for it.
    public enum Mode: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
        case stall
        case blackhole
        case reset
        case keep
        case silent

        public init(_ mode: OutageMode) {
            switch mode {
            case .stall: self = .stall
            case .blackhole: self = .blackhole
            case .reset: self = .reset
            }
        }

        public init(_ mode: HandoverMode) {
            switch mode {
            case .reset: self = .reset
            case .blackhole: self = .blackhole
            case .keep: self = .keep
            }
        }

        public init(_ mode: NATPolicy.ExpiryMode) {
            switch mode {
            case .silent: self = .silent
            case .reset: self = .reset
            }
        }

        public var description: String { rawValue }
    }

    public var at: Double
    public var kind: Kind
    public var network: String?
    public var mode: Mode?
    public var durationSeconds: Double?
    public var affectedConnections: Int?
    /// The UDP flows the event gave a new NAT mapping: a `nat-expiry` of a UDP flow's (1), a
    /// handover that changed the phone's address (every open flow). nil where none.
    public var affectedFlows: Int?
    /// A `nat-expiry`'s mapping expired here, its idle timeout after the connection's last
    /// bytes; `at` is later, when the next bytes found it gone. The connection died at this time.
    public var expiredAt: Double?
    /// A `set`'s network's link after the change, so that a caller sees what it set.
    public var link: PerDirection<LinkFigures>?
    /// A `set` that took back an earlier triggered step (`DeviceModel.undoSet`): that step's time.
    public var undoes: Double?
    /// A `signal` event's signal strength, dBm.
    public var rsrp: Double?

    public init(
        at: Double, kind: Kind, network: String? = nil, mode: Mode? = nil, durationSeconds: Double? = nil,
        affectedConnections: Int? = nil, affectedFlows: Int? = nil, expiredAt: Double? = nil, link: PerDirection<LinkFigures>? = nil,
        undoes: Double? = nil, rsrp: Double? = nil
    ) {
        self.rsrp = rsrp
        self.affectedFlows = affectedFlows
        self.expiredAt = expiredAt
        self.link = link
        self.undoes = undoes
        self.at = at
        self.kind = kind
        self.network = network
        self.mode = mode
        self.durationSeconds = durationSeconds
        self.affectedConnections = affectedConnections
    }
}

extension DeviceEvent: CustomStringConvertible {
    /// One line for logs and summaries: `40s: outage on lte (stall) for 30s`.
    public var description: String {
        var text = "\(Quantity.formatDuration(at)): \(kind)"
        if let network { text += kind == .handover ? " to \(network)" : " on \(network)" }
        if let mode { text += " (\(mode))" }
        if let rsrp { text += " at \(Quantity.trimmed(rsrp))dBm" }
        if let undoes { text += " undoing the set at \(Quantity.formatDuration(undoes))" }
        if let durationSeconds, durationSeconds > 0 { text += " for \(Quantity.formatDuration(durationSeconds))" }
        if let affectedConnections, affectedConnections > 0 { text += ", \(affectedConnections) connection(s) affected" }
        if let affectedFlows { text += ", \(affectedFlows) UDP flow(s) remapped" }
        return text
    }
}
