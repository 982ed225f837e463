/// Entries ordered by time, ties broken by the order they were scheduled, so the same inputs
/// always replay the same way: the model engine's agenda and the capture writer's planned
/// segments. The queue holds only what is pending, never the past.
///
/// Kept sorted latest first, so the next entry is the last: taking it is a `popLast`, and an
/// entry due before everything pending (most often a chunk's arrival, scheduled tens of
/// milliseconds ahead of a model device's far-off workload times) is an append. Anywhere
/// else, a binary search finds its place and the later entries move up one. A model device
/// has a handful pending, where this costs less than a binary heap's sifts (the heap
/// was 7% of a model run).
///
/// Inlinable, so that the model engine (another module) gets it specialized for its element:
/// called unspecialized, every step went through generic metadata and witness-table
/// lookups, and the agenda alone took over half of a model run's time (in a profile).
public struct EventQueue<Element> {
    @usableFromInline
    struct Entry {
        @usableFromInline var time: Double
        @usableFromInline var order: UInt64
        @usableFromInline var element: Element

        @inlinable
        init(time: Double, order: UInt64, element: Element) {
            self.time = time
            self.order = order
            self.element = element
        }

        @inlinable
        func precedes(_ other: Entry) -> Bool {
            time < other.time || (time == other.time && order < other.order)
        }
    }

    /// Latest first: the next entry is the last.
    @usableFromInline var entries: [Entry] = []
    @usableFromInline var scheduled: UInt64 = 0

    @inlinable
    public init() {}

    @inlinable
    public var isEmpty: Bool { entries.isEmpty }
    @inlinable
    public var count: Int { entries.count }

    /// When the next entry is due.
    @inlinable
    public var nextTime: Double? { entries.last?.time }

    /// When the next entry is due and its order number: the key that `takeOrder`'s entries
    /// are compared with.
    @inlinable
    public var nextKey: (time: Double, order: UInt64)? { entries.last.map { ($0.time, $0.order) } }

    /// Takes the order number that scheduling an entry now would give it, for an entry the
    /// caller keeps outside the queue (the model engine's armed timers: one that is cancelled
    /// or set again then leaves nothing behind to pop). Compared by time, then this number,
    /// such an entry falls among the queue's exactly where a scheduled one would.
    @inlinable
    public mutating func takeOrder() -> UInt64 {
        scheduled += 1
        return scheduled
    }

    @inlinable @inline(__always)
    public mutating func schedule(_ element: Element, at time: Double) {
        scheduled += 1
        let entry = Entry(time: time, order: scheduled, element: element)
        guard let last = entries.last, !entry.precedes(last) else {
            // Due before everything pending: it is the next.
            entries.append(entry)
            return
        }
        insert(entry)
    }

    /// Puts an entry due after the next one in its place. Apart from `schedule`, so that the
    /// usual case (the next entry, an append) is inlined where it is scheduled.
    @inlinable @inline(never)
    mutating func insert(_ entry: Entry) {
        // The first place whose entry is due before the new one: everything from there on is
        // earlier, everything before it later (the new entry's order number is the highest, so
        // it follows every entry due at the same time).
        var (low, high) = (0, entries.count - 1)
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].precedes(entry) { high = middle } else { low = middle + 1 }
        }
        entries.insert(entry, at: low)
    }

    /// Removes and returns the earliest entry.
    @inlinable
    public mutating func next() -> (time: Double, element: Element)? {
        entries.popLast().map { ($0.time, $0.element) }
    }

    /// Gives the latest `times.count` pending entries that `matches`, latest as scheduled, the
    /// times `times` (oldest first), and puts them in their places. They keep their order
    /// numbers, so ties still replay as scheduled. The model engine's arrivals on a connection
    /// that a link change moved (`DeviceModel.takeRetimedDeliveries`); rare, so a scan.
    public mutating func retime(latest times: [Double], where matches: (Element) -> Bool) {
        var matching = entries.indices.filter { matches(entries[$0].element) }
        guard !matching.isEmpty, !times.isEmpty else { return }
        matching.sort { entries[$0].order < entries[$1].order }
        let count = min(matching.count, times.count)
        for (index, time) in zip(matching.suffix(count), times.suffix(count)) { entries[index].time = time }
        entries.sort { $1.precedes($0) }
    }
}

extension EventQueue: Sendable where Element: Sendable {}
extension EventQueue.Entry: Sendable where Element: Sendable {}
