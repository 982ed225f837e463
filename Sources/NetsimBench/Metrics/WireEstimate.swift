import NetsimCore
import NetsimProxy

/// Bytes on the wire, estimated from what the proxy delivered: the payload, plus
/// - 52 bytes of IPv4 + TCP header (20 + 20 + 12 of timestamp option) on every data segment
///   (payload cut at an MSS of 1448 bytes, per delivered chunk);
/// - one pure ACK (52 bytes) in the other direction per two data segments of a burst, rounded
///   up (delayed ACKs; piggybacking on data is ignored, so this leans high);
/// - per connection, the handshake (SYN 60 bytes up, SYN-ACK 60 down, ACK 52 up) and the
///   close (FIN and ACK each way, 104 bytes per direction).
/// - 28 bytes of IPv4 + UDP header per datagram delivered (QUIC's packet header and ACKs are
///   in its payload already).
/// Radio-layer overhead (PDCP, RLC, MAC headers) is not included.
public struct WireEstimate: Sendable, Equatable {
    public static let headerBytes = TCPSegmentation.headerBytes
    public static let synBytes = 60
    public static let closeBytesPerDirection = 104

    public var up: Int
    public var down: Int

    /// A device report's: its TCP connections (those it opened that were not UDP flows) and
    /// its datagrams.
    public init(_ report: RunReport) {
        let datagrams = report.datagrams.map { PerDirection(up: $0.counts.up.delivered, down: $0.counts.down.delivered) }
        self.init(
            payload: report.bytes, segments: report.segments, connections: report.connections.opened - (report.datagrams?.flows ?? 0))
        up += UDPDatagram.headerBytes * (datagrams?.up ?? 0)
        down += UDPDatagram.headerBytes * (datagrams?.down ?? 0)
    }

    public init(payload: PerDirection<Int>, segments: SegmentCounts, connections: Int) {
        let acksForUp = segments.up.acknowledgements
        let acksForDown = segments.down.acknowledgements
        up =
            payload.up + Self.headerBytes * (segments.up.segments + acksForDown)
            + connections * (Self.synBytes + Self.headerBytes + Self.closeBytesPerDirection)
        down =
            payload.down + Self.headerBytes * (segments.down.segments + acksForUp)
            + connections * (Self.synBytes + Self.closeBytesPerDirection)
    }
}
