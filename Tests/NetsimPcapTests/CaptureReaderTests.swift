import CPcap
import Foundation
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimPcap

@Suite(.computes) struct CaptureReaderTests {
    /// The device's request as each link layer wraps it.
    static let ethernetFrame = Frames.tcp(payload: Array("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n".utf8))
    static let ipPacket = Frames.ipPacket(of: ethernetFrame)

    static func linuxCooked(_ packet: [UInt8]) -> [UInt8] {
        // Packet type 4 (outgoing), ARPHRD_ETHER, 6-byte address padded to 8, protocol IPv4.
        [0, 4, 0, 1, 0, 6] + FrameEncoder.deviceMAC + [0, 0] + [0x08, 0x00] + packet
    }

    static func linuxCookedV2(_ packet: [UInt8]) -> [UInt8] {
        // Protocol IPv4, reserved, interface 3, ARPHRD_ETHER, outgoing, 6-byte address padded to 8.
        [0x08, 0x00, 0, 0, 0, 0, 0, 3, 0, 1, 4, 6] + FrameEncoder.deviceMAC + [0, 0] + packet
    }

    static func decodeOnly(_ bytes: [UInt8], linkType: UInt32, at directory: TemporaryDirectory) throws -> [ReadPacket] {
        var file = PcapBytes(linkType: linkType)
        file.add(bytes, seconds: 10, fraction: 5)
        let path = directory.file("link-\(linkType).pcap")
        try file.bytes.write(to: path)
        return try readAll(path).packets
    }

    /// By the link type in the file header (LINKTYPE_ values).
    static let framesByLinkType: [UInt32: [UInt8]] = [
        UInt32(DLT_EN10MB): ethernetFrame,
        UInt32(DLT_LINUX_SLL): linuxCooked(ipPacket),
        UInt32(DLT_LINUX_SLL2): linuxCookedV2(ipPacket),
        101: ipPacket,  // LINKTYPE_RAW
        228: ipPacket,  // LINKTYPE_IPV4
        UInt32(DLT_NULL): [2, 0, 0, 0] + ipPacket,  // AF_INET, little-endian host
        UInt32(DLT_LOOP): [0, 0, 0, 2] + ipPacket,
    ]

    @Test(arguments: framesByLinkType.keys.sorted())
    func everyLinkTypeYieldsTheSamePacket(linkType: UInt32) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let packets = try Self.decodeOnly(try #require(Self.framesByLinkType[linkType]), linkType: linkType, at: directory)
        let packet = try #require(packets.first)
        #expect(packets.count == 1)
        #expect(packet.decoded.source == CaptureEndpoints.deviceIPv4)
        #expect(packet.decoded.destination == Frames.server)
        #expect(packet.decoded.sourcePort == 50_000 && packet.decoded.destinationPort == 443)
        #expect(String(decoding: packet.payload, as: UTF8.self).hasPrefix("GET / HTTP/1.1"))
        #expect(packet.checksums.ip == true && packet.checksums.transport == true)
        #expect(abs(packet.time - 10.000000005) < 1e-9)
    }

    @Test func ipv6OverRawIPAndUDPOverEthernetAreDecoded() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let frame = Frames.tcp(from: CaptureEndpoints.deviceIPv6, to: Frames.serverIPv6, payload: [1, 2, 3])
        let ipv6 = try #require(try Self.decodeOnly(Frames.ipPacket(of: frame), linkType: 229, at: directory).first)
        #expect(ipv6.decoded.source == CaptureEndpoints.deviceIPv6 && !ipv6.decoded.isIPv4)
        #expect(ipv6.payload == [1, 2, 3])
        #expect(ipv6.checksums.ip == nil && ipv6.checksums.transport == true)

        let datagram = Frames.udp(from: 0x0A00_0002, to: 0x0808_0808, payload: [9, 9, 9, 9])
        let udp = try #require(try Self.decodeOnly(datagram, linkType: UInt32(DLT_EN10MB), at: directory).first)
        #expect(udp.decoded.ipProtocol == 17 && udp.decoded.destinationPort == 53)
        #expect(udp.decoded.payloadLength == 4 && udp.payload == [9, 9, 9, 9])
        #expect(udp.checksums.transport == nil)
    }

    @Test func ipv6ExtensionHeadersAreWalked() throws {
        let frame = Frames.tcp(from: CaptureEndpoints.deviceIPv6, to: Frames.serverIPv6, payload: [7])
        var packet = Frames.ipPacket(of: frame)
        // Insert an 8-byte hop-by-hop header (next header TCP) after the fixed header.
        let payloadLength = Int(packet[4]) << 8 | Int(packet[5]) + 8
        packet[4] = UInt8(payloadLength >> 8)
        packet[5] = UInt8(payloadLength & 0xFF)
        packet[6] = 0
        packet.insert(contentsOf: [6, 0, 1, 4, 0, 0, 0, 0], at: 40)
        let decoded = packet.withUnsafeBytes { PacketDecoder.decode($0, originalLength: packet.count, linkType: .rawIP) }
        guard case .ip(let ip) = decoded else {
            Issue.record("not decoded: \(decoded)")
            return
        }
        #expect(ip.ipProtocol == 6 && ip.ipHeaderLength == 48 && ip.payloadLength == 1)
    }

    @Test func pcapngIsReadWithItsTimestampResolution() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var file = PcapngBytes(linkType: 1)
        file.add(Self.ethernetFrame, nanoseconds: 1_700_000_000_123_456_789)
        file.add(Frames.udp(from: 0x0A00_0002, to: 0x0808_0808, payload: [1]), nanoseconds: 1_700_000_001_000_000_000)
        let path = directory.file("trace.pcapng")
        try file.bytes.write(to: path)
        let (reader, packets) = try readAll(path)
        #expect(reader.format == "pcapng")
        #expect(packets.count == 2)
        #expect(packets.first?.decoded.sourcePort == 50_000)
        let first = try #require(packets.first)
        #expect(abs(first.time - 1_700_000_000.123_456_789) < 1e-6)
    }

    @Test func aSnapshotLengthShorterThanThePacketStillCountsItsWholeLength() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let frame = Frames.tcp(payload: [UInt8](repeating: 1, count: 1000))
        var file = PcapBytes(linkType: 1, snapshotLength: 96)
        file.add(Array(frame.prefix(96)), seconds: 1, originalLength: UInt32(frame.count))
        let path = directory.file("short.pcap")
        try file.bytes.write(to: path)
        let packet = try #require(try readAll(path).packets.first)
        #expect(packet.decoded.payloadLength == 1000)
        #expect(packet.payload.count == 96 - 66)
        #expect(packet.checksums.transport == nil)
    }

    // MARK: Bad input

    static func expectError(
        _ bytes: [UInt8], _ kind: CaptureError.Kind, packet: Int?, offset: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("bad.pcap")
        try bytes.write(to: path)
        do {
            _ = try readAll(path)
            Issue.record("read without error", sourceLocation: sourceLocation)
        } catch let error as CaptureError {
            #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
            #expect(error.packetNumber == packet, "\(error)", sourceLocation: sourceLocation)
            #expect(error.byteOffset == offset, "\(error)", sourceLocation: sourceLocation)
            #expect(error.description.hasPrefix(path + ": "), sourceLocation: sourceLocation)
        }
    }

    static var twoPacketCapture: [UInt8] {
        var file = PcapBytes(linkType: 1)
        file.add(ethernetFrame, seconds: 1)
        file.add(ethernetFrame, seconds: 2)
        return file.bytes
    }

    @Test func aFileThatIsNotACaptureSaysSo() throws {
        try Self.expectError(Array("<!DOCTYPE html><html>not a capture</html>".utf8), .notACapture, packet: nil, offset: 0)
        try Self.expectError([], .truncated, packet: nil, offset: 0)
    }

    @Test func aTruncatedCaptureNamesThePacketAndWhereItsRecordStarts() throws {
        let whole = Self.twoPacketCapture
        let secondRecord = 24 + 16 + Self.ethernetFrame.count
        try Self.expectError(Array(whole.prefix(10)), .truncated, packet: nil, offset: 0)
        try Self.expectError(Array(whole.prefix(secondRecord + 7)), .truncated, packet: 2, offset: secondRecord)
        try Self.expectError(Array(whole.dropLast(5)), .truncated, packet: 2, offset: secondRecord)
    }

    @Test func aCorruptRecordLengthNamesThePacket() throws {
        var file = PcapBytes(linkType: 1, snapshotLength: 262_144)
        file.add(Self.ethernetFrame, seconds: 1)
        file.add(Self.ethernetFrame, seconds: 2, capturedLength: 0x7FFF_FFF0)
        try Self.expectError(file.bytes, .corrupt, packet: 2, offset: 24 + 16 + Self.ethernetFrame.count)
    }

    @Test func anUnsupportedLinkTypeIsNamed() throws {
        let file = PcapBytes(linkType: 127)  // IEEE 802.11 radiotap
        try Self.expectError(file.bytes, .unsupportedLinkType, packet: nil, offset: 0)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("radiotap.pcap")
        try file.bytes.write(to: path)
        #expect(throws: CaptureError.self) { _ = try CaptureReader(path: path) }
        do { _ = try CaptureReader(path: path) } catch {
            #expect("\(error)".contains("link type 127 (IEEE802_11_RADIO)"))
        }
    }

    @Test func aCorruptPcapngBlockIsReported() throws {
        var file = PcapngBytes(linkType: 1)
        file.add(Self.ethernetFrame, nanoseconds: 1)
        var bytes = file.bytes
        let blockStart = bytes.count
        file.add(Self.ethernetFrame, nanoseconds: 2)
        bytes = file.bytes
        // The second block's length field says 4 bytes, less than any block.
        bytes[blockStart + 4] = 4
        bytes[blockStart + 5] = 0
        // pcapng errors give where reading stopped: after the block's 8-byte type and length.
        try Self.expectError(bytes, .corrupt, packet: 2, offset: blockStart + 8)
    }

    @Test func malformedHeadersInsideAGoodFileAreCountedNotFatal() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var file = PcapBytes(linkType: 1)
        var broken = Self.ethernetFrame
        broken[14] = 0x43  // IPv4 with a 12-byte header
        file.add(broken, seconds: 1)
        file.add(Array(Self.ethernetFrame.prefix(30)), seconds: 2)  // cut inside the IP header
        file.add(Self.ethernetFrame, seconds: 3)
        let path = directory.file("mixed.pcap")
        try file.bytes.write(to: path)
        let analysis = try CaptureAnalysis.analyze(file: path, options: CaptureAnalysisOptions(radio: RadioStages(.defaults(for: .lte))!))
        #expect(analysis.capture.undecodablePackets == 2)
        #expect(analysis.capture.firstUndecodable == "packet 1: IPv4 header length 12 below 20")
        #expect(analysis.capture.devicePackets == 1)
    }
}

extension CaptureReaderTests {
    /// A truncated capture gave only an error. It is analyzed up to where it breaks,
    /// and the analysis says where.
    @Test func aTruncatedCaptureIsAnalyzedUpToWhereItBreaks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let whole = Self.twoPacketCapture
        let secondRecord = 24 + 16 + Self.ethernetFrame.count
        let path = directory.file("cut.pcap")
        try Array(whole.dropLast(5)).write(to: path)
        let analysis = try CaptureAnalysis.analyze(file: path, options: CaptureAnalysisOptions(radio: nil))
        #expect(analysis.capture.packets == 1 && analysis.capture.devicePackets == 1)
        #expect(analysis.capture.readError?.hasPrefix("packet 2 at byte offset \(secondRecord): the capture is truncated") == true)
        #expect(analysis.radio.promotions == 1)
        #expect(analysis.textReport().contains("Broken   packet 2 at byte offset \(secondRecord)"))
        let complete = directory.file("whole.pcap")
        try whole.write(to: complete)
        #expect(try CaptureAnalysis.analyze(file: complete, options: CaptureAnalysisOptions(radio: nil)).capture.readError == nil)
    }
}
