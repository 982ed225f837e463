import Crypto
import NetsimTestSupport
import Testing

@testable import NetsimCore
@testable import NetsimPcap

/// Reading the server's name from a QUIC client's Initial packets: the keys of RFC 9001's
/// Appendix A, and a packet protected here as RFC 9001 section 5 says, read back.
@Suite(.computes) struct QUICInitialTests {
    static let destination: [UInt8] = [0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08]

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func theClientKeysAreRFC9001AppendixAs() {
        let keys = QUICInitial.Keys(clientOf: Self.destination, version: .one)
        #expect(Self.hex(keys.packet.withUnsafeBytes { Array($0) }) == "1f369613dd76d5467730efcbe3b1a22d")
        #expect(Self.hex(keys.iv) == "fa044b2f42a3fd3b46fb255c")
        #expect(Self.hex(keys.headerProtection.withUnsafeBytes { Array($0) }) == "9f50449e04a0e810283a1e9933adedd2")
    }

    /// A ClientHello for `name`: the handshake header, version, random, no session, one cipher
    /// suite, no compression, and the server_name extension.
    static func clientHello(_ name: String) -> [UInt8] {
        let host = Array(name.utf8)
        // server_name_list: its length, then one entry: name_type 0 (host_name), the name's length, the name.
        let serverName =
            [UInt8((host.count + 3) >> 8), UInt8((host.count + 3) & 0xFF), 0, UInt8(host.count >> 8), UInt8(host.count & 0xFF)] + host
        let extensionBody = [UInt8(0), 0, UInt8(serverName.count >> 8), UInt8(serverName.count & 0xFF)] + serverName
        let body: [UInt8] =
            [3, 3] + [UInt8](repeating: 7, count: 32) + [0] + [0, 2, 0x13, 0x01] + [1, 0]
            + [UInt8(extensionBody.count >> 8), UInt8(extensionBody.count & 0xFF)] + extensionBody
        return [1, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    /// A client Initial packet carrying `frames`, protected with the keys of `destination`
    /// (RFC 9001 section 5.3 and 5.4), padded to 1,200 bytes as a client's must be.
    static func protectedInitial(frames: [UInt8], packetNumber: UInt8 = 2) throws -> [UInt8] {
        let keys = QUICInitial.Keys(clientOf: destination, version: .one)
        let payloadLength = 1200 - 26
        let plaintext = frames + [UInt8](repeating: 0, count: payloadLength - 1 - 16 - frames.count)
        let length = plaintext.count + 1 + 16
        let header: [UInt8] =
            [0xC0, 0, 0, 0, 1, UInt8(destination.count)] + destination + [0, 0]
            + [0x40 | UInt8(length >> 8), UInt8(length & 0xFF), packetNumber]
        var nonce = keys.iv
        nonce[11] ^= packetNumber
        let sealed = try AES.GCM.seal(plaintext, using: keys.packet, nonce: AES.GCM.Nonce(data: nonce), authenticating: header)
        var packet = header + Array(sealed.ciphertext) + Array(sealed.tag)
        let numberOffset = header.count - 1
        var mask = Array(packet[(numberOffset + 4)..<(numberOffset + 20)])
        try AES.permute(&mask, key: keys.headerProtection)
        packet[0] ^= mask[0] & 0x0F
        packet[numberOffset] ^= mask[1]
        return packet
    }

    static func cryptoFrame(offset: Int, _ bytes: [UInt8]) -> [UInt8] {
        [0x06, 0x40 | UInt8(offset >> 8), UInt8(offset & 0xFF), 0x40 | UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
    }

    @Test func aClientInitialNamesItsServer() throws {
        let hello = Self.clientHello("api.example.com")
        let packet = try Self.protectedInitial(frames: [0x01] + Self.cryptoFrame(offset: 0, hello))
        let frames = try #require(QUICInitial.cryptoFrames(inDatagram: packet))
        #expect(frames.count == 1 && frames[0].offset == 0 && frames[0].bytes == hello)
        var sniffer = QUICServerNameSniffer()
        #expect(sniffer.inspect(packet) == "api.example.com")
        #expect(sniffer.isDone)
    }

    /// A ClientHello split over two Initial packets, the second arriving first.
    @Test func aClientHelloSplitOverTwoPacketsIsReassembled() throws {
        let hello = Self.clientHello("split.example.org")
        let first = try Self.protectedInitial(frames: Self.cryptoFrame(offset: 0, Array(hello[..<30])), packetNumber: 0)
        let second = try Self.protectedInitial(frames: Self.cryptoFrame(offset: 30, Array(hello[30...])), packetNumber: 1)
        var sniffer = QUICServerNameSniffer()
        #expect(sniffer.inspect(second) == nil)
        #expect(sniffer.inspect(first) == "split.example.org")
    }

    @Test func whatIsNotAClientInitialNamesNothing() throws {
        var packet = try Self.protectedInitial(frames: Self.cryptoFrame(offset: 0, Self.clientHello("x.example")))
        packet[packet.count - 1] ^= 1  // the tag no longer matches
        #expect(QUICInitial.cryptoFrames(inDatagram: packet) == nil)
        #expect(QUICInitial.cryptoFrames(inDatagram: Array("GET / HTTP/1.1\r\n".utf8)) == nil)
        #expect(QUICInitial.cryptoFrames(inDatagram: [0xC0, 0, 0, 0, 1]) == nil)
        // A short-header packet, and a version this does not know.
        #expect(QUICInitial.cryptoFrames(inDatagram: [0x40] + [UInt8](repeating: 1, count: 40)) == nil)
        #expect(QUICInitial.cryptoFrames(inDatagram: [0xC0, 0xFA, 0xCE, 0xB0, 0x0C] + [UInt8](repeating: 0, count: 40)) == nil)
        var sniffer = QUICServerNameSniffer()
        for _ in 0..<QUICServerNameSniffer.maximumDatagrams { _ = sniffer.inspect([1, 2, 3]) }
        #expect(sniffer.isDone)
    }
}
