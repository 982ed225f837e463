/// A server's flows together: a name where a flow carried one (TLS SNI, HTTP Host or
/// :authority, QUIC's ClientHello), else its address. An app that polls on a new connection
/// each time shows as many short flows to one server.
public struct ServerReport: Sendable, Equatable, Codable {
    /// The name, or the address when no flow named it.
    public var server: String
    /// The flows' ids (`FlowReport.id`), the most energy first.
    public var flows: [Int]
    public var packets: Int
    public var bytesUp: Int
    public var bytesDown: Int
    public var wakeUps: Int
    public var wakeSeconds: Double
    public var energyJoules: Double
    /// Its share of all energy, the idle floor included.
    public var energyShare: Double
}
