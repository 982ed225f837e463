/// Entries ordered by time, ties broken by the order they were scheduled, so the same inputs
/// always replay the same way: the model engine's agenda and the capture writer's planned
/// segments. A binary heap: scheduling and taking the next entry cost O(log n), and the queue
/// holds only what is pending, never the past.
public struct EventQueue<Element> {
    fileprivate struct Entry {
        var time: Double
        var order: UInt64
        var element: Element

        func precedes(_ other: Entry) -> Bool {
            time < other.time || (time == other.time && order < other.order)
        }
    }

    private var heap: [Entry] = []
    private var scheduled: UInt64 = 0

    public init() {}

    public var isEmpty: Bool { heap.isEmpty }
    public var count: Int { heap.count }

    /// When the next entry is due.
    public var nextTime: Double? { heap.first?.time }

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
