import Foundation
import NetsimCore
import Testing

@testable import NetsimPcap

/// A fresh directory for one test's files, removed with `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "netsim-pcap-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Files kept from fuzzing and hand-made bad inputs, next to this source.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}

/// Classic pcap bytes built by hand: any link type, byte order and precision, and records that
/// can lie about their lengths.
struct PcapBytes {
    var linkType: UInt32
    var nanosecond = true
    var snapshotLength: UInt32 = 65_535
    private(set) var bytes: [UInt8] = []

    init(linkType: UInt32, nanosecond: Bool = true, snapshotLength: UInt32 = 65_535) {
        self.linkType = linkType
        self.nanosecond = nanosecond
        self.snapshotLength = snapshotLength
        append32(nanosecond ? 0xA1B2_3C4D : 0xA1B2_C3D4)
        append16(2)
        append16(4)
        append32(0)
        append32(0)
        append32(snapshotLength)
        append32(linkType)
    }

    /// A record; `capturedLength` and `originalLength` default to the frame's length.
    mutating func add(_ frame: [UInt8], seconds: UInt32, fraction: UInt32 = 0, capturedLength: UInt32? = nil, originalLength: UInt32? = nil)
    {
        append32(seconds)
        append32(fraction)
        append32(capturedLength ?? UInt32(frame.count))
        append32(originalLength ?? UInt32(frame.count))
        bytes += frame
    }

    private mutating func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    private mutating func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
}

/// pcapng bytes built by hand: a section header, one interface, enhanced packet blocks.
struct PcapngBytes {
    private(set) var bytes: [UInt8] = []

    init(linkType: UInt16) {
        block(type: 0x0A0D_0D0A, body: le32(0x1A2B_3C4D) + le16(1) + le16(0) + le64(UInt64.max))
        // Interface with if_tsresol = 9 (nanoseconds).
        let tsresol: [UInt8] = le16(9) + le16(1) + [9, 0, 0, 0] + le16(0) + le16(0)
        block(type: 1, body: le16(linkType) + le16(0) + le32(65_535) + tsresol)
    }

    mutating func add(_ frame: [UInt8], nanoseconds: UInt64) {
        var body = le32(0) + le32(UInt32(nanoseconds >> 32)) + le32(UInt32(nanoseconds & 0xFFFF_FFFF))
        body += le32(UInt32(frame.count)) + le32(UInt32(frame.count)) + frame
        while body.count % 4 != 0 { body.append(0) }
        block(type: 6, body: body)
    }

    private mutating func block(type: UInt32, body: [UInt8]) {
        let length = UInt32(12 + body.count)
        bytes += le32(type) + le32(length) + body + le32(length)
    }

    private func le16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    private func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    private func le64(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
}

/// Synthesized frames for fixtures.
enum Frames {
    static let server = IPAddress("93.184.216.34")!
    static let serverIPv6 = IPAddress("2001:db8::34")!

    /// An Ethernet frame of a TCP segment from the device (or to it).
    static func tcp(
        from source: IPAddress = CaptureEndpoints.deviceIPv4, to destination: IPAddress = server,
        sourcePort: UInt16 = 50_000, destinationPort: UInt16 = 443, sequence: UInt32 = 1000,
        payload: [UInt8] = Array("hello".utf8), fromDevice: Bool = true
    ) -> [UInt8] {
        var frame: [UInt8] = []
        FrameEncoder.encode(
            TCPSegmentFields(
                source: source, sourcePort: sourcePort, destination: destination, destinationPort: destinationPort,
                sequence: sequence, acknowledgment: 1, flags: [.ack, .psh],
                ipIdentification: 7, timestampValue: 1, timestampEcho: 0, payload: payload[...], fromDevice: fromDevice),
            into: &frame)
        return frame
    }

    /// The frame's IP packet, without its 14-byte Ethernet header.
    static func ipPacket(of frame: [UInt8]) -> [UInt8] { Array(frame.dropFirst(14)) }

    /// A UDP datagram over IPv4 in an Ethernet frame, checksum left zero (allowed on IPv4).
    static func udp(from source: UInt32, to destination: UInt32, payload: [UInt8]) -> [UInt8] {
        var frame = FrameEncoder.gatewayMAC + FrameEncoder.deviceMAC + [0x08, 0x00]
        let total = 20 + 8 + payload.count
        var ip: [UInt8] = [0x45, 0, UInt8(total >> 8), UInt8(total & 0xFF), 0, 0, 0x40, 0, 64, 17, 0, 0]
        for value in [source, destination] { withUnsafeBytes(of: value.bigEndian) { ip += $0 } }
        let checksum = ip.withUnsafeBytes { bytes in
            var sum = InternetChecksum()
            sum.add(bytes)
            return sum.value
        }
        ip[10] = UInt8(checksum >> 8)
        ip[11] = UInt8(checksum & 0xFF)
        frame += ip + [0xC3, 0x50, 0x00, 0x35, UInt8((8 + payload.count) >> 8), UInt8((8 + payload.count) & 0xFF), 0, 0]
        return frame + payload
    }
}

extension Array where Element == UInt8 {
    func write(to path: String) throws {
        try Data(self).write(to: URL(fileURLWithPath: path))
    }
}

/// Every packet of a capture, decoded, with its time and checksum verdicts.
struct ReadPacket {
    var time: Double
    var decoded: DecodedPacket
    var payload: [UInt8]
    var checksums: (ip: Bool?, transport: Bool?)
}

func readAll(_ path: String) throws -> (reader: CaptureReader, packets: [ReadPacket]) {
    let reader = try CaptureReader(path: path)
    var packets: [ReadPacket] = []
    try reader.forEachPacket { packet in
        guard case .ip(let decoded) = PacketDecoder.decode(packet.bytes, originalLength: packet.originalLength, linkType: reader.linkType)
        else { return }
        let payload = packet.bytes.slice(at: decoded.payloadOffset, length: decoded.capturedPayloadLength).map { Array($0) } ?? []
        packets.append(
            ReadPacket(
                time: Double(packet.seconds) + Double(packet.nanoseconds) / 1e9, decoded: decoded, payload: payload,
                checksums: PacketDecoder.checksumsAreValid(decoded, in: packet.bytes)))
    }
    return (reader, packets)
}
