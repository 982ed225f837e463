/// How TCP cuts payload into segments, as the link model, the reports, the model engine and the
/// capture writer all count it: one MSS for all of them.
public enum TCPSegmentation {
    /// The TCP payload of one full segment on a 1500-byte MTU path: 1500 less 20 bytes of IPv4,
    /// 20 of TCP and 12 of the timestamp option.
    public static let maximumSegmentSize = 1448

    /// The full or partial segments a chunk of `bytes` makes; at least one.
    public static func segments(_ bytes: Int) -> Int {
        max(1, (bytes + maximumSegmentSize - 1) / maximumSegmentSize)
    }
}
