/// What the start of a client's byte stream says about the server it talks to.
public enum ServerNameSniff: Sendable, Equatable {
    case found(String)
    /// The stream so far is a prefix of something that may still name the server.
    case needsMoreData
    /// The stream is not a protocol netsim reads names from, or names nothing.
    case notFound
}

/// Reads the server's name from the first bytes a client sends, as a capture shows it: the SNI
/// of a TLS ClientHello, the `Host` header of an HTTP/1.x request (WebSocket upgrades
/// included), or `:authority` (or `host`) in the first HEADERS frame of cleartext HTTP/2 (gRPC
/// without TLS). HPACK is decoded for literal fields, Huffman-coded or not, with static-table
/// names; a first request cannot refer to dynamic entries, so that covers it. Later requests,
/// QUIC (whose ClientHello is encrypted with keys derived per connection) and ECH are not read.
public enum ServerNameSniffer {
    /// The most of a client's stream worth buffering: one whole TLS record.
    public static let maximumPrefix = 5 + 16_384

    public static func sniff(_ stream: UnsafeRawBufferPointer) -> ServerNameSniff {
        guard let first = stream.byte(at: 0) else { return .needsMoreData }
        if first == 0x16 { return tlsServerName(stream) }
        if startsHTTP2Preface(stream) { return http2Authority(stream) }
        if first >= UInt8(ascii: "A"), first <= UInt8(ascii: "Z") { return http1Host(stream) }
        return .notFound
    }

    // MARK: TLS

    private static func tlsServerName(_ stream: UnsafeRawBufferPointer) -> ServerNameSniff {
        guard let version = stream.byte(at: 1), let recordLength = stream.uint16(at: 3) else { return .needsMoreData }
        guard version == 3 else { return .notFound }
        guard let record = stream.slice(at: 5, length: Int(recordLength)) else {
            return 5 + Int(recordLength) <= maximumPrefix ? .needsMoreData : .notFound
        }
        // Fields of a ClientHello that spills into a second record are cut at this record's end.
        return clientHelloServerName(record)
    }

    /// The SNI of a TLS ClientHello handshake message on its own, as QUIC's CRYPTO frames
    /// carry it (RFC 9001 section 4): `needsMoreData` while it is shorter than its length says.
    public static func sniffClientHello(_ handshake: UnsafeRawBufferPointer) -> ServerNameSniff {
        guard let type = handshake.byte(at: 0), handshake.count >= 4 else { return .needsMoreData }
        guard type == 1 else { return .notFound }
        let length = Int(handshake[1]) << 16 | Int(handshake[2]) << 8 | Int(handshake[3])
        guard handshake.count >= 4 + length else { return 4 + length <= maximumPrefix ? .needsMoreData : .notFound }
        return clientHelloServerName(handshake)
    }

    /// The SNI of the ClientHello at the start of `record` (its handshake header included).
    private static func clientHelloServerName(_ record: UnsafeRawBufferPointer) -> ServerNameSniff {
        guard record.byte(at: 0) == 1 else { return .notFound }  // ClientHello
        var offset = 4 + 2 + 32
        guard let sessionIDLength = record.byte(at: offset) else { return .notFound }
        offset += 1 + Int(sessionIDLength)
        guard let cipherSuitesLength = record.uint16(at: offset) else { return .notFound }
        offset += 2 + Int(cipherSuitesLength)
        guard let compressionLength = record.byte(at: offset) else { return .notFound }
        offset += 1 + Int(compressionLength)
        guard let extensionsLength = record.uint16(at: offset) else { return .notFound }
        offset += 2
        let extensionsEnd = min(record.count, offset + Int(extensionsLength))
        while offset + 4 <= extensionsEnd {
            guard let type = record.uint16(at: offset), let length = record.uint16(at: offset + 2) else { return .notFound }
            offset += 4
            if type == 0, let serverNameList = record.slice(at: offset, length: Int(length)) {
                // server_name_list: a 2-byte length, then (name_type, 2-byte length, name).
                var entry = 2
                while let nameType = serverNameList.byte(at: entry), let nameLength = serverNameList.uint16(at: entry + 1) {
                    if nameType == 0, let name = serverNameList.slice(at: entry + 3, length: Int(nameLength)) {
                        return hostName(name).map(ServerNameSniff.found) ?? .notFound
                    }
                    entry += 3 + Int(nameLength)
                }
                return .notFound
            }
            offset += Int(length)
        }
        return .notFound
    }

    // MARK: HTTP/1.x

    /// The longest request head read for a Host header.
    private static let maximumRequestHead = 8_192

    private static func http1Host(_ stream: UnsafeRawBufferPointer) -> ServerNameSniff {
        // The request line: METHOD SP target SP HTTP/1.x CRLF, method in capitals.
        var index = 0
        while let byte = stream.byte(at: index), byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { index += 1 }
        guard let separator = stream.byte(at: index) else { return stream.count < 24 ? .needsMoreData : .notFound }
        guard separator == UInt8(ascii: " "), index <= 16 else { return .notFound }
        var lineStart = 0
        var isRequestLine = true
        while index < min(stream.count, maximumRequestHead) {
            guard stream[index] == UInt8(ascii: "\n") else {
                index += 1
                continue
            }
            let line = UnsafeRawBufferPointer(rebasing: stream[lineStart..<index])
            let content = line.last == UInt8(ascii: "\r") ? UnsafeRawBufferPointer(rebasing: line.dropLast()) : line
            if isRequestLine {
                guard containsHTTPVersion(content) else { return .notFound }
                isRequestLine = false
            } else if content.isEmpty {
                return .notFound
            } else if content.count > 5, hasCaseInsensitivePrefix(content, "host:") {
                var value = UnsafeRawBufferPointer(rebasing: content.dropFirst(5))
                while value.first == UInt8(ascii: " ") || value.first == UInt8(ascii: "\t") {
                    value = UnsafeRawBufferPointer(rebasing: value.dropFirst())
                }
                while value.last == UInt8(ascii: " ") || value.last == UInt8(ascii: "\t") {
                    value = UnsafeRawBufferPointer(rebasing: value.dropLast())
                }
                return hostName(value).map(ServerNameSniff.found) ?? .notFound
            }
            index += 1
            lineStart = index
        }
        return stream.count < maximumRequestHead ? .needsMoreData : .notFound
    }

    private static func containsHTTPVersion(_ line: UnsafeRawBufferPointer) -> Bool {
        let marker = Array(" HTTP/1.".utf8)
        guard line.count >= marker.count else { return false }
        return line.indices.dropLast(marker.count - 1).contains { start in
            marker.indices.allSatisfy { line[start + $0] == marker[$0] }
        }
    }

    private static func hasCaseInsensitivePrefix(_ bytes: UnsafeRawBufferPointer, _ prefix: StaticString) -> Bool {
        let expected = UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        guard bytes.count >= expected.count else { return false }
        return expected.indices.allSatisfy { bytes[$0] | 0x20 == expected[$0] | 0x20 }
    }

    // MARK: HTTP/2

    private static let http2Preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private static func startsHTTP2Preface(_ stream: UnsafeRawBufferPointer) -> Bool {
        let compared = min(stream.count, http2Preface.count)
        return compared >= 3 && (0..<compared).allSatisfy { stream[$0] == http2Preface[$0] }
    }

    private static func http2Authority(_ stream: UnsafeRawBufferPointer) -> ServerNameSniff {
        var offset = http2Preface.count
        while true {
            guard let length = stream.uint24(at: offset), let type = stream.byte(at: offset + 3),
                let flags = stream.byte(at: offset + 4)
            else { return offset + 9 <= maximumPrefix ? .needsMoreData : .notFound }
            guard let payload = stream.slice(at: offset + 9, length: Int(length)) else {
                return offset + 9 + Int(length) <= maximumPrefix ? .needsMoreData : .notFound
            }
            if type == 1 {  // HEADERS
                var blockStart = 0
                var padding = 0
                if flags & 0x08 != 0 {  // PADDED
                    guard let padLength = payload.byte(at: 0) else { return .notFound }
                    padding = Int(padLength)
                    blockStart = 1
                }
                if flags & 0x20 != 0 { blockStart += 5 }  // PRIORITY
                guard let block = payload.slice(at: blockStart, length: payload.count - blockStart - padding) else {
                    return .notFound
                }
                return hpackAuthority(block).map(ServerNameSniff.found) ?? .notFound
            }
            offset += 9 + Int(length)
        }
    }

    /// Static table indices (RFC 7541, Appendix A) of the names that carry the server.
    private static let authorityIndex = 1
    private static let hostIndex = 38

    private static func hpackAuthority(_ block: UnsafeRawBufferPointer) -> String? {
        var offset = 0
        while let first = block.byte(at: offset) {
            let nameIndex: Int
            if first & 0x80 != 0 {  // indexed field: a whole table entry; static ones carry no host
                guard readInteger(block, &offset, prefixBits: 7) != nil else { return nil }
                continue
            } else if first & 0x40 != 0 {  // literal with incremental indexing
                guard let index = readInteger(block, &offset, prefixBits: 6) else { return nil }
                nameIndex = index
            } else if first & 0x20 != 0 {  // dynamic table size update
                guard readInteger(block, &offset, prefixBits: 5) != nil else { return nil }
                continue
            } else {  // literal without indexing, or never indexed
                guard let index = readInteger(block, &offset, prefixBits: 4) else { return nil }
                nameIndex = index
            }
            var isAuthority = nameIndex == authorityIndex || nameIndex == hostIndex
            if nameIndex == 0 {
                guard let name = readString(block, &offset) else { return nil }
                isAuthority = name == Array(":authority".utf8) || name == Array("host".utf8)
            }
            guard let value = readString(block, &offset) else { return nil }
            if isAuthority {
                return value.withUnsafeBytes { hostName($0) }
            }
        }
        return nil
    }

    /// An HPACK integer with an N-bit prefix (RFC 7541, 5.1); nil if cut short or too large.
    private static func readInteger(_ block: UnsafeRawBufferPointer, _ offset: inout Int, prefixBits: Int) -> Int? {
        guard let first = block.byte(at: offset) else { return nil }
        offset += 1
        let mask = (1 << prefixBits) - 1
        var value = Int(first) & mask
        guard value == mask else { return value }
        var shift = 0
        while let byte = block.byte(at: offset) {
            offset += 1
            value += Int(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
            guard shift <= 21 else { return nil }
        }
        return nil
    }

    /// An HPACK string literal (RFC 7541, 5.2), Huffman-decoded when flagged.
    private static func readString(_ block: UnsafeRawBufferPointer, _ offset: inout Int) -> [UInt8]? {
        guard let first = block.byte(at: offset), let length = readInteger(block, &offset, prefixBits: 7),
            let bytes = block.slice(at: offset, length: length)
        else { return nil }
        offset += length
        return first & 0x80 != 0 ? HPACKHuffman.decode(bytes) : Array(bytes)
    }

    // MARK: Names

    /// The bytes as a host name (or `host:port`, or a bracketed IPv6 literal), if they look like
    /// one: anything else a capture shows there is not worth printing.
    private static func hostName(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard (1...255).contains(bytes.count) else { return nil }
        let allowed = bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"),
                UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
                true
            default:
                false
            }
        }
        return allowed ? String(decoding: bytes, as: UTF8.self) : nil
    }
}
