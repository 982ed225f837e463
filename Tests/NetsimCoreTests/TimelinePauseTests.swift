import NetsimTestSupport
import Testing

@testable import NetsimCore

/// Pausing a profile's timeline (`ScriptClock`, `DeviceModel.pauseTimeline`): hand-computed
/// times, no sockets.
@Suite(.computes) struct TimelinePauseTests {
    @Test func theScriptClockStandsStillWhilePausedAndRunsBehindAfter() {
        var clock = ScriptClock()
        #expect(clock.isIdentity && clock.scriptTime(at: 12.5) == 12.5 && clock.emulated(12.5) == 12.5)
        clock.pause(at: 20)
        #expect(clock.scriptTime(at: 20) == 20 && clock.scriptTime(at: 35) == 20, "stands still")
        #expect(clock.emulated(19) == 19 && clock.emulated(20) == 20, "what it reached happened")
        #expect(clock.emulated(20.5) == nil, "what lies ahead waits")
        let first = clock.resume(at: 50)
        #expect(first == 30)
        #expect(clock.scriptTime(at: 50) == 20 && clock.scriptTime(at: 60) == 30)
        #expect(clock.emulated(45) == 75 && clock.emulated(10) == 10)
        // A second pause adds to the first: 5 s more from script time 40 (emulated 70).
        clock.pause(at: 70)
        #expect(clock.scriptTime(at: 72) == 40)
        let second = clock.resume(at: 75)
        #expect(second == 5)
        #expect(clock.emulated(45) == 80 && clock.emulated(30) == 60)
        #expect(clock.scriptTime(at: 74) == 40 && clock.scriptTime(at: 85) == 50)
        // Paused and resumed at once, then paused again at the same point: both count.
        var twice = ScriptClock()
        twice.pause(at: 10)
        twice.resume(at: 12)
        twice.pause(at: 12)
        twice.resume(at: 15)
        #expect(twice.emulated(11) == 16)
    }

    /// lte-tunnel's shape: an outage at 45 s for 30 s. Paused at 20 s for 30 s, it begins at
    /// 75 s and ends at 105 s.
    @Test func aPauseBeforeAScriptedOutageMovesItLaterByThePause() throws {
        let outage = TimelineEvent(at: 45, kind: .outage(duration: 30, mode: .stall))
        var device = DeviceModel(profile: Self.profile([outage]), seed: 1)
        let actions = try device.pauseTimeline(at: 20)
        #expect(actions.isEmpty)
        #expect(device.isTimelinePaused && device.nextEventTime == nil)
        #expect(!device.isDisconnected(at: 60), "no scripted outage begins while paused")
        #expect(device.advance(to: 49).isEmpty && device.events.isEmpty)
        let paused = try device.resumeTimeline(at: 50)
        #expect(paused == 30)
        #expect(device.nextEventTime == 75)
        #expect(!device.isDisconnected(at: 74.9) && device.isDisconnected(at: 75) && device.isDisconnected(at: 104.9))
        #expect(!device.isDisconnected(at: 105))
        #expect(device.connectivityReturns(after: 80) == 105)
        _ = device.advance(to: 80)
        #expect(device.events.map(\.at) == [75])
        #expect(device.timelinePauses == [TimelinePause(at: 20, resumedAt: 50)])
        // Bytes sent into the moved outage get through at TCP's retransmission after it.
        let connection = device.openConnection(at: 80)
        guard case .deliver(let delivery) = device.send(100, .up, on: connection, at: 80) else {
            Issue.record("expected a delivery")
            return
        }
        #expect(delivery.at >= 105)
    }

    @Test func anOutageInForceWhenPausedRunsItsCourse() throws {
        let outage = TimelineEvent(at: 45, kind: .outage(duration: 30, mode: .stall))
        let later = TimelineEvent(at: 100, kind: .outage(duration: 10, mode: .stall))
        var device = DeviceModel(profile: Self.profile([outage, later]), seed: 1)
        _ = try? device.pauseTimeline(at: 50)
        #expect(device.events.map(\.at) == [45], "the due event happened first")
        #expect(device.isDisconnected(at: 74) && !device.isDisconnected(at: 75), "ends when planned")
        let paused = try device.resumeTimeline(at: 90)
        #expect(paused == 40)
        #expect(device.nextEventTime == 140)
        #expect(!device.isDisconnected(at: 100) && device.isDisconnected(at: 140) && !device.isDisconnected(at: 150))
    }

    /// What a long serialization splits at: the next scripted gap's start, as the paused clock
    /// places it.
    @Test func theNextGapStartFollowsTheScriptClock() {
        var once = ConnectivityGaps(scripted: [.init(start: 45, end: 75), .init(start: 100, end: 110)], period: nil)
        once.script.pause(at: 50)
        #expect(once.nextGapStart(after: 60) == nil, "nothing scripted begins while paused")
        once.script.resume(at: 90)
        #expect(once.nextGapStart(after: 90) == 140)
        #expect(once.gap(containing: 70) == .init(start: 45, end: 75))
        var repeating = ConnectivityGaps(scripted: [.init(start: 10, end: 15)], period: 60)
        repeating.script.pause(at: 30)
        repeating.script.resume(at: 40)
        #expect(repeating.nextGapStart(after: 20) == 80)
        #expect(repeating.nextGapStart(after: 85) == 140)
        #expect(repeating.gap(containing: 12) == .init(start: 10, end: 15))
    }

    /// A timeline that repeats every 60 s with an outage at 10 s for 5 s: paused from 30 s to
    /// 40 s, the next outage begins at 80 s instead of 70 s, and every later one 10 s late too.
    @Test func aRepeatingTimelineRunsBehindByThePauseInEveryLaterRepetition() throws {
        let outage = TimelineEvent(at: 10, kind: .outage(duration: 5, mode: .stall))
        var device = DeviceModel(profile: Self.profile([outage], repeatPeriod: 60), seed: 1)
        _ = device.advance(to: 30)
        _ = try? device.pauseTimeline(at: 30)
        _ = try? device.resumeTimeline(at: 40)
        #expect(!device.isDisconnected(at: 72) && device.isDisconnected(at: 80) && !device.isDisconnected(at: 85))
        #expect(device.isDisconnected(at: 140) && device.isDisconnected(at: 200) && !device.isDisconnected(at: 131))
        _ = device.advance(to: 145)
        #expect(device.events.map(\.at) == [10, 80, 140])
    }

    @Test func whatCannotBePausedOrResumedSaysWhy() throws {
        var empty = DeviceModel(profile: Self.profile([]), seed: 1)
        #expect(throws: DeviceModel.TimelinePauseRefusal.empty) { try empty.pauseTimeline(at: 1) }
        #expect(throws: DeviceModel.TimelinePauseRefusal.notPaused) { try empty.resumeTimeline(at: 1) }
        var once = DeviceModel(profile: Self.profile([TimelineEvent(at: 5, kind: .outage(duration: 1, mode: .stall))]), seed: 1)
        _ = try once.pauseTimeline(at: 2)
        #expect(throws: DeviceModel.TimelinePauseRefusal.alreadyPaused(since: 2)) { try once.pauseTimeline(at: 3) }
        _ = try once.resumeTimeline(at: 4)
        #expect(throws: DeviceModel.TimelinePauseRefusal.over) { try once.pauseTimeline(at: 10) }
        #expect(DeviceModel.TimelinePauseRefusal.alreadyPaused(since: 2).description == "the timeline is paused already (since 2s)")
    }

    @Test func anEarlyEndOfATriggeredOutageReplaysThePause() throws {
        let scripted = TimelineEvent(at: 45, kind: .outage(duration: 30, mode: .stall))
        var phone = ReplannableDevice(DeviceModel(profile: Self.profile([scripted]), seed: 1))
        _ = phone.trigger(.outage(duration: 100, mode: .stall), at: 10)
        _ = try phone.pauseTimeline(at: 20)
        _ = try phone.resumeTimeline(at: 30)
        _ = try phone.endGaps(at: 40)
        #expect(phone.model.nextEventTime == 55, "the replayed model has the 10 s pause")
        #expect(phone.model.timelinePauses == [TimelinePause(at: 20, resumedAt: 30)])
    }

    /// A staggered phone's timeline (`--timeline-phase staggered`) starts a delay late.
    @Test func aTimelineThatStartsLateMovesEveryScriptedEventByItsDelay() {
        let clock = ScriptClock(delay: 10)
        #expect(clock.emulated(45) == 55 && clock.emulated(0) == 10 && clock.scriptTime(at: 5) == -5 && !clock.isIdentity)
        let outage = TimelineEvent(at: 45, kind: .outage(duration: 30, mode: .stall))
        var device = DeviceModel(profile: Self.profile([outage]), seed: 1, timelineDelay: 10)
        #expect(device.nextEventTime == 55)
        #expect(!device.isDisconnected(at: 50) && device.isDisconnected(at: 55) && !device.isDisconnected(at: 85))
        _ = device.advance(to: 90)
        #expect(device.events.map(\.at) == [55])
        // Repeating every 60 s, 30 s late: the first outage at 40 s; no repetition before the start.
        let short = TimelineEvent(at: 10, kind: .outage(duration: 5, mode: .stall))
        var repeating = DeviceModel(profile: Self.profile([short], repeatPeriod: 60), seed: 1, timelineDelay: 30)
        #expect(!repeating.isDisconnected(at: 12) && repeating.isDisconnected(at: 40) && repeating.isDisconnected(at: 100))
        _ = repeating.advance(to: 101)
        #expect(repeating.events.map(\.at) == [40, 100])
    }

    @Test func aStaggerDelayIsSeededAndWithinOnePassOfTheTimeline() {
        let timeline = Timeline(events: [
            TimelineEvent(at: 40, kind: .set(network: nil, up: .init(), down: .init())),
            TimelineEvent(at: 45, kind: .outage(duration: 30, mode: .stall)),
        ])
        #expect(timeline.span == 75)
        #expect(Timeline(events: timeline.events, repeatPeriod: 120).span == 120 && Timeline().span == 0)
        let delays = (1...50).map { timeline.staggerDelay(seed: UInt64($0)) }
        #expect(delays.allSatisfy { (0..<75).contains($0) })
        #expect(Set(delays).count == 50 && delays.max()! - delays.min()! > 50, "spread over the span")
        #expect(timeline.staggerDelay(seed: 7) == timeline.staggerDelay(seed: 7))
        #expect(Timeline().staggerDelay(seed: 7) == 0)
    }

    static func profile(_ events: [TimelineEvent], repeatPeriod: Double? = nil) -> Profile {
        Profile(
            name: "test", description: "",
            networks: [Network(name: "cell", radio: .none, up: LinkParameters(delay: 0.05), down: LinkParameters(delay: 0.05))],
            start: "cell", timeline: Timeline(events: events, repeatPeriod: repeatPeriod))
    }
}
