/// Per destination (the server a connection went to, by name: a TLS SNI, an HTTP Host, the
/// name a front end was asked for, or the address), what its chunks waited for: the run
/// report's answer to "which connection paid the promotion, and how much".
public struct DestinationFigures: Sendable, Codable, Equatable {
    public var destination: String
    /// Connections to it that carried bytes.
    public var connections: Int
    /// Chunks delivered to or from it, per direction.
    public var chunks: PerDirection<Int>
    /// Of those, the chunks that waited for anything in `waits`.
    public var waitedChunks: Int
    /// Per cause: the chunks that waited for it, and how long in all and at most.
    public var waits: [WaitCause: WaitFigures]

    public init(
        destination: String, connections: Int = 0, chunks: PerDirection<Int> = .init(up: 0, down: 0), waitedChunks: Int = 0,
        waits: [WaitCause: WaitFigures] = [:]
    ) {
        self.destination = destination
        self.connections = connections
        self.chunks = chunks
        self.waitedChunks = waitedChunks
        self.waits = waits
    }

    /// Every wait of every chunk, summed.
    public var waitedSeconds: Double { waits.values.reduce(0) { $0 + $1.seconds } }

    mutating func add(_ direction: Direction, _ chunkWaits: ChunkWaits) {
        chunks[direction] += 1
        var waited = false
        for cause in WaitCause.allCases where chunkWaits[cause] > 0 {
            waited = true
            waits[cause, default: WaitFigures()].add(chunkWaits[cause])
        }
        if waited { waitedChunks += 1 }
    }
}

/// How the chunks that waited for one cause waited.
public struct WaitFigures: Sendable, Codable, Equatable {
    public var chunks = 0
    public var seconds = 0.0
    public var maxSeconds = 0.0

    public init(chunks: Int = 0, seconds: Double = 0, maxSeconds: Double = 0) {
        self.chunks = chunks
        self.seconds = seconds
        self.maxSeconds = maxSeconds
    }

    mutating func add(_ wait: Double) {
        chunks += 1
        seconds += wait
        maxSeconds = max(maxSeconds, wait)
    }
}

/// Collects `DestinationFigures` as the proxy delivers chunks. A chunk counts once it is
/// delivered (`PendingDeliveries`), as the run report's chunk delays do.
/// Bounded: at most `destinationLimit` destinations by name (later ones are counted together
/// under `otherDestinations`), and the chunks still on their way.
public struct DestinationWaitLedger: Sendable {
    /// The most destinations listed by name.
    public static let destinationLimit = 64
    /// The name under which destinations beyond the limit are counted.
    public static let otherDestinations = "(other destinations)"

    private struct Pending: Sendable {
        var destination: Int
        var direction: Direction
        var waits: ChunkWaits
    }

    private var settled: [DestinationFigures] = []
    private var indices: [String: Int] = [:]
    private var pending = PendingDeliveries<Pending>()

    public init() {}

    /// A connection to `destination` carried its first bytes.
    public mutating func connectionOpened(to destination: String) {
        settled[index(of: destination)].connections += 1
    }

    /// A chunk to or from `destination`, delivered at `deliveredAt` after `waits`.
    public mutating func add(_ destination: String, _ direction: Direction, deliveredAt: Double, waits: ChunkWaits) {
        pending.add(Pending(destination: index(of: destination), direction: direction, waits: waits), deliveredAt: deliveredAt)
    }

    /// Counts the chunks delivered by `time` for good.
    public mutating func settle(through time: Double) {
        pending.settle(through: time) { settled[$0.destination].add($0.direction, $0.waits) }
    }

    /// The figures of the chunks delivered by `time`, the destinations that waited longest first.
    public func figures(until time: Double) -> [DestinationFigures] {
        var figures = settled
        pending.forEachDelivered(by: time) { figures[$0.destination].add($0.direction, $0.waits) }
        return figures.sorted { ($0.waitedSeconds, $1.destination) > ($1.waitedSeconds, $0.destination) }
    }

    private mutating func index(of destination: String) -> Int {
        if let index = indices[destination] { return index }
        let name = settled.count < Self.destinationLimit ? destination : Self.otherDestinations
        if let index = indices[name] {
            return index
        }
        indices[name] = settled.count
        settled.append(DestinationFigures(destination: name))
        return settled.count - 1
    }
}
