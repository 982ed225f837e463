/// Entries ordered by time, ties broken by the order they were scheduled, so the same inputs
/// always replay the same way: the model engine's agenda and the capture writer's planned
/// segments. A binary heap: scheduling and taking the next entry cost O(log n), and the queue
/// holds only what is pending, never the past.
///
/// Inlinable, so that the model engine (another module) gets it specialized for its element:
/// called unspecialized, every heap step went through generic metadata and witness-table
/// lookups, and the agenda alone took over half of a model run's time (issue 22's profile).
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

    @usableFromInline var heap: [Entry] = []
    @usableFromInline var scheduled: UInt64 = 0

    @inlinable
    public init() {}

    @inlinable
    public var isEmpty: Bool { heap.isEmpty }
    @inlinable
    public var count: Int { heap.count }

    /// When the next entry is due.
    @inlinable
    public var nextTime: Double? { heap.first?.time }

    /// When the next entry is due and its order number: the key that `takeOrder`'s entries
    /// are compared with.
    @inlinable
    public var nextKey: (time: Double, order: UInt64)? { heap.first.map { ($0.time, $0.order) } }

    /// Takes the order number that scheduling an entry now would give it, for an entry the
    /// caller keeps outside the queue (the model engine's armed timers: one that is cancelled
    /// or set again then leaves nothing behind to pop). Compared by time, then this number,
    /// such an entry falls among the queue's exactly where a scheduled one would.
    @inlinable
    public mutating func takeOrder() -> UInt64 {
        scheduled += 1
        return scheduled
    }

    /// Sifts with a hole (each step moves one entry, not two) in the heap's own buffer (no
    /// uniqueness or bounds check per step): the agenda is a fifth of a model run.
    @inlinable
    public mutating func schedule(_ element: Element, at time: Double) {
        scheduled += 1
        let entry = Entry(time: time, order: scheduled, element: element)
        heap.append(entry)
        heap.withUnsafeMutableBufferPointer { heap in
            var hole = heap.count - 1
            while hole > 0 {
                let parent = (hole - 1) / 2
                guard entry.precedes(heap[parent]) else { break }
                heap[hole] = heap[parent]
                hole = parent
            }
            heap[hole] = entry
        }
    }

    /// Removes and returns the earliest entry.
    @inlinable
    public mutating func next() -> (time: Double, element: Element)? {
        guard let last = heap.popLast() else { return nil }
        guard !heap.isEmpty else { return (last.time, last.element) }
        let first = heap[0]
        heap.withUnsafeMutableBufferPointer { heap in
            let count = heap.count
            var hole = 0
            while true {
                let left = 2 * hole + 1
                guard left < count else { break }
                let right = left + 1
                let child = right < count && heap[right].precedes(heap[left]) ? right : left
                guard heap[child].precedes(last) else { break }
                heap[hole] = heap[child]
                hole = child
            }
            heap[hole] = last
        }
        return (first.time, first.element)
    }
}

extension EventQueue: Sendable where Element: Sendable {}
extension EventQueue.Entry: Sendable where Element: Sendable {}
