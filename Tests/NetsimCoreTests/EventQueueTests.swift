import NetsimCore
import NetsimTestSupport
import Testing

/// The agenda: entries come out by time, ties in the order they were scheduled, whatever the
/// interleaving of schedules and takes.
@Suite(.computes) struct EventQueueTests {
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

    /// A link change moves a connection's pending arrivals: the latest ones, as scheduled, get
    /// the new times in order and take their places among the others; a tie keeps the order
    /// it was scheduled in; another connection's entries and the ones beyond the times given
    /// stay where they were.
    @Test func retimedEntriesTakeTheirNewPlaces() {
        var queue = EventQueue<String>()
        queue.schedule("a1", at: 1.0)
        queue.schedule("b1", at: 1.5)
        queue.schedule("a2", at: 2.0)
        queue.schedule("b2", at: 2.5)
        queue.schedule("a3", at: 3.0)
        // The latest two of a's three: a2 to 4.0, a3 to 2.5 (after b2, scheduled before it).
        queue.retime(latest: [4.0, 2.5], where: { $0.hasPrefix("a") })
        var out: [String] = []
        var times: [Double] = []
        while let next = queue.next() {
            out.append(next.element)
            times.append(next.time)
        }
        #expect(out == ["a1", "b1", "b2", "a3", "a2"])
        #expect(times == [1.0, 1.5, 2.5, 2.5, 4.0])

        // More times than entries: the latest times go to the entries there are.
        queue.schedule("c1", at: 1.0)
        queue.schedule("d1", at: 2.0)
        queue.retime(latest: [0.5, 3.0], where: { $0 == "c1" })
        #expect(queue.next()?.element == "d1")
        #expect(queue.next().map { ($0.element, $0.time) } ?? ("", 0) == ("c1", 3.0))
        // Nothing matches, or no times: nothing moves.
        queue.schedule("e1", at: 1.0)
        queue.retime(latest: [9.0], where: { _ in false })
        queue.retime(latest: [], where: { _ in true })
        #expect(queue.next().map { ($0.element, $0.time) } ?? ("", 0) == ("e1", 1.0))
    }
}
