/// A flow's 5-tuple with its two endpoints in a fixed order (the lower address and port is
/// `a`), so both directions of a conversation find the same flow.
struct FlowKey: Hashable {
    var a: IPAddress
    var b: IPAddress
    var aPort: UInt16
    var bPort: UInt16
    var ipProtocol: UInt8

    /// The key of the packet's flow, and whether the packet was sent by endpoint `a`.
    init(_ packet: DecodedPacket, sentByA: inout Bool) {
        sentByA = (packet.source, packet.sourcePort) <= (packet.destination, packet.destinationPort)
        if sentByA {
            (a, aPort, b, bPort) = (packet.source, packet.sourcePort, packet.destination, packet.destinationPort)
        } else {
            (a, aPort, b, bPort) = (packet.destination, packet.destinationPort, packet.source, packet.sourcePort)
        }
        ipProtocol = packet.ipProtocol
    }

    /// Three words instead of eight fields: the flow table hashes a key per packet.
    func hash(into hasher: inout Hasher) {
        hasher.combine(a.low ^ (b.low &* 0x9E37_79B9_7F4A_7C15))
        hasher.combine(a.high ^ (b.high &* 0x9E37_79B9_7F4A_7C15))
        hasher.combine(UInt64(aPort) << 32 | UInt64(bPort) << 16 | UInt64(ipProtocol))
    }

    var protocolName: String {
        switch ipProtocol {
        case 6: "tcp"
        case 17: "udp"
        case 1: "icmp"
        case 58: "icmpv6"
        default: "ip-\(ipProtocol)"
        }
    }

    var hasPorts: Bool { ipProtocol == 6 || ipProtocol == 17 }

    func endpointDescription(a isA: Bool) -> String {
        let address = isA ? a : b
        return hasPorts ? address.description(port: isA ? aPort : bPort) : address.description
    }
}
