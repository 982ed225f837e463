import NIOCore
import NetsimProxy
import Testing

@testable import NetsimAdmin

/// Which event stream a new subscriber takes the place of when the streams are full
/// (`EventStreamRoster`), on time given as an argument.
@Suite struct EventStreamRosterTests {
    static let heartbeat = TimeAmount.seconds(15)
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

    func full(_ count: Int = 16) -> EventStreamRoster<Int> {
        var roster = EventStreamRoster<Int>(limit: count, heartbeat: Self.heartbeat)
        for id in 0..<count { #expect(roster.admit(id, now: Self.start) == .admitted) }
        return roster
    }

    /// Sixteen clients that keep up, idle or not, keep their places: the 17th gets a 503.
    @Test func streamsThatKeepUpAreNotPushedOut() {
        var roster = full()
        roster.writeStarted(3, now: Self.start)
        roster.writeFinished(3)
        roster.writeStarted(4, now: Self.start + .seconds(10))
        #expect(roster.admit(99, now: Self.start + .seconds(20)) == .refused, "a write waiting 10 s is under a heartbeat")
        #expect(roster.count == 16)
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
        #expect(roster.admit(103, now: now) == .refused)
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
        #expect(roster.admit(100, now: Self.start) == .refused, "two intervals with drops")
        roster.heartbeat(5)
        roster.dropped(5)
        roster.heartbeat(5)
        #expect(roster.admit(100, now: Self.start) == .refused, "the drops stopped for an interval")
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
        roster.writeStarted(0, now: Self.start)
        for _ in 0..<3 {
            roster.dropped(1)
            roster.heartbeat(1)
        }
        #expect(roster.admit(102, now: Self.start + .seconds(15)) == .admittedInPlaceOf(0))
        roster.remove(1)
        #expect(roster.admit(103, now: Self.start) == .admitted)
    }
}
