/// How TCP cuts payload into segments, as the link model, the reports, the model engine and the
/// capture writer all count it: one MSS for all of them.
public enum TCPSegmentation {
    /// The TCP payload of one full segment on a 1500-byte MTU path: 1500 less 20 bytes of IPv4,
    /// 20 of TCP and 12 of the timestamp option.
    public static let maximumSegmentSize = 1448

    /// The IPv4, TCP and timestamp-option headers every segment carries on the wire.
    public static let headerBytes = 52

    /// The bytes a chunk of `bytes` payload takes on the wire: its payload and one set of
    /// headers per segment. A full segment is a 1500-byte packet.
    public static func wireBytes(_ bytes: Int) -> Int {
        bytes + headerBytes * segments(bytes)
    }

    /// The full or partial segments a chunk of `bytes` makes; at least one.
    @inlinable
    public static func segments(_ bytes: Int) -> Int {
        max(1, (bytes + maximumSegmentSize - 1) / maximumSegmentSize)
    }
}
