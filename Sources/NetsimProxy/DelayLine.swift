import NIOCore

/// What one direction of a connection has read from its source and not yet handed to its
/// destination, each item with the time the device model says it arrives. Items leave in
/// order (the model never gives a connection an earlier time than its previous one), and the
/// proxy stops reading from the source while `bytes` is at its limit, so this stays bounded.
struct DelayLine {
    enum Item {
        case data(ByteBuffer)
        /// The source half-closed: pass the FIN on after everything before it.
        case end
        /// The source aborted, or sent to a side that is gone: pass a RST on after everything
        /// before it.
        case reset
    }

    private var items = CircularBuffer<(due: NIODeadline, item: Item)>()
    private(set) var bytes = 0
    private var lastDue = NIODeadline.uptimeNanoseconds(0)

    var isEmpty: Bool { items.isEmpty }
    var nextDue: NIODeadline? { items.first?.due }

    /// Whether the next item is a RST.
    var nextIsReset: Bool {
        if case .reset = items.first?.item { return true }
        return false
    }

    /// Queues an item; it never leaves before the items queued ahead of it.
    mutating func append(_ item: Item, due: NIODeadline) {
        if case .data(let buffer) = item { bytes += buffer.readableBytes }
        lastDue = max(lastDue, due)
        items.append((lastDue, item))
    }

    /// Removes and returns the first item if it is due at `now`.
    mutating func popDue(now: NIODeadline) -> Item? {
        guard let first = items.first, first.due <= now else { return nil }
        items.removeFirst()
        if case .data(let buffer) = first.item { bytes -= buffer.readableBytes }
        return first.item
    }

    /// Drops everything (a reset or blackholed connection delivers nothing more). What is
    /// queued afterwards keeps order only with itself: nothing dropped holds it back.
    mutating func removeAll() {
        items.removeAll()
        bytes = 0
        lastDue = .uptimeNanoseconds(0)
    }
}
