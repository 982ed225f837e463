/// What a slow receiving app held up in one direction: chunks that had crossed the emulated
/// link (the model had delivered them) but waited because the receiving socket took no more
/// bytes, its reader being slow or stopped. Apart from `ChunkDelayFigures`, whose link part is
/// the emulated link's own queue and delays: a slow reader is not the link's doing.
public struct ReaderWaitFigures: Sendable, Codable, Equatable {
    /// The chunks that waited, and their bytes.
    public var chunks = 0
    public var bytes = 0
    /// The seconds they waited in all, and the longest wait.
    public var seconds = 0.0
    public var maxSeconds = 0.0

    public init() {}

    /// A chunk of `bytes` waited `seconds` for its reader.
    public mutating func add(bytes: Int, waited seconds: Double) {
        chunks += 1
        self.bytes += bytes
        self.seconds += seconds
        maxSeconds = max(maxSeconds, seconds)
    }
}
