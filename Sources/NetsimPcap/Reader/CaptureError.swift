/// Why a capture cannot be read, and where: the file, and the packet number and byte offset of
/// the record that failed (or offset 0 for the file header), so a user can look at the bytes.
public struct CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The file cannot be opened or read at all.
        case unreadable
        /// Not a pcap or pcapng file.
        case notACapture
        /// A link layer netsim does not decode (Wi-Fi radiotap, USB, Bluetooth...).
        case unsupportedLinkType
        /// The file ends in the middle of a header or a packet.
        case truncated
        /// A header holds impossible values (a packet longer than the snapshot length, a
        /// pcapng block with a bad length).
        case corrupt
    }

    public var file: String
    public var kind: Kind
    /// The 1-based number of the packet whose record failed; nil for the file header.
    public var packetNumber: Int?
    /// Where in the file the failing header or record starts (pcapng records: where reading
    /// stopped; see `CaptureReader.forEachPacket`).
    public var byteOffset: Int
    public var detail: String

    public init(file: String, kind: Kind, packetNumber: Int? = nil, byteOffset: Int = 0, detail: String) {
        self.file = file
        self.kind = kind
        self.packetNumber = packetNumber
        self.byteOffset = byteOffset
        self.detail = detail
    }

    public var description: String {
        "\(file): \(locatedReason)"
    }

    /// Where and what, without the file: `packet 2 at byte offset 94: the capture is truncated: ...`.
    public var locatedReason: String {
        let location = packetNumber.map { "packet \($0) at byte offset \(byteOffset)" } ?? "byte offset \(byteOffset)"
        let summary =
            switch kind {
            case .unreadable: "cannot read the file"
            case .notACapture: "not a pcap or pcapng capture"
            case .unsupportedLinkType: "unsupported link type"
            case .truncated: "the capture is truncated"
            case .corrupt: "the capture is corrupt"
            }
        return "\(location): \(summary): \(detail)"
    }
}
