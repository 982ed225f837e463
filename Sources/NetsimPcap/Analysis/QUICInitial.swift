import Crypto
import Foundation
import NetsimCore
import _CryptoExtras

/// The client's first flight of a QUIC connection, read from a capture for the server's name:
/// an Initial packet (RFC 9000 section 17.2.2) is protected with keys anyone can derive from
/// its Destination Connection ID (RFC 9001 section 5.2), and its CRYPTO frames carry the TLS
/// ClientHello, whose SNI names the server as a TLS record over TCP does.
///
/// QUIC versions 1 (RFC 9000) and 2 (RFC 9369). A value with no I/O: `QUICServerNameSniffer`
/// feeds it a flow's datagrams from the client.
enum QUICInitial {
    /// A QUIC version's Initial salt and the labels of its key derivation.
    struct Version: Equatable {
        let number: UInt32
        let salt: [UInt8]
        let keyLabel: String
        let ivLabel: String
        let headerProtectionLabel: String
        /// The long header's packet type of an Initial packet.
        let initialType: UInt8

        /// RFC 9001 section 5.2.
        static let one = Version(
            number: 1, salt: hex("38762cf7f55934b34d179ae6a4c80cadccbb7f0a"), keyLabel: "quic key", ivLabel: "quic iv",
            headerProtectionLabel: "quic hp", initialType: 0)
        /// RFC 9369 section 3.3.
        static let two = Version(
            number: 0x6b33_43cf, salt: hex("0dede3def700a6db819381be6e269dcbf9bd2ed9"), keyLabel: "quicv2 key",
            ivLabel: "quicv2 iv", headerProtectionLabel: "quicv2 hp", initialType: 1)

        static func named(_ number: UInt32) -> Version? {
            [one, two].first { $0.number == number }
        }

        private static func hex(_ text: String) -> [UInt8] {
            var bytes: [UInt8] = []
            var index = text.startIndex
            while index < text.endIndex {
                let next = text.index(index, offsetBy: 2)
                bytes.append(UInt8(text[index..<next], radix: 16)!)
                index = next
            }
            return bytes
        }
    }

    /// The CRYPTO frames of one Initial packet from the client: each its offset in the crypto
    /// stream and its bytes. Nil when the datagram holds no client Initial packet this can read
    /// (not QUIC, another version, a server's packet, one that does not decrypt).
    static func cryptoFrames(inDatagram datagram: [UInt8]) -> [(offset: Int, bytes: [UInt8])]? {
        var reader = Reader(datagram)
        guard let first = reader.byte(), first & 0xC0 == 0xC0, let versionNumber = reader.uint32(),
            let version = Version.named(versionNumber), (first >> 4) & 0x03 == version.initialType,
            let destinationLength = reader.byte(), destinationLength <= 20, let destination = reader.bytes(Int(destinationLength)),
            let sourceLength = reader.byte(), sourceLength <= 20, reader.skip(Int(sourceLength)),
            let tokenLength = reader.varint(), reader.skip(tokenLength), let length = reader.varint()
        else { return nil }
        let packetNumberOffset = reader.offset
        guard length >= 20, packetNumberOffset + length <= datagram.count else { return nil }
        let keys = Keys(clientOf: destination, version: version)

        // Header protection (RFC 9001 section 5.4): a mask from 16 bytes sampled 4 bytes past
        // where the packet number starts.
        var mask = Array(datagram[(packetNumberOffset + 4)..<(packetNumberOffset + 20)])
        guard (try? AES.permute(&mask, key: keys.headerProtection)) != nil else { return nil }
        var header = Array(datagram[0..<packetNumberOffset])
        header[0] ^= mask[0] & 0x0F
        let packetNumberLength = Int(header[0] & 0x03) + 1
        var packetNumber: UInt64 = 0
        for index in 0..<packetNumberLength {
            let byte = datagram[packetNumberOffset + index] ^ mask[1 + index]
            header.append(byte)
            packetNumber = packetNumber << 8 | UInt64(byte)
        }

        // The payload (RFC 9001 section 5.3): AES-128-GCM, the nonce the IV with the packet
        // number XORed into its low bytes, the header as associated data.
        var nonce = keys.iv
        for index in 0..<8 { nonce[11 - index] ^= UInt8(truncatingIfNeeded: packetNumber >> (8 * index)) }
        let sealed = datagram[(packetNumberOffset + packetNumberLength)..<(packetNumberOffset + length)]
        guard sealed.count > 16,
            let box = try? AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: nonce), ciphertext: sealed.dropLast(16), tag: sealed.suffix(16)),
            let plaintext = try? AES.GCM.open(box, using: keys.packet, authenticating: header)
        else { return nil }
        return frames(Array(plaintext))
    }

    /// The CRYPTO frames among an Initial packet's frames: PADDING, PING, ACK, CRYPTO and
    /// CONNECTION_CLOSE are all an Initial packet may carry (RFC 9000 section 12.4).
    private static func frames(_ payload: [UInt8]) -> [(offset: Int, bytes: [UInt8])]? {
        var reader = Reader(payload)
        var crypto: [(offset: Int, bytes: [UInt8])] = []
        while let type = reader.varint() {
            switch type {
            case 0x00, 0x01:
                continue
            case 0x02, 0x03:
                guard reader.varint() != nil, reader.varint() != nil, let ranges = reader.varint(), reader.varint() != nil else {
                    return nil
                }
                for _ in 0..<ranges { guard reader.varint() != nil, reader.varint() != nil else { return nil } }
                if type == 0x03 { for _ in 0..<3 { guard reader.varint() != nil else { return nil } } }
            case 0x06:
                guard let offset = reader.varint(), let length = reader.varint(), let bytes = reader.bytes(length) else { return nil }
                crypto.append((offset, bytes))
            default:
                // CONNECTION_CLOSE, or something an Initial packet may not carry: nothing more to read.
                return crypto
            }
        }
        return crypto
    }

    /// The client's Initial keys for a connection whose first Destination Connection ID is
    /// `destination` (RFC 9001 section 5.2).
    struct Keys {
        let packet: SymmetricKey
        let iv: [UInt8]
        let headerProtection: SymmetricKey

        init(clientOf destination: [UInt8], version: Version) {
            let initial = HKDF<SHA256>.extract(inputKeyMaterial: SymmetricKey(data: destination), salt: version.salt)
            let client = Self.expandLabel(initial, "client in", length: 32)
            packet = SymmetricKey(data: Self.expandLabel(client, version.keyLabel, length: 16))
            iv = Self.expandLabel(client, version.ivLabel, length: 12)
            headerProtection = SymmetricKey(data: Self.expandLabel(client, version.headerProtectionLabel, length: 16))
        }

        /// TLS 1.3's HKDF-Expand-Label with an empty context (RFC 8446 section 7.1).
        private static func expandLabel<Key: ContiguousBytes>(_ secret: Key, _ label: String, length: Int) -> [UInt8] {
            let fullLabel = Array("tls13 \(label)".utf8)
            let info = [UInt8(length >> 8), UInt8(length & 0xFF), UInt8(fullLabel.count)] + fullLabel + [0]
            let key = HKDF<SHA256>.expand(pseudoRandomKey: secret, info: info, outputByteCount: length)
            return key.withUnsafeBytes { Array($0) }
        }
    }

    /// Reads QUIC's big-endian integers and variable-length integers (RFC 9000 section 16).
    private struct Reader {
        let bytes: [UInt8]
        private(set) var offset = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func uint32() -> UInt32? {
            guard let read = self.bytes(4) else { return nil }
            return read.reduce(0) { $0 << 8 | UInt32($1) }
        }

        mutating func bytes(_ count: Int) -> [UInt8]? {
            guard count >= 0, count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return Array(bytes[offset..<(offset + count)])
        }

        mutating func skip(_ count: Int) -> Bool {
            bytes(count) != nil
        }

        /// A variable-length integer: its first byte's two high bits say it is 1, 2, 4 or 8 bytes.
        mutating func varint() -> Int? {
            guard let first = byte() else { return nil }
            var value = UInt64(first & 0x3F)
            for _ in 0..<((1 << (first >> 6)) - 1) {
                guard let next = byte() else { return nil }
                value = value << 8 | UInt64(next)
            }
            return value <= UInt64(Int.max) ? Int(value) : nil
        }
    }
}

/// Names a UDP flow's server from the ClientHello its first QUIC Initial packets carry: the
/// crypto stream's first bytes, reassembled in order from the client's datagrams, until
/// `ServerNameSniffer` finds the SNI or gives up. Looks at a flow's first `maximumDatagrams`
/// datagrams from the client at most, and keeps at most a TLS record's worth of crypto bytes.
struct QUICServerNameSniffer {
    private var stream: [UInt8] = []
    /// Crypto bytes that arrived ahead of the stream's end, by offset.
    private var ahead: [Int: [UInt8]] = [:]
    private var datagrams = 0
    private(set) var isDone = false

    /// The client's datagrams looked at before giving up on a flow.
    static let maximumDatagrams = 8

    /// Looks at one datagram the client sent; returns the server's name once found.
    mutating func inspect(_ datagram: [UInt8]) -> String? {
        guard !isDone else { return nil }
        datagrams += 1
        if datagrams >= Self.maximumDatagrams { isDone = true }
        guard let frames = QUICInitial.cryptoFrames(inDatagram: datagram) else { return nil }
        for frame in frames where frame.offset + frame.bytes.count > stream.count {
            ahead[frame.offset] = frame.bytes
        }
        while let (offset, bytes) = ahead.first(where: { $0.key <= stream.count }) {
            ahead[offset] = nil
            stream += bytes.dropFirst(stream.count - offset)
        }
        if stream.count > ServerNameSniffer.maximumPrefix || ahead.values.reduce(0, { $0 + $1.count }) > ServerNameSniffer.maximumPrefix {
            isDone = true
            return nil
        }
        switch stream.withUnsafeBytes({ ServerNameSniffer.sniffClientHello($0) }) {
        case .found(let name):
            isDone = true
            return name
        case .notFound:
            isDone = true
            return nil
        case .needsMoreData:
            return nil
        }
    }
}
