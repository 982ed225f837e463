import NIOCore
import NetsimProxy
import NetsimTestSupport
import Testing

@testable import NetsimAdmin

/// Which event stream a new subscriber takes the place of when the streams are full
/// (`EventStreamRoster`), on time given as an argument.
@Suite(.computes) struct EventStreamRosterTests {
    static let heartbeat = TimeAmount.seconds(15)
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

    func full(_ count: Int = 16) -> EventStreamRoster<Int> {
        var roster = EventStreamRoster<Int>(limit: count, heartbeat: Self.heartbeat)
        for id in 0..<count { #expect(roster.admit(id, now: Self.start) == .admitted) }
        return roster
    }

    /// Sixteen streams that all look as if they keep up (a quiet phone's never-reading clients
    /// do): a 17th is still admitted, in the place of the oldest, and so is every later one.
    @Test func whenAllKeepUpTheOldestGoes() {
        var roster = full()
        roster.writeStarted(3, now: Self.start)
        roster.writeFinished(3)
        roster.writeStarted(4, now: Self.start + .seconds(10))
        #expect(roster.admit(99, now: Self.start + .seconds(20)) == .admittedInPlaceOf(0), "a write waiting 10 s is under a heartbeat")
        #expect(roster.admit(100, now: Self.start + .seconds(20)) == .admittedInPlaceOf(1))
        roster.remove(2)
        #expect(roster.admit(101, now: Self.start + .seconds(20)) == .admitted, "a free place is taken first")
        #expect(roster.admit(102, now: Self.start + .seconds(20)) == .admittedInPlaceOf(3))
        #expect(roster.count == 16)
    }

    /// A roster whose limit is under 1 still admits, one stream at a time.
    @Test func aLimitUnderOneKeepsOneStream() {
        var roster = EventStreamRoster<Int>(limit: 0, heartbeat: Self.heartbeat)
        #expect(roster.admit(1, now: Self.start) == .admitted)
        #expect(roster.admit(2, now: Self.start) == .admittedInPlaceOf(1))
        #expect(roster.count == 1)
    }

    /// Of the streams whose writes wait, the one waiting longest goes, once it has waited a
    /// heartbeat; then its place is the new one's.
    @Test func theStreamWhoseWriteHasWaitedLongestGoes() {
        var roster = full()
        roster.writeStarted(7, now: Self.start + .seconds(5))
        roster.writeStarted(2, now: Self.start + .seconds(1))
        roster.writeStarted(2, now: Self.start + .seconds(3))
        roster.writeStarted(9, now: Self.start + .seconds(2))
        let now = Self.start + .seconds(30)
        #expect(roster.admit(100, now: now) == .admittedInPlaceOf(2))
        #expect(roster.admit(101, now: now) == .admittedInPlaceOf(9))
        #expect(roster.admit(102, now: now) == .admittedInPlaceOf(7))
        #expect(roster.admit(103, now: now) == .admittedInPlaceOf(0), "then, none waiting, the oldest")
        #expect(roster.count == 16)
    }

    /// A stream that reads too slowly to follow (drops in 3 heartbeat intervals in a row) goes
    /// when none waits on a write; drops that stop reset the count.
    @Test func aStreamDroppingEventsForThreeHeartbeatsGoes() {
        var roster = full()
        for _ in 0..<2 {
            roster.dropped(5)
            roster.heartbeat(5)
        }
        #expect(roster.admit(90, now: Self.start) == .admittedInPlaceOf(0), "two intervals with drops: the oldest goes")
        roster.heartbeat(5)
        roster.dropped(5)
        roster.heartbeat(5)
        #expect(roster.admit(91, now: Self.start) == .admittedInPlaceOf(1), "the drops stopped for an interval")
        for id in [5, 11] {
            for _ in 0..<3 {
                roster.dropped(id)
                roster.heartbeat(id)
            }
        }
        for _ in 0..<2 {
            roster.dropped(11)
            roster.heartbeat(11)
        }
        #expect(roster.admit(100, now: Self.start) == .admittedInPlaceOf(11), "the most intervals in a row")
        #expect(roster.admit(101, now: Self.start) == .admittedInPlaceOf(5))
        // A stream that waits on a write goes before one that drops.
        roster.writeStarted(2, now: Self.start)
        for _ in 0..<3 {
            roster.dropped(3)
            roster.heartbeat(3)
        }
        #expect(roster.admit(102, now: Self.start + .seconds(15)) == .admittedInPlaceOf(2))
        roster.remove(3)
        #expect(roster.admit(103, now: Self.start) == .admitted)
    }
}
