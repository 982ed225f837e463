import NIOCore
import NetsimTestSupport
import Testing

@testable import NetsimProxy

/// RFC 1928 section 7's datagram header, read and written without sockets.
@Suite(.computes) struct SOCKSDatagramHeaderTests {
    func read(_ bytes: [UInt8]) throws(SOCKSDatagramHeader.ParseError) -> (SOCKSDatagramHeader, [UInt8]) {
        var buffer = ByteBuffer(bytes: bytes)
        let header = try SOCKSDatagramHeader.read(from: &buffer)
        return (header, Array(buffer.readableBytesView))
    }

    @Test func readsEachAddressTypeAndLeavesThePayload() throws {
        let (ipv4, payload) = try read([0, 0, 0, 1, 127, 0, 0, 1, 0x01, 0xBB, 9, 8])
        #expect(ipv4 == SOCKSDatagramHeader(fragment: 0, address: .ipv4([127, 0, 0, 1]), port: 443))
        #expect(payload == [9, 8])
        #expect(ipv4.destination == HostPort(host: "127.0.0.1", port: 443))
        let (named, _) = try read([0, 0, 0, 3, 9] + Array("localhost".utf8) + [0, 53])
        #expect(named.destination == HostPort(host: "localhost", port: 53))
        let (ipv6, _) = try read([0, 0, 2, 4] + [UInt8](repeating: 0, count: 15) + [1, 0, 80])
        #expect(ipv6.fragment == 2)
        #expect(ipv6.destination == HostPort(host: "::1", port: 80))
    }

    @Test func refusesWhatIsNotAHeader() throws {
        #expect(throws: SOCKSDatagramHeader.ParseError.truncated) { try read([0, 0, 0, 1, 127, 0]) }
        #expect(throws: SOCKSDatagramHeader.ParseError.truncated) { try read([0, 0, 0, 3, 9, 65]) }
        #expect(throws: SOCKSDatagramHeader.ParseError.reservedBytesNotZero) { try read([0, 1, 0, 1, 127, 0, 0, 1, 0, 80]) }
        #expect(throws: SOCKSDatagramHeader.ParseError.unknownAddressType(7)) { try read([0, 0, 0, 7, 1, 2]) }
        // A destination of port 0, or a name that is not a host name, is no destination.
        #expect(try read([0, 0, 0, 1, 127, 0, 0, 1, 0, 0]).0.destination == nil)
        #expect(try read([0, 0, 0, 3, 3, 0x61, 0x0A, 0x62, 0, 80]).0.destination == nil)
    }

    @Test func writesTheSourceOfADatagramComingBack() throws {
        let source = try SocketAddress(ipAddress: "10.1.2.3", port: 4433)
        var buffer = ByteBuffer()
        try #require(SOCKSDatagramHeader(source: source)).write(to: &buffer)
        #expect(Array(buffer.readableBytesView) == [0, 0, 0, 1, 10, 1, 2, 3, 0x11, 0x51])
        let six = try SocketAddress(ipAddress: "::1", port: 53)
        var sixBuffer = ByteBuffer()
        try #require(SOCKSDatagramHeader(source: six)).write(to: &sixBuffer)
        #expect(Array(sixBuffer.readableBytesView) == [0, 0, 0, 4] + [UInt8](repeating: 0, count: 15) + [1, 0, 53])
    }
}
