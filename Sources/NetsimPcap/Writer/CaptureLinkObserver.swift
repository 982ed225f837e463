import NetsimCore

/// Feeds what crosses the emulated link to a pcap `CaptureWriter`: the glue between the proxy
/// (`netsim run --pcap`, the bench's captures) and the capture. The proxy copies the payload on
/// its event loop (one memcpy per chunk); framing, checksums and file writes happen on the
/// writer's own thread, behind a bounded queue.
public struct CaptureLinkObserver: LinkObserver {
    public let writer: CaptureWriter

    public init(writer: CaptureWriter) {
        self.writer = writer
    }

    public func opened(
        _ connection: ConnectionID, clientPort: Int, upstreamAddress: String?, upstreamPort: Int?,
        handshakeOnAir: Double
    ) {
        guard let upstreamAddress, let server = IPAddress(upstreamAddress), let upstreamPort else { return }
        let endpoints = CaptureEndpoints(
            clientPort: UInt16(truncatingIfNeeded: clientPort), server: server, serverPort: UInt16(upstreamPort))
        writer.open(connection, endpoints, at: handshakeOnAir)
    }

    public func carried(
        _ connection: ConnectionID, _ direction: Direction, _ bytes: [UInt8], onAir: LinkSchedule.Transmission,
        at time: Double
    ) {
        writer.data(connection, direction, bytes, onAirStart: onAir.start, onAirEnd: onAir.end, at: time)
    }

    public func datagram(_ datagram: DatagramRecord, onAir: LinkSchedule.Transmission) {
        guard let address = datagram.upstreamAddress, let server = IPAddress(address), let port = datagram.upstreamPort else { return }
        let endpoints = CaptureEndpoints(
            clientPort: UInt16(truncatingIfNeeded: datagram.clientPort), server: server, serverPort: UInt16(truncatingIfNeeded: port))
        writer.datagram(endpoints, datagram.direction, datagram.payload, onAir: onAir.start, at: datagram.readAt)
    }

    public func closed(_ connection: ConnectionID, reset: Bool, at time: Double) {
        writer.close(connection, reset: reset, at: time)
    }

    public func runEnded(at time: Double) {
        writer.endRun(at: time)
    }
}
