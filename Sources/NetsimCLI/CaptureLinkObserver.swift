import NIOCore
import NetsimCore
import NetsimPcap
import NetsimProxy

/// Feeds what crosses the emulated link to a pcap `CaptureWriter`. The payload is copied on the
/// event loop (one memcpy per chunk); framing, checksums and file writes happen on the writer's
/// own thread, behind a bounded queue.
struct CaptureLinkObserver: LinkObserver {
    let writer: CaptureWriter

    func opened(_ connection: ConnectionID, clientPort: Int, upstream: SocketAddress, handshakeOnAir: Double) {
        guard let host = upstream.ipAddress, let server = IPAddress(host), let port = upstream.port else { return }
        let endpoints = CaptureEndpoints(clientPort: UInt16(truncatingIfNeeded: clientPort), server: server, serverPort: UInt16(port))
        writer.open(connection, endpoints, at: handshakeOnAir)
    }

    func carried(_ connection: ConnectionID, _ direction: Direction, _ bytes: ByteBuffer, onAir: LinkSchedule.Transmission, at time: Double) {
        writer.data(
            connection, direction, Array(bytes.readableBytesView), onAirStart: onAir.start, onAirEnd: onAir.end, at: time)
    }

    func closed(_ connection: ConnectionID, reset: Bool, at time: Double) {
        writer.close(connection, reset: reset, at: time)
    }

    func runEnded(at time: Double) {
        writer.endRun(at: time)
    }
}
