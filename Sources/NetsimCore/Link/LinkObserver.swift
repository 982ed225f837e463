/// Sees each connection and chunk as it crosses the emulated link, with the times the device
/// model gave it: what a capture needs. The proxy calls it on the device's event loop, so an
/// observer must only hand the record off (copy it into a bounded queue) and never block.
///
/// Plain values only (no NIO types), so that a capture (`NetsimPcap.CaptureLinkObserver`) needs
/// neither the proxy nor NIO.
public protocol LinkObserver: Sendable {
    /// A connection opened to the upstream at `upstreamAddress` (an IP address) and
    /// `upstreamPort`, as far as the socket tells them; its SYN was on the emulated radio at
    /// `handshakeOnAir`.
    func opened(
        _ connection: ConnectionID, clientPort: Int, upstreamAddress: String?, upstreamPort: Int?,
        handshakeOnAir: Double)
    /// A chunk will cross the link, on air during `onAir`; the proxy read it at `time`.
    func carried(
        _ connection: ConnectionID, _ direction: Direction, _ bytes: [UInt8], onAir: LinkSchedule.Transmission,
        at time: Double)
    /// A UDP datagram will cross the link, on air from `onAir.start`.
    func datagram(_ datagram: DatagramRecord, onAir: LinkSchedule.Transmission)
    /// The connection ended: both FINs passed on (the later on air at `time`), or a reset.
    func closed(_ connection: ConnectionID, reset: Bool, at time: Double)
    /// The run stopped at `time`, where its report ends: nothing after it crossed the link.
    func runEnded(at time: Double)
}

/// A UDP datagram of the flow from the phone's `clientPort` to (or from) `upstreamAddress` and
/// `upstreamPort`, read by the proxy at `readAt`: what a capture records of it besides its time
/// on air, which an outage ended early may still move (the proxy holds the record until then).
public struct DatagramRecord: Sendable, Equatable {
    public var direction: Direction
    public var payload: [UInt8]
    public var clientPort: Int
    public var upstreamAddress: String?
    public var upstreamPort: Int?
    public var readAt: Double

    public init(direction: Direction, payload: [UInt8], clientPort: Int, upstreamAddress: String?, upstreamPort: Int?, readAt: Double) {
        self.direction = direction
        self.payload = payload
        self.clientPort = clientPort
        self.upstreamAddress = upstreamAddress
        self.upstreamPort = upstreamPort
        self.readAt = readAt
    }
}
