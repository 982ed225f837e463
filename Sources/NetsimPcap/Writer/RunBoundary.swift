/// Where a `netsim run` began or ended, recorded in its capture so that `netsim analyze` covers
/// exactly the run: the radio starts IDLE at the start record and the figures stop at the end
/// record, as the run's own report does (a capture otherwise shows neither: the radio was idle
/// before the first packet, and the run may have stopped in the middle of a tail or an outage).
///
/// The record is an Ethernet frame with the IEEE 802 Local Experimental EtherType 1 (0x88B5)
/// and an ASCII payload, `netsim run-start` or `netsim run-end`: tcpdump, tshark and Wireshark
/// read it as an ordinary frame of an unknown protocol ("Local Experimental Ethertype 1"), and
/// `netsim analyze` counts it as neither a packet of the device nor one of another host.
public enum RunBoundary: String, Sendable, Equatable, Codable {
    case start = "run-start"
    case end = "run-end"

    static let etherType: UInt16 = 0x88B5
    private static let prefix = Array("netsim ".utf8)

    /// The frame that records this boundary.
    var frame: [UInt8] {
        var frame = FrameEncoder.deviceMAC + FrameEncoder.gatewayMAC
        frame += [UInt8(Self.etherType >> 8), UInt8(Self.etherType & 0xFF)]
        frame += Self.prefix + Array(rawValue.utf8)
        // Padded to Ethernet's 60-byte minimum, as a NIC would send it.
        if frame.count < 60 { frame += Array(repeating: 0, count: 60 - frame.count) }
        return frame
    }

    /// The boundary `frame` records, if it is one (an Ethernet capture's frame that is not IP).
    static func recognize(_ frame: UnsafeRawBufferPointer, linkType: LinkType) -> RunBoundary? {
        guard linkType == .ethernet, frame.uint16(at: 12) == etherType else { return nil }
        let payload = frame.dropFirst(14)
        guard payload.starts(with: prefix) else { return nil }
        let text = payload.dropFirst(prefix.count).prefix { $0 != 0 }
        return RunBoundary(rawValue: String(decoding: text, as: UTF8.self))
    }
}
