import Foundation
import NetsimTestSupport
import Testing

@testable import NetsimCore

@Suite(.computes) struct ServerNameSnifferTests {
    static func sniff(_ bytes: [UInt8]) -> ServerNameSniff {
        bytes.withUnsafeBytes { ServerNameSniffer.sniff($0) }
    }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var digits = text.filter(\.isHexDigit).makeIterator()
        while let high = digits.next(), let low = digits.next() { bytes.append(UInt8(String([high, low]), radix: 16)!) }
        return bytes
    }

    /// A TLS 1.3-style ClientHello naming `host`, padded with a padding extension to `padding`
    /// bytes so it can span several segments, as post-quantum key shares make real ones do.
    static func clientHello(host: String, padding: Int = 0) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        let name = Array(host.utf8)
        let serverName = u16(0) + u16(name.count + 5) + u16(name.count + 3) + [0] + u16(name.count) + name
        let versions = u16(43) + u16(3) + [2, 3, 4]
        let paddingExtension = padding > 0 ? u16(21) + u16(padding) + [UInt8](repeating: 0, count: padding) : []
        // The name comes last, after the padding, so it is only readable once reassembled.
        let extensions = versions + paddingExtension + serverName
        let body =
            [3, 3] + [UInt8](repeating: 0xAB, count: 32) + [0] + u16(2) + [0x13, 0x01] + [1, 0] + u16(extensions.count) + extensions
        let handshake = [1, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
        return [0x16, 3, 1] + u16(handshake.count) + handshake
    }

    @Test func tlsClientHelloNamesItsServer() {
        #expect(Self.sniff(Self.clientHello(host: "www.example.org")) == .found("www.example.org"))
        let long = Self.clientHello(host: "cdn.example.net", padding: 2000)
        #expect(Self.sniff(Array(long.prefix(1448))) == .needsMoreData)
        #expect(Self.sniff(long) == .found("cdn.example.net"))
        #expect(Self.sniff([0x16, 3, 3, 0, 5, 2, 0, 0, 1, 0]) == .notFound)  // a ServerHello
    }

    @Test func http1RequestsNameTheirHost() {
        #expect(Self.sniff(Array("GET / HTTP/1.1\r\nAccept: */*\r\nhost:  example.com:8080 \r\n\r\n".utf8)) == .found("example.com:8080"))
        #expect(Self.sniff(Array("POST /api HTTP/1.1\r\nContent-Length: 0\r\n".utf8)) == .needsMoreData)
        #expect(Self.sniff(Array("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n".utf8)) == .notFound)
        #expect(Self.sniff(Array("HTTP/1.1 200 OK\r\nHost: response.example\r\n\r\n".utf8)) == .notFound)
        #expect(Self.sniff(Array("GE".utf8)) == .needsMoreData)
    }

    @Test func http2FirstRequestNamesItsAuthority() {
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        let settings = GRPCExchange.frame(type: 4, flags: 0, stream: 0, [0, 3, 0, 0, 0, 100])
        let literal = GRPCExchange.frame(type: 1, flags: 4, stream: 1, GRPCExchange.requestHeaders)
        #expect(Self.sniff(preface + settings + literal) == .found(GRPCExchange.authority))
        #expect(Self.sniff(preface + settings + Array(literal.prefix(20))) == .needsMoreData)
        // RFC 7541 C.4.1: the first request, :authority Huffman-coded with incremental indexing,
        // padded and with a priority block.
        let huffman = Self.hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff")
        let padded = GRPCExchange.frame(type: 1, flags: 0x04 | 0x08 | 0x20, stream: 1, [2] + [0, 0, 0, 0, 16] + huffman + [0, 0])
        #expect(Self.sniff(preface + padded) == .found("www.example.com"))
    }

    @Test func hpackHuffmanDecodesTheRFCExamples() {
        let examples = [
            ("f1e3 c2e5 f23a 6ba0 ab90 f4ff", "www.example.com"), ("a8eb 1064 9cbf", "no-cache"),
            ("25a8 49e9 5ba9 7d7f", "custom-key"), ("25a8 49e9 5bb8 e8b4 bf", "custom-value"),
            ("6402", "302"), ("aec3 771a 4b", "private"),
        ]
        for (encoded, text) in examples {
            let decoded = Self.hex(encoded).withUnsafeBytes { HPACKHuffman.decode($0) }
            #expect(decoded.map { String(decoding: $0, as: UTF8.self) } == text)
        }
        // Padding must be a prefix of EOS (all ones), and at most 7 bits.
        #expect([UInt8(0x07)].withUnsafeBytes { HPACKHuffman.decode($0) } == [48])  // "0" then 111
        #expect([UInt8(0x00)].withUnsafeBytes { HPACKHuffman.decode($0) } == nil)
        #expect([UInt8(0xFE)].withUnsafeBytes { HPACKHuffman.decode($0) } == nil)
        #expect([UInt8(0xFF), 0xFF].withUnsafeBytes { HPACKHuffman.decode($0) } == nil)
    }

    @Test func otherBytesNameNothing() {
        #expect(Self.sniff([0x00, 0x01, 0x02, 0x03]) == .notFound)
        #expect(Self.sniff(Array("SSH-2.0-OpenSSH_9.6\r\n".utf8)) == .notFound)
        #expect(Self.sniff(Self.clientHello(host: "bad\u{7}name")) == .notFound)
    }
}

/// The name a proxied connection's destination goes by in the run report.
@Suite(.computes) struct DestinationNamerTests {
    func named(_ pieces: [[UInt8]], fallback: String = "10.0.0.1:443", port: Int = 443) -> DestinationNamer {
        var namer = DestinationNamer(fallback: fallback, port: port)
        for piece in pieces { piece.withUnsafeBytes { namer.look(at: $0) } }
        return namer
    }

    @Test("a ClientHello's SNI names the destination, with the port dialed, even split over reads")
    func sniNamesIt() {
        let hello = ServerNameSnifferTests.clientHello(host: "cdn.example.net", padding: 2000)
        let split = named([Array(hello.prefix(1448)), Array(hello.dropFirst(1448))])
        #expect(split.name == "cdn.example.net:443" && split.isSettled)
        let first = named([Array(hello.prefix(1448))])
        #expect(first.name == "10.0.0.1:443" && !first.isSettled, "the fallback until the hello is whole")
    }

    @Test("an HTTP Host names it, and keeps its own port")
    func hostNamesIt() {
        let request = Array("GET / HTTP/1.1\r\nHost: svc.example:8080\r\n\r\n".utf8)
        #expect(named([request], fallback: "127.0.0.1:9000", port: 9000).name == "svc.example:8080")
        let bare = Array("GET / HTTP/1.1\r\nHost: svc.example\r\n\r\n".utf8)
        #expect(named([bare], fallback: "127.0.0.1:9000", port: 9000).name == "svc.example:9000")
        let v6 = Array("GET / HTTP/1.1\r\nHost: [::1]\r\n\r\n".utf8)
        #expect(named([v6], fallback: "[::1]:80", port: 80).name == "[::1]:80")
    }

    @Test("bytes that name nothing settle on the fallback; a stream that never decides stops being kept at one TLS record")
    func fallback() {
        let binary = named([[0x00, 0x01, 0x02]])
        #expect(binary.name == "10.0.0.1:443" && binary.isSettled)
        // A TLS record header that announces a whole record, then bytes that never complete it.
        var namer = DestinationNamer(fallback: "10.0.0.1:443", port: 443)
        let header: [UInt8] = [0x16, 3, 1, 0x40, 0x00, 1, 0, 0x3F, 0xFC]
        header.withUnsafeBytes { namer.look(at: $0) }
        #expect(!namer.isSettled)
        let filler = [UInt8](repeating: 0xAB, count: 4096)
        for _ in 0..<5 { filler.withUnsafeBytes { namer.look(at: $0) } }
        #expect(namer.isSettled && namer.name == "10.0.0.1:443")
    }
}
