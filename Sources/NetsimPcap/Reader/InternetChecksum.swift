import NetsimCore

/// The Internet checksum (RFC 1071): the ones' complement of the ones' complement sum of
/// 16-bit big-endian words. The writer fills it into the headers it synthesizes and the reader
/// verifies captures with it, so both sides share this one implementation.
public struct InternetChecksum: Sendable {
    private var sum: UInt64 = 0
    /// A byte left over from an odd-length piece, waiting for its partner.
    private var pendingHighByte: UInt8?

    public init() {}

    public mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var index = 0
        if let high = pendingHighByte, bytes.count > 0 {
            sum &+= UInt64(high) << 8 | UInt64(bytes[0])
            pendingHighByte = nil
            index = 1
        }
        while index + 1 < bytes.count {
            sum &+= UInt64(bytes[index]) << 8 | UInt64(bytes[index + 1])
            index += 2
        }
        if index < bytes.count { pendingHighByte = bytes[index] }
    }

    public mutating func add(_ word: UInt16) {
        withUnsafeBytes(of: word.bigEndian) { add($0) }
    }

    public mutating func add(_ word: UInt32) {
        withUnsafeBytes(of: word.bigEndian) { add($0) }
    }

    /// The checksum to write into a header (a header that holds it sums to `0`).
    public var value: UInt16 {
        var total = sum
        if let high = pendingHighByte { total &+= UInt64(high) << 8 }
        while total >> 16 != 0 { total = (total & 0xFFFF) + (total >> 16) }
        return ~UInt16(total)
    }
}

extension PacketDecoder {
    /// Whether the packet's IPv4 header checksum and TCP or UDP checksum are right; nil for a
    /// checksum that is absent (IPv6 has no header checksum; UDP over IPv4 may send 0) or not
    /// wholly captured. Checksums are not verified during analysis: captures taken on a sender
    /// with checksum offload carry wrong ones.
    public static func checksumsAreValid(
        _ packet: DecodedPacket, in frame: UnsafeRawBufferPointer
    ) -> (ip: Bool?, transport: Bool?) {
        var ipValid: Bool?
        if packet.isIPv4, let header = frame.slice(at: packet.ipHeaderOffset, length: packet.ipHeaderLength) {
            var checksum = InternetChecksum()
            checksum.add(header)
            ipValid = checksum.value == 0
        }
        guard let transportOffset = packet.transportHeaderOffset,
            let segment = frame.slice(at: transportOffset, length: packet.ipHeaderOffset + packet.ipLength - transportOffset)
        else { return (ipValid, nil) }
        if packet.ipProtocol == 17, packet.isIPv4, segment.uint16(at: 6) == 0 { return (ipValid, nil) }
        var checksum = InternetChecksum()
        addPseudoHeader(
            to: &checksum, source: packet.source, destination: packet.destination, ipProtocol: packet.ipProtocol,
            length: segment.count)
        checksum.add(segment)
        return (ipValid, checksum.value == 0)
    }

    /// The pseudo-header TCP and UDP checksums cover (RFC 793 for IPv4, RFC 8200 for IPv6).
    static func addPseudoHeader(
        to checksum: inout InternetChecksum, source: IPAddress, destination: IPAddress, ipProtocol: UInt8, length: Int
    ) {
        if let sourceValue = source.ipv4Value, let destinationValue = destination.ipv4Value {
            checksum.add(sourceValue)
            checksum.add(destinationValue)
            checksum.add(UInt16(ipProtocol))
            checksum.add(UInt16(truncatingIfNeeded: length))
        } else {
            for word in [source.high, source.low, destination.high, destination.low] {
                checksum.add(UInt32(truncatingIfNeeded: word >> 32))
                checksum.add(UInt32(truncatingIfNeeded: word))
            }
            checksum.add(UInt32(truncatingIfNeeded: length))
            checksum.add(UInt32(ipProtocol))
        }
    }
}
