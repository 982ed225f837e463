import NetsimCore

/// One IP packet's addresses, ports and sizes, decoded by hand from a captured frame.
///
/// Sizes come from the IP and transport headers, not from what was captured, so a capture cut
/// at a snapshot length (`tcpdump -s 96`) still counts every byte that crossed the link.
public struct DecodedPacket: Sendable, Equatable {
    public var source: IPAddress
    public var destination: IPAddress
    /// The IP protocol number (6 TCP, 17 UDP, 1 ICMP, 58 ICMPv6, ...).
    public var ipProtocol: UInt8
    /// Zero when the protocol has no ports or this is a later fragment.
    public var sourcePort: UInt16 = 0
    public var destinationPort: UInt16 = 0
    /// The IP packet's length, headers included.
    public var ipLength: Int
    /// The transport payload's length (TCP or UDP data; the whole IP payload otherwise).
    public var payloadLength: Int
    /// Where the captured part of the payload starts in the frame, and how much of it is there.
    public var payloadOffset: Int
    public var capturedPayloadLength: Int
    /// Where the IP header starts in the frame, and its length (IPv6: with extension headers).
    public var ipHeaderOffset: Int
    public var ipHeaderLength: Int
    /// Where the transport (TCP or UDP) header starts; nil for other protocols and fragments.
    public var transportHeaderOffset: Int?
    public var tcp: TCPFields?

    public struct TCPFields: Sendable, Equatable {
        public var sequence: UInt32
        public var acknowledgment: UInt32
        public var flags: TCPFlags
    }

    public var isIPv4: Bool { source.isIPv4 }
}

/// What a frame turned out to be.
public enum PacketDecoding: Sendable, Equatable {
    case ip(DecodedPacket)
    /// A frame that carries no IP (ARP, LLDP, spanning tree): not the device's data.
    case notIP
    /// The frame claims to carry IP but its headers are inconsistent or cut short.
    case malformed(String)
}

/// Decodes link, IP and transport headers by hand, with every read bounds-checked.
public enum PacketDecoder {
    static let ipv4EtherType: UInt16 = 0x0800
    static let ipv6EtherType: UInt16 = 0x86DD
    private static let vlanEtherTypes: Set<UInt16> = [0x8100, 0x88A8, 0x9100]
    /// Stacked VLAN tags beyond this are treated as malformed rather than walked forever.
    private static let maximumVLANTags = 4
    /// IPv6 extension headers beyond this are treated as malformed.
    private static let maximumExtensionHeaders = 8

    /// Decodes `frame` (the captured bytes) of a packet `originalLength` bytes long on the wire.
    public static func decode(_ frame: UnsafeRawBufferPointer, originalLength: Int, linkType: LinkType) -> PacketDecoding {
        switch linkType {
        case .ethernet:
            var offset = 12
            var tags = 0
            while true {
                guard let etherType = frame.uint16(at: offset) else { return .malformed("Ethernet header cut short") }
                offset += 2
                if vlanEtherTypes.contains(etherType) {
                    tags += 1
                    guard tags <= maximumVLANTags else { return .malformed("more than \(maximumVLANTags) VLAN tags") }
                    offset += 2
                    continue
                }
                return decodeNetworkLayer(etherType: etherType, frame, at: offset, originalLength: originalLength)
            }
        case .linuxCooked:
            guard let protocolType = frame.uint16(at: 14) else { return .malformed("Linux cooked header cut short") }
            return decodeNetworkLayer(etherType: protocolType, frame, at: 16, originalLength: originalLength)
        case .linuxCookedV2:
            guard let protocolType = frame.uint16(at: 0), frame.count >= 20 else {
                return .malformed("Linux cooked v2 header cut short")
            }
            return decodeNetworkLayer(etherType: protocolType, frame, at: 20, originalLength: originalLength)
        case .rawIP:
            return decodeByVersion(frame, at: 0, originalLength: originalLength)
        case .loopback:
            // The 4-byte address family is in the capturing host's byte order (DLT_NULL) or in
            // network order (DLT_LOOP), and its values differ between systems: the IP version
            // nibble that follows says the same thing unambiguously.
            return decodeByVersion(frame, at: 4, originalLength: originalLength)
        }
    }

    private static func decodeNetworkLayer(
        etherType: UInt16, _ frame: UnsafeRawBufferPointer, at offset: Int, originalLength: Int
    ) -> PacketDecoding {
        switch etherType {
        case ipv4EtherType: decodeIPv4(frame, at: offset, originalLength: originalLength)
        case ipv6EtherType: decodeIPv6(frame, at: offset, originalLength: originalLength)
        default: .notIP
        }
    }

    private static func decodeByVersion(_ frame: UnsafeRawBufferPointer, at offset: Int, originalLength: Int) -> PacketDecoding {
        guard let first = frame.byte(at: offset) else { return .malformed("no IP header") }
        switch first >> 4 {
        case 4: return decodeIPv4(frame, at: offset, originalLength: originalLength)
        case 6: return decodeIPv6(frame, at: offset, originalLength: originalLength)
        default: return .notIP
        }
    }

    private static func decodeIPv4(_ frame: UnsafeRawBufferPointer, at offset: Int, originalLength: Int) -> PacketDecoding {
        guard let versionAndLength = frame.byte(at: offset), let totalLength = frame.uint16(at: offset + 2),
            let fragmentField = frame.uint16(at: offset + 6), let ipProtocol = frame.byte(at: offset + 9),
            let source = frame.uint32(at: offset + 12), let destination = frame.uint32(at: offset + 16)
        else { return .malformed("IPv4 header cut short") }
        guard versionAndLength >> 4 == 4 else { return .malformed("IPv4 header with version \(versionAndLength >> 4)") }
        let headerLength = Int(versionAndLength & 0x0F) * 4
        guard headerLength >= 20 else { return .malformed("IPv4 header length \(headerLength) below 20") }
        guard frame.count >= offset + headerLength else { return .malformed("IPv4 options cut short") }
        // A zero total length is what a sender-side capture shows for a TCP segmentation
        // offload super-packet: the frame's own length is the truth then.
        let length = totalLength == 0 ? originalLength - offset : Int(totalLength)
        guard length >= headerLength else { return .malformed("IPv4 total length \(length) below its header length") }
        let isLaterFragment = fragmentField & 0x1FFF != 0
        return decodeTransport(
            DecodedPacket(
                source: IPAddress(ipv4: source), destination: IPAddress(ipv4: destination), ipProtocol: ipProtocol,
                ipLength: length, payloadLength: length - headerLength, payloadOffset: offset + headerLength,
                capturedPayloadLength: 0, ipHeaderOffset: offset, ipHeaderLength: headerLength),
            frame, hasTransportHeader: !isLaterFragment)
    }

    private static func decodeIPv6(_ frame: UnsafeRawBufferPointer, at offset: Int, originalLength: Int) -> PacketDecoding {
        guard let first = frame.byte(at: offset), let payloadLength = frame.uint16(at: offset + 4),
            var nextHeader = frame.byte(at: offset + 6),
            let sourceHigh = frame.uint64(at: offset + 8), let sourceLow = frame.uint64(at: offset + 16),
            let destinationHigh = frame.uint64(at: offset + 24), let destinationLow = frame.uint64(at: offset + 32)
        else { return .malformed("IPv6 header cut short") }
        guard first >> 4 == 6 else { return .malformed("IPv6 header with version \(first >> 4)") }
        // A zero payload length means a jumbogram or a segmentation offload super-packet.
        let length = payloadLength == 0 ? originalLength - offset : 40 + Int(payloadLength)
        guard length >= 40 else { return .malformed("IPv6 packet shorter than its header") }
        var headerLength = 40
        var hasTransportHeader = true
        var extensionHeaders = 0
        walk: while true {
            switch nextHeader {
            case 0, 43, 60:  // hop-by-hop, routing, destination options
                guard let following = frame.byte(at: offset + headerLength),
                    let units = frame.byte(at: offset + headerLength + 1)
                else { return .malformed("IPv6 extension header cut short") }
                nextHeader = following
                headerLength += 8 + Int(units) * 8
            case 44:  // fragment
                guard let following = frame.byte(at: offset + headerLength),
                    let fragmentField = frame.uint16(at: offset + headerLength + 2)
                else { return .malformed("IPv6 fragment header cut short") }
                nextHeader = following
                headerLength += 8
                if fragmentField & 0xFFF8 != 0 { hasTransportHeader = false }
            case 51:  // authentication header: length in 4-octet units, minus 2
                guard let following = frame.byte(at: offset + headerLength),
                    let units = frame.byte(at: offset + headerLength + 1)
                else { return .malformed("IPv6 authentication header cut short") }
                nextHeader = following
                headerLength += (Int(units) + 2) * 4
            default:
                break walk
            }
            extensionHeaders += 1
            guard extensionHeaders <= maximumExtensionHeaders else {
                return .malformed("more than \(maximumExtensionHeaders) IPv6 extension headers")
            }
            guard headerLength <= length else { return .malformed("IPv6 extension headers longer than the packet") }
            if !hasTransportHeader { break }
        }
        return decodeTransport(
            DecodedPacket(
                source: IPAddress(ipv6High: sourceHigh, low: sourceLow),
                destination: IPAddress(ipv6High: destinationHigh, low: destinationLow), ipProtocol: nextHeader,
                ipLength: length, payloadLength: length - headerLength, payloadOffset: offset + headerLength,
                capturedPayloadLength: 0, ipHeaderOffset: offset, ipHeaderLength: headerLength),
            frame, hasTransportHeader: hasTransportHeader)
    }

    /// Fills in ports, TCP fields and the payload's extent; `packet.payload*` start out as the
    /// whole IP payload.
    private static func decodeTransport(
        _ packet: DecodedPacket, _ frame: UnsafeRawBufferPointer, hasTransportHeader: Bool
    ) -> PacketDecoding {
        var packet = packet
        let ipEnd = packet.ipHeaderOffset + packet.ipLength
        let transport = packet.payloadOffset
        if hasTransportHeader {
            switch packet.ipProtocol {
            case 6:
                guard let sourcePort = frame.uint16(at: transport), let destinationPort = frame.uint16(at: transport + 2),
                    let sequence = frame.uint32(at: transport + 4), let acknowledgment = frame.uint32(at: transport + 8),
                    let offsetByte = frame.byte(at: transport + 12), let flags = frame.byte(at: transport + 13)
                else { return .malformed("TCP header cut short") }
                let headerLength = Int(offsetByte >> 4) * 4
                guard headerLength >= 20, headerLength <= packet.payloadLength else {
                    return .malformed("TCP header length \(headerLength) outside the packet")
                }
                packet.sourcePort = sourcePort
                packet.destinationPort = destinationPort
                packet.tcp = .init(sequence: sequence, acknowledgment: acknowledgment, flags: TCPFlags(rawValue: flags))
                packet.transportHeaderOffset = transport
                packet.payloadOffset = transport + headerLength
                packet.payloadLength -= headerLength
            case 17:
                guard let sourcePort = frame.uint16(at: transport), let destinationPort = frame.uint16(at: transport + 2),
                    let length = frame.uint16(at: transport + 4)
                else { return .malformed("UDP header cut short") }
                guard packet.payloadLength >= 8 else { return .malformed("UDP datagram shorter than its header") }
                packet.sourcePort = sourcePort
                packet.destinationPort = destinationPort
                packet.transportHeaderOffset = transport
                packet.payloadOffset = transport + 8
                // The UDP length can be zero (IPv6 jumbograms); the IP length bounds it anyway.
                packet.payloadLength = length >= 8 ? min(Int(length), packet.payloadLength) - 8 : packet.payloadLength - 8
            default:
                break
            }
        }
        packet.capturedPayloadLength = max(0, min(frame.count, ipEnd, packet.payloadOffset + packet.payloadLength) - packet.payloadOffset)
        return .ip(packet)
    }
}
