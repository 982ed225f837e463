import NetsimCore

/// What one modelled device left behind: the same figures a live device's proxy, app ledger
/// and server record give the bench's analysis.
public struct DeviceOutcome: Sendable {
    public var app: AppRecord
    public var server: ServerRecord
    public var connections: Tally
    /// Payload bytes delivered, and the chunks and segments they made, per direction.
    public var bytes: PerDirection<Int>
    public var segments: SegmentCounts
    /// QUIC: the UDP datagrams each way, delivered and dropped, and the remappings the server
    /// followed (their payload is in `bytes` too); nil over TCP.
    public var datagrams: DatagramFigures?
    /// QUIC: NAT mappings that expired while the phone had a network, so a keepalive could have
    /// kept them (one that expires in an outage is the outage's); nil over TCP, where a
    /// connection the path already killed records no expiry.
    public var natExpiriesWithNetwork: Int?
    public var radio: RadioReport
    public var radioLatency: RadioWaitTotals
    /// The first `DeviceModel.eventListLimit` profile events, and every event by kind.
    public var events: [DeviceEvent]
    public var eventCounts: [DeviceEvent.Kind: Int]
    public var durationSeconds: Double
    /// For a connection the app still held at the end although it had died: how long it had
    /// been dead (a detection time that is at least this).
    public var undetectedDeathSeconds: Double?

    public struct Tally: Sendable, Equatable, Codable {
        public var opened = 0
        public var closed = 0
        public var reset = 0
        public var blackholed = 0
    }
}
