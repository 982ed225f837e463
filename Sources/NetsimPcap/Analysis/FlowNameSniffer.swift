import NetsimCore

/// Collects the first bytes of each direction of a TCP flow until `ServerNameSniffer` names
/// the server or gives up. Most flows are decided by their first payload packet, read in place;
/// only a ClientHello or request head split across segments is copied, and only until then.
struct FlowNameSniffer {
    private struct StreamPrefix {
        var bytes: [UInt8] = []
        var nextSequence: UInt32?
        var isDone = false
    }

    /// Payload packets looked at before giving up on a flow that names nothing.
    private static let maximumPayloadPackets = 16

    private var fromA = StreamPrefix()
    private var fromB = StreamPrefix()
    private var payloadPackets = 0

    /// Whether there is nothing more to learn from this flow.
    var isDone: Bool { (fromA.isDone && fromB.isDone) || payloadPackets >= Self.maximumPayloadPackets }

    /// Looks at one TCP payload (`captured` of `payloadLength` bytes); returns the server's name
    /// once found.
    mutating func inspect(
        _ captured: UnsafeRawBufferPointer, payloadLength: Int, sequence: UInt32, sentByA: Bool
    ) -> String? {
        payloadPackets += 1
        return sentByA
            ? Self.inspect(captured, payloadLength: payloadLength, sequence: sequence, stream: &fromA)
            : Self.inspect(captured, payloadLength: payloadLength, sequence: sequence, stream: &fromB)
    }

    private static func inspect(
        _ captured: UnsafeRawBufferPointer, payloadLength: Int, sequence: UInt32, stream: inout StreamPrefix
    ) -> String? {
        guard !stream.isDone else { return nil }
        if let expected = stream.nextSequence, sequence != expected {
            // Behind: a retransmission of bytes already seen. Ahead: a gap that cannot be read across.
            if Int32(bitPattern: sequence &- expected) > 0 { stream.isDone = true }
            return nil
        }
        stream.nextSequence = sequence &+ UInt32(truncatingIfNeeded: payloadLength)
        let sniff: ServerNameSniff
        if stream.bytes.isEmpty {
            sniff = ServerNameSniffer.sniff(captured)
            if sniff == .needsMoreData { stream.bytes = Array(captured) }
        } else {
            stream.bytes += captured
            sniff = stream.bytes.withUnsafeBytes { ServerNameSniffer.sniff($0) }
        }
        switch sniff {
        case .found(let name):
            stream.isDone = true
            stream.bytes = []
            return name
        case .needsMoreData where captured.count == payloadLength && stream.bytes.count < ServerNameSniffer.maximumPrefix:
            return nil
        case .needsMoreData, .notFound:
            // Decided, or the capture cut the payload (snapshot length) so the rest is unknown.
            stream.isDone = true
            stream.bytes = []
            return nil
        }
    }
}
