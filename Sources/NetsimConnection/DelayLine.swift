import DequeModule

/// What one direction of a connection has read from its source and not yet handed to its
/// destination, each item with the time the device model says it arrives. Items leave in
/// order (the model never gives a connection an earlier time than its previous one), and the
/// proxy stops reading from the source while `bytes` is at its limit, so this stays bounded.
///
/// Generic over the chunk (the proxy's `ByteBuffer`) and the instant (the proxy's
/// `NIODeadline`), so that the connection's lifecycle is tested without NIO or sockets.
package struct DelayLine<Chunk, Instant: Comparable> {
    package enum Item {
        case data(Chunk, byteCount: Int)
        /// The source half-closed: pass the FIN on after everything before it.
        case end
        /// The source aborted, or sent to a side that is gone: pass a RST on after everything
        /// before it.
        case reset
    }

    /// First in, first out.
    private var items = Deque<(due: Instant, item: Item)>()
    package private(set) var bytes = 0
    /// The latest due time queued so far: a later item never leaves before it.
    private var lastDue: Instant?

    package init() {}

    package var isEmpty: Bool { items.isEmpty }
    package var nextDue: Instant? { items.first?.due }

    /// Whether the next item is a RST.
    package var nextIsReset: Bool {
        guard case .reset = items.first?.item else { return false }
        return true
    }

    /// Queues an item; it never leaves before the items queued ahead of it.
    package mutating func append(_ item: Item, due: Instant) {
        if case .data(_, let byteCount) = item { bytes += byteCount }
        let due = max(lastDue ?? due, due)
        lastDue = due
        items.append((due, item))
    }

    /// Gives the latest `dues.count` items new due times, each no earlier than the item before
    /// it. False, and nothing changed, if fewer items wait or a RST is among them (it was
    /// queued after them, at its own time).
    package mutating func replanLatest(_ dues: [Instant]) -> Bool {
        let first = items.count - dues.count
        guard first >= 0,
            items[first...].allSatisfy({ entry in
                if case .reset = entry.item { return false }
                return true
            })
        else { return false }
        var previous = first > 0 ? items[first - 1].due : nil
        for (offset, due) in dues.enumerated() {
            let due = max(previous ?? due, due)
            items[first + offset].due = due
            previous = due
        }
        if let previous { lastDue = previous }
        return true
    }

    /// Removes and returns the first item if it is due at `now`.
    package mutating func popDue(now: Instant) -> Item? {
        guard let first = items.first, first.due <= now else { return nil }
        items.removeFirst()
        if case .data(_, let byteCount) = first.item { bytes -= byteCount }
        return first.item
    }

    /// Drops everything (a reset or blackholed connection delivers nothing more). What is
    /// queued afterwards keeps order only with itself: nothing dropped holds it back.
    package mutating func removeAll() {
        items.removeAll()
        bytes = 0
        lastDue = nil
    }
}

extension DelayLine.Item: Equatable where Chunk: Equatable {}
