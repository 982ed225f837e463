/// One synthesized TCP segment, everything its frame needs.
struct TCPSegmentFields {
    var source: IPAddress
    var sourcePort: UInt16
    var destination: IPAddress
    var destinationPort: UInt16
    var sequence: UInt32
    var acknowledgment: UInt32
    var flags: TCPFlags
    var ipIdentification: UInt16
    /// RFC 7323 timestamps (a TCP option on every segment but a RST, as Linux sends them).
    var timestampValue: UInt32
    var timestampEcho: UInt32
    var payload: ArraySlice<UInt8>
    var fromDevice: Bool
}

/// Encodes segments as Ethernet + IPv4/IPv6 + TCP frames, and datagrams as UDP ones, with
/// correct checksums.
///
/// Segments carry the timestamps option (12 bytes), which is why a 1500-byte MTU gives the
/// 1448-byte segments real captures show; SYNs also carry MSS 1460. The window is a fixed
/// 65535 without scaling: the synthesized receiver acknowledges every second segment at once,
/// so no more than two segments are ever in flight and Wireshark sees no window trouble.
enum FrameEncoder {
    static let deviceMAC: [UInt8] = [0x02, 0x00, 0x00, 0x00, 0x00, 0x02]
    static let gatewayMAC: [UInt8] = [0x02, 0x00, 0x00, 0x00, 0x00, 0x01]
    static let window: UInt16 = 65_535
    static let announcedMSS: UInt16 = 1460

    /// Writes the frame into `frame`, replacing what it held (its capacity is reused).
    static func encode(_ segment: TCPSegmentFields, into frame: inout [UInt8]) {
        var options: [UInt8] = []
        if segment.flags.contains(.syn) {
            options += [2, 4, UInt8(announcedMSS >> 8), UInt8(announcedMSS & 0xFF)]
        }
        if !segment.flags.contains(.rst) {
            options += [1, 1, 8, 10]
            withUnsafeBytes(of: segment.timestampValue.bigEndian) { options += $0 }
            withUnsafeBytes(of: segment.timestampEcho.bigEndian) { options += $0 }
        }
        let tcpLength = 20 + options.count + segment.payload.count
        beginFrame(
            from: segment.source, to: segment.destination, fromDevice: segment.fromDevice, ipProtocol: 6,
            transportLength: tcpLength, identification: segment.ipIdentification, into: &frame)

        let tcpStart = frame.count
        append(segment.sourcePort, to: &frame)
        append(segment.destinationPort, to: &frame)
        append(segment.sequence, to: &frame)
        append(segment.acknowledgment, to: &frame)
        frame += [UInt8((20 + options.count) / 4) << 4, segment.flags.rawValue]
        append(window, to: &frame)
        frame += [0, 0, 0, 0]  // checksum later, urgent pointer
        frame += options
        frame += segment.payload
        put(transportChecksum(of: frame, from: tcpStart, segment.source, segment.destination, ipProtocol: 6), at: tcpStart + 16, in: &frame)
    }

    /// Writes a UDP datagram's frame into `frame`, replacing what it held.
    static func encodeDatagram(
        from source: (address: IPAddress, port: UInt16), to destination: (address: IPAddress, port: UInt16), payload: [UInt8],
        ipIdentification: UInt16, fromDevice: Bool, into frame: inout [UInt8]
    ) {
        let udpLength = 8 + payload.count
        beginFrame(
            from: source.address, to: destination.address, fromDevice: fromDevice, ipProtocol: 17, transportLength: udpLength,
            identification: ipIdentification, into: &frame)
        let udpStart = frame.count
        append(source.port, to: &frame)
        append(destination.port, to: &frame)
        append(UInt16(truncatingIfNeeded: udpLength), to: &frame)
        frame += [0, 0]  // checksum later
        frame += payload
        let checksum = transportChecksum(of: frame, from: udpStart, source.address, destination.address, ipProtocol: 17)
        // UDP sends a computed zero as all ones: zero means "no checksum" (RFC 768).
        put(checksum == 0 ? 0xFFFF : checksum, at: udpStart + 6, in: &frame)
    }

    /// Empties `frame` and writes the Ethernet and IP headers of a packet whose transport
    /// header and payload take `transportLength` bytes.
    private static func beginFrame(
        from source: IPAddress, to destination: IPAddress, fromDevice: Bool, ipProtocol: UInt8, transportLength: Int,
        identification: UInt16, into frame: inout [UInt8]
    ) {
        frame.removeAll(keepingCapacity: true)
        let isIPv4 = source.isIPv4
        frame.append(contentsOf: fromDevice ? gatewayMAC : deviceMAC)
        frame.append(contentsOf: fromDevice ? deviceMAC : gatewayMAC)
        append(isIPv4 ? PacketDecoder.ipv4EtherType : PacketDecoder.ipv6EtherType, to: &frame)
        let ipStart = frame.count
        if isIPv4 {
            frame += [0x45, 0x00]
            append(UInt16(truncatingIfNeeded: 20 + transportLength), to: &frame)
            append(identification, to: &frame)
            frame += [0x40, 0x00, 64, ipProtocol, 0, 0]  // don't fragment, TTL 64, checksum later
            append(UInt32(truncatingIfNeeded: source.low), to: &frame)
            append(UInt32(truncatingIfNeeded: destination.low), to: &frame)
            let checksum = frame.withUnsafeBytes { bytes in
                var sum = InternetChecksum()
                sum.add(UnsafeRawBufferPointer(rebasing: bytes[ipStart..<(ipStart + 20)]))
                return sum.value
            }
            put(checksum, at: ipStart + 10, in: &frame)
        } else {
            frame += [0x60, 0x00, 0x00, 0x00]
            append(UInt16(truncatingIfNeeded: transportLength), to: &frame)
            frame += [ipProtocol, 64]
            for word in [source.high, source.low, destination.high, destination.low] {
                append(UInt32(truncatingIfNeeded: word >> 32), to: &frame)
                append(UInt32(truncatingIfNeeded: word), to: &frame)
            }
        }
    }

    /// The checksum of the transport header and payload from `start` to the frame's end, with
    /// the IP pseudo-header.
    private static func transportChecksum(
        of frame: [UInt8], from start: Int, _ source: IPAddress, _ destination: IPAddress, ipProtocol: UInt8
    ) -> UInt16 {
        frame.withUnsafeBytes { bytes in
            var sum = InternetChecksum()
            PacketDecoder.addPseudoHeader(
                to: &sum, source: source, destination: destination, ipProtocol: ipProtocol, length: frame.count - start)
            sum.add(UnsafeRawBufferPointer(rebasing: bytes[start...]))
            return sum.value
        }
    }

    private static func append(_ value: UInt16, to frame: inout [UInt8]) {
        frame += [UInt8(value >> 8), UInt8(value & 0xFF)]
    }

    private static func append(_ value: UInt32, to frame: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { frame += $0 }
    }

    private static func put(_ value: UInt16, at offset: Int, in frame: inout [UInt8]) {
        frame[offset] = UInt8(value >> 8)
        frame[offset + 1] = UInt8(value & 0xFF)
    }
}
