/// Big-endian reads that check their bounds. A capture is untrusted input: every header field
/// read says where it is and gets nil when the packet is too short, so malformed data can make
/// a packet undecodable but never trap. A client's first bytes through the proxy are read the
/// same way (`ServerNameSniffer`).
extension UnsafeRawBufferPointer {
    @inlinable
    package func byte(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < count else { return nil }
        return self[offset]
    }

    @inlinable
    package func uint16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        return UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    @inlinable
    package func uint24(at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= count - 3 else { return nil }
        return UInt32(self[offset]) << 16 | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2])
    }

    @inlinable
    package func uint32(at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        return UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8
            | UInt32(self[offset + 3])
    }

    @inlinable
    package func uint64(at offset: Int) -> UInt64? {
        guard let high = uint32(at: offset), let low = uint32(at: offset + 4) else { return nil }
        return UInt64(high) << 32 | UInt64(low)
    }

    /// The bytes in `offset..<offset + length`, or nil when they are not all there.
    @inlinable
    package func slice(at offset: Int, length: Int) -> UnsafeRawBufferPointer? {
        guard offset >= 0, length >= 0, offset <= count - length else { return nil }
        return UnsafeRawBufferPointer(rebasing: self[offset..<(offset + length)])
    }
}
