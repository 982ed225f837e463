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

    @inlinable
    public mutating func schedule(_ element: Element, at time: Double) {
        scheduled += 1
        heap.append(Entry(time: time, order: scheduled, element: element))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry.
    @inlinable
    public mutating func next() -> (time: Double, element: Element)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let entry = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < heap.count, heap[left].precedes(heap[first]) { first = left }
            if right < heap.count, heap[right].precedes(heap[first]) { first = right }
            guard first != parent else { break }
            heap.swapAt(parent, first)
            parent = first
        }
        return (entry.time, entry.element)
    }
}

extension EventQueue: Sendable where Element: Sendable {}
extension EventQueue.Entry: Sendable where Element: Sendable {}
