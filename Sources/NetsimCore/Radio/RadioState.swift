/// Every RRC state a radio model walks, of every technology, under the name reports give it
/// (`secondsByState`, `promotionsByOrigin`, timeline segments, live status). Code matches states
/// by these cases, never by their names.
public enum RadioState: String, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// Waiting for a promotion to the most awake state (any technology).
    case promotion = "PROMOTION"
    /// LTE: connected, receiving continuously.
    case continuousReception = "CONTINUOUS_RECEPTION"
    /// LTE: connected in short-cycle discontinuous reception.
    case shortDRX = "SHORT_DRX"
    /// LTE, and 5G NR with connected DRX: connected in long-cycle discontinuous reception.
    case longDRX = "LONG_DRX"
    /// UMTS: the dedicated channel.
    case dch = "DCH"
    /// UMTS: the shared forward access channel.
    case fach = "FACH"
    /// 5G NR: RRC_CONNECTED.
    case connected = "CONNECTED"
    /// 5G NR standalone: RRC_INACTIVE.
    case inactive = "INACTIVE"
    /// WiFi: awake.
    case active = "ACTIVE"
    /// Asleep: RRC_IDLE (cellular) or power save (WiFi).
    case idle = "IDLE"

    public var description: String { rawValue }
}

extension RadioState: CodingKeyRepresentable {}

extension Optional where Wrapped == RadioState {
    /// The state as the reports, the event stream and the metrics name it: its raw value, or
    /// `NONE` for a device without a radio model.
    public var reportName: String { self?.rawValue ?? "NONE" }

    /// The state a report names (`reportName`); nil for `NONE` and for a name no model gives.
    public init(reportName: String) {
        self = RadioState(rawValue: reportName)
    }
}
