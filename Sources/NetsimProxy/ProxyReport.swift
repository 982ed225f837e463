import NetsimCore

/// The JSON report of `netsim run --report` (schema in docs/run-report.md).
public struct RunReport: Sendable, Codable, Equatable {
    public var netsimVersion: String
    public var profile: String
    public var seed: UInt64
    public var durationSeconds: Double
    public var connections: ConnectionCounters
    /// Payload bytes delivered through the proxy, per direction.
    public var bytes: RadioReport.ByteTotals
    public var radio: RadioReport
    /// Delay the radio added to chunks (paging, promotion, DRX), apart from the links' delay.
    public var radioLatency: RadioWaitTotals
    public var events: [DeviceEvent]
}

public struct ConnectionCounters: Sendable, Codable, Equatable {
    public var opened = 0
    public var closed = 0
    /// Reset by the profile (outage or handover in reset mode, or a resetting NAT).
    public var reset = 0
    /// Silenced by the profile (blackhole outage or handover, or the NAT forgetting them).
    public var blackholed = 0
}

/// The live state, for the status line and the admin API.
public struct ProxyStatus: Sendable, Codable, Equatable {
    public var elapsedSeconds: Double
    public var network: String
    public var radioState: String
    public var openConnections: Int
    public var bytes: RadioReport.ByteTotals
    /// Whether the device has no connectivity right now (an outage or a handover gap).
    public var disconnected: Bool
    public var lastEvent: DeviceEvent?
}
