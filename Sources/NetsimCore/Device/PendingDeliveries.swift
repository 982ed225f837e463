/// What counts once delivered, kept until the clock passes its delivery, so that a report
/// stops where the run stopped: a chunk still on its way has had neither its delay nor its
/// waits yet. Holds only what is still on its way (the chunks in flight).
struct PendingDeliveries<Item: Sendable>: Sendable {
    private struct Entry: Sendable {
        var deliveredAt: Double
        var item: Item
    }

    private var entries: [Entry] = []
    /// The earliest delivery held: settling before it has nothing to do.
    private var nextDelivery = Double.infinity

    mutating func add(_ item: Item, deliveredAt: Double) {
        entries.append(Entry(deliveredAt: deliveredAt, item: item))
        nextDelivery = min(nextDelivery, deliveredAt)
    }

    /// Hands each item delivered by `time` to `count`, in the order added, and forgets it.
    mutating func settle(through time: Double, _ count: (Item) -> Void) {
        guard nextDelivery <= time else { return }
        for entry in entries where entry.deliveredAt <= time { count(entry.item) }
        entries.removeAll { $0.deliveredAt <= time }
        nextDelivery = entries.map(\.deliveredAt).min() ?? .infinity
    }

    /// Hands each item delivered by `time` to `count`, in the order added, keeping it.
    func forEachDelivered(by time: Double, _ count: (Item) -> Void) {
        for entry in entries where entry.deliveredAt <= time { count(entry.item) }
    }
}
