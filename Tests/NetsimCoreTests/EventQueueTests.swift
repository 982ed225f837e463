import NetsimCore
import Testing

/// The agenda: entries come out by time, ties in the order they were scheduled, whatever the
/// interleaving of schedules and takes.
@Suite struct EventQueueTests {
    @Test func entriesComeOutByTimeTiesInScheduleOrder() {
        var random = SeededRandom(seed: 42)
        var queue = EventQueue<Int>()
        var pending: [(time: Double, order: Int)] = []
        var taken: [Int] = []
        var expected: [Int] = []
        for order in 0..<5000 {
            // Few distinct times, so ties are common.
            let time = Double(Int(random.unitInterval() * 50))
            queue.schedule(order, at: time)
            pending.append((time, order))
            if random.unitInterval() < 0.4, let next = queue.next() {
                taken.append(next.element)
                let earliest = pending.indices.min { (pending[$0].time, pending[$0].order) < (pending[$1].time, pending[$1].order) }!
                expected.append(pending.remove(at: earliest).order)
                #expect(next.time == Double(Int(next.time)))
            }
        }
        while let next = queue.next() { taken.append(next.element) }
        expected += pending.sorted { ($0.time, $0.order) < ($1.time, $1.order) }.map(\.order)
        #expect(taken == expected)
        #expect(queue.isEmpty && queue.next() == nil)
    }
}
