import NIOCore
import NetsimCore

/// Sees each connection and chunk as it crosses the emulated link, with the times the device
/// model gave it: what a capture needs. Called on the device's event loop, so an observer must
/// only hand the record off (copy it into a bounded queue) and never block.
public protocol LinkObserver: Sendable {
    /// A connection opened; its SYN was on the emulated radio at `handshakeOnAir`.
    func opened(_ connection: ConnectionID, clientPort: Int, upstream: SocketAddress, handshakeOnAir: Double)
    /// A chunk will cross the link, on air during `onAir`; the proxy read it at `time`.
    func carried(_ connection: ConnectionID, _ direction: Direction, _ bytes: ByteBuffer, onAir: LinkSchedule.Transmission, at time: Double)
    /// The connection ended: both FINs passed on (the later on air at `time`), or a reset.
    func closed(_ connection: ConnectionID, reset: Bool, at time: Double)
    /// The run stopped at `time`, where its report ends: nothing after it crossed the link.
    func runEnded(at time: Double)
}
