/// The two ends of a connection as a capture shows them.
///
/// netsim's proxy sees the phone's connections arrive on its listener, so by default the phone
/// is synthesized as `10.0.0.2` (or `fd00::2` when the server is IPv6), a private address that
/// `netsim analyze` recognizes as the device; the server is the real upstream address and
/// port the proxy connected to.
public struct CaptureEndpoints: Sendable, Equatable {
    public var client: IPAddress
    public var clientPort: UInt16
    public var server: IPAddress
    public var serverPort: UInt16

    /// The phone's address in captures of IPv4 connections.
    public static let deviceIPv4 = IPAddress(ipv4: 0x0A00_0002)
    /// The phone's address in captures of IPv6 connections (unique local, `fd00::2`).
    public static let deviceIPv6 = IPAddress(ipv6High: 0xFD00_0000_0000_0000, low: 2)

    /// - Parameter client: the phone's address; nil, or one of the other IP version than the
    ///   server's, gives the synthesized device address of the server's version (a frame
    ///   carries one IP version).
    public init(client: IPAddress? = nil, clientPort: UInt16, server: IPAddress, serverPort: UInt16) {
        let device = server.isIPv4 ? Self.deviceIPv4 : Self.deviceIPv6
        self.client = client.flatMap { $0.isIPv4 == server.isIPv4 ? $0 : nil } ?? device
        self.clientPort = clientPort
        self.server = server
        self.serverPort = serverPort
    }
}
