/// One of `count` parts of a run that several processes or machines share: it plays the items
/// (a bench's devices, a sweep's scenarios) `index`, `index + count`, `index + 2 * count`, ...
/// with exactly the seeds they have in the whole run, so the parts merged give the whole
/// run's report (`netsim report merge`).
public struct Shard: Sendable, Codable, Hashable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// The whole run, in one part.
    public static let whole = Shard(validIndex: 0, count: 1)

    /// The most parts a run is split into. A bench has at most 100,000 devices and a CI
    /// matrix or an Indexed Job a few hundred pods; 10,000 leaves room for both, while a part
    /// read back from a file from elsewhere cannot make a merge hold or list a billion
    /// missing parts.
    public static let mostParts = 10_000

    /// Why a shard cannot be made, said as the command line says it.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case notAShard(String)
        case noShards(Int)
        case tooMany(Int)
        case indexOutOfRange(index: Int, count: Int)

        public var description: String {
            switch self {
            case .notAShard(let text): "'\(text)' is not a shard: write INDEX/COUNT, e.g. 0/4 for the first of four"
            case .noShards(let count): "a run has at least 1 shard, not \(count)"
            case .tooMany(let count): "a run has at most \(Shard.mostParts) shards, not \(count)"
            case .indexOutOfRange(let index, let count):
                "shard index \(index) is out of range: \(count) shard(s) are numbered 0 to \(count - 1)"
            }
        }
    }

    public init(index: Int, count: Int) throws(Problem) {
        guard count >= 1 else { throw .noShards(count) }
        guard count <= Self.mostParts else { throw .tooMany(count) }
        guard (0..<count).contains(index) else { throw .indexOutOfRange(index: index, count: count) }
        self.init(validIndex: index, count: count)
    }

    /// `INDEX/COUNT`, e.g. `2/4`.
    public init(parsing text: String) throws(Problem) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { throw .notAShard(text) }
        try self.init(index: index, count: count)
    }

    /// Read back from a report: checked as the command line checks it.
    public init(from decoder: any Decoder) throws {
        enum Keys: String, CodingKey { case index, count }
        let container = try decoder.container(keyedBy: Keys.self)
        do {
            try self.init(index: container.decode(Int.self, forKey: .index), count: container.decode(Int.self, forKey: .count))
        } catch let problem as Problem {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: problem.description))
        }
    }

    private init(validIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Whether this part plays item `item` of the whole run.
    public func includes(_ item: Int) -> Bool {
        item % count == index
    }

    /// How many of the whole run's `total` items this part plays.
    public func share(of total: Int) -> Int {
        total > index ? (total - index + count - 1) / count : 0
    }

    public var isWhole: Bool { count == 1 }

    /// `INDEX/COUNT`.
    public var description: String { "\(index)/\(count)" }

    /// Part of a file name: `shard-INDEX-of-COUNT`.
    public var fileLabel: String { "shard-\(index)-of-\(count)" }
}
