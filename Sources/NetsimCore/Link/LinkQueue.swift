import DequeModule

/// Which bytes wait for one direction of a link: the chunks queued for serialization and not
/// yet gone, oldest first, each with when `LinkSchedule` last said it leaves and whose it is.
/// The schedule says when bytes may leave; this says which wait, so that when the link changes
/// or a dead connection's bytes leave the queue, the chunks still waiting can be put on the link
/// again, in order, from that moment (`LinkDirection.update`, `dropQueued`). Trimmed as chunks
/// depart: it holds only what is queued, which the proxy's backpressure keeps bounded.
struct LinkQueue: Sendable {
    struct Chunk: Sendable {
        /// When it reached the link (after the radio's admission): it never leaves before.
        var ready: Double
        var start: Double
        var end: Double
        var bytes: Int
        /// The connection it belongs to; nil for a datagram or a lookup, whose delivery is not
        /// moved afterwards.
        var connection: ConnectionID?
        /// How long after leaving the link it reaches the other side on its own (the one-way
        /// delay, retransmissions, an outage it waits out).
        var delayAfterEnd = 0.0
        /// The delivery of the connection's previous chunk, which it never passes: bytes are
        /// not reordered within a connection, even when a link change moves this chunk and
        /// not the previous one, already gone and on its way.
        var floor = -Double.infinity
    }

    private var entries = Deque<Chunk>()
    private(set) var bytes = 0

    mutating func append(_ chunk: Chunk) {
        entries.append(chunk)
        bytes += chunk.bytes
    }

    /// Says whose the chunk queued last is, when it arrives on its own and the delivery it
    /// must not pass.
    mutating func lastBelongs(to connection: ConnectionID, arrivingAt arrival: Double, after floor: Double) {
        guard !entries.isEmpty else { return }
        let last = entries.count - 1
        entries[last].connection = connection
        entries[last].delayAfterEnd = arrival - entries[last].end
        entries[last].floor = floor
    }

    /// Whether a chunk still queued belongs to one of `connections`.
    func holds(any connections: Set<ConnectionID>) -> Bool {
        entries.contains { $0.connection.map(connections.contains) == true }
    }

    /// Removes and returns every chunk still queued, oldest first.
    mutating func removeAll() -> Deque<Chunk> {
        let waiting = entries
        entries = []
        bytes = 0
        return waiting
    }

    /// When the bytes still queued fall under `limit` as chunks depart in order; nil if they
    /// already are.
    func departureTime(leavingBelow limit: Int) -> Double? {
        var remaining = bytes
        for entry in entries {
            if remaining < limit { return nil }
            remaining -= entry.bytes
            if remaining < limit { return entry.end }
        }
        return nil
    }

    /// The bytes of the chunks that have not departed by `time`, as `removeDeparted(before:)`
    /// would leave them, removing nothing.
    func bytes(departingAfter time: Double) -> Int {
        var remaining = bytes
        for entry in entries {
            guard entry.end <= time else { break }
            remaining -= entry.bytes
        }
        return remaining
    }

    mutating func removeDeparted(before time: Double) {
        while let first = entries.first, first.end <= time {
            bytes -= first.bytes
            entries.removeFirst()
        }
    }
}
