/// The engine's agenda: entries ordered by time, ties broken by the order they were scheduled,
/// so the same inputs always replay the same way. A binary heap: scheduling and taking the next
/// entry cost O(log n), and the queue holds only what is pending, never the past.
struct EventQueue<Element: Sendable>: Sendable {
    private struct Entry: Sendable {
        var time: Double
        var order: UInt64
        var element: Element

        func precedes(_ other: Entry) -> Bool {
            time < other.time || (time == other.time && order < other.order)
        }
    }

    private var heap: [Entry] = []
    private var scheduled: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }

    /// When the next entry is due.
    var nextTime: Double? { heap.first?.time }

    mutating func schedule(_ element: Element, at time: Double) {
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
    mutating func next() -> (time: Double, element: Element)? {
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
