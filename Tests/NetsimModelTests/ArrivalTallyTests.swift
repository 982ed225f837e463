import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimModel

/// What a receiver's tally says has arrived.
@Suite(.computes)
struct ArrivalTallyTests {
    /// `hasArrived(after:through:)` says what asking `hasArrived` of each number says, for
    /// arrivals out of order, with gaps and duplicates, over every window.
    @Test func aWindowHasArrivedWhenEachOfItsItemsHas() {
        var random = SeededRandom(seed: 3)
        for _ in 0..<50 {
            var tally = ArrivalTally()
            let created = 1 + Int(random.next() % 30)
            for _ in 0..<created { tally.create(at: 0) }
            for _ in 0..<Int(random.next() % 40) { _ = tally.receive(1 + random.next() % UInt64(created), at: 1) }
            for start in 0...UInt64(created) {
                for last in 0...UInt64(created) {
                    let each = start >= last || (start + 1...last).allSatisfy { tally.hasArrived($0) }
                    #expect(tally.hasArrived(after: start, through: last) == each, "\(start) \(last)")
                }
            }
        }
    }
}
