/// How a UDP datagram crosses an IPv4 link, as the link model and the reports count it.
public enum UDPDatagram {
    /// The IPv4 and UDP headers of a datagram: 20 + 8 bytes.
    public static let headerBytes = 28

    /// The largest payload a UDP datagram over IPv4 carries: 65,535 less its headers
    /// (RFC 768, RFC 791).
    public static let maximumPayload = 65_507

    /// The payload of one IP fragment on a 1500-byte MTU path: 1500 less 20 bytes of IPv4 (the
    /// UDP header travels in the first).
    static let fragmentPayload = 1480

    /// The IP packets a datagram of `bytes` payload makes on a 1500-byte MTU path; at least one.
    public static func fragments(_ bytes: Int) -> Int {
        max(1, (bytes + 8 + fragmentPayload - 1) / fragmentPayload)
    }

    /// The bytes a datagram of `bytes` payload takes on the wire: its payload, its UDP header and
    /// one IPv4 header per fragment.
    public static func wireBytes(_ bytes: Int) -> Int {
        bytes + 8 + 20 * fragments(bytes)
    }
}
