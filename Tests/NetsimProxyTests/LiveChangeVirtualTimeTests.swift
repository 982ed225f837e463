import NetsimCore
import Testing

@testable import NetsimProxy

/// What the admin API's live changes do to a phone's bytes, on virtual time (`VirtualPhone`):
/// the device calls `POST /set`, `/outage/end` and `/timeline/pause` and `/resume` make, with
/// times exact to the step. `AdminLiveChangeTests` checks the requests and their answers on a
/// real socket.
@Suite struct LiveChangeVirtualTimeTests {
    static let profile = ProxyVirtualTimeTests.profile()

    /// `set` of 300 ms each way: the next round trip takes 600 ms, where it took none.
    @Test func aSetDelayIsTheNextRoundTripsDelay() throws {
        let phone = try VirtualPhone(Self.profile)
        let connection = try phone.connect()
        #expect(try connection.roundTrip(10, on: phone) == 0)
        let change = LinkChange(delay: 0.3)
        let event = try #require(try phone.admin { $0.trigger(.set(network: nil, up: change, down: change)) })
        #expect(event.kind == .set)
        let slowed = try #require(try connection.roundTrip(10, on: phone))
        #expect(abs(slowed - 0.6) <= 0.001 + 1e-9, "round trip after the set: \(slowed) s")
        #expect(phone.report().eventCounts[.set] == 1)
    }

    /// A 60 s stall begun at 0.1 s, 1,000 bytes written at 0.2 s, the stall ended at 0.5 s: the
    /// bytes cross at TCP's next retransmission after the end. The link has no delay, so the
    /// RTO is Linux's 200 ms minimum and the retransmissions come 0.2, 0.6 and 1.4 s after the
    /// write: at 0.4 (still in the stall), then 0.8 s. The echo comes back at once.
    @Test func endingAStallEarlyDeliversAtTheNextRetransmission() throws {
        let phone = try VirtualPhone(Self.profile)
        let connection = try phone.connect()
        try phone.advance(to: 0.1)
        try phone.admin { $0.trigger(.outage(duration: 60, mode: .stall)) }
        try phone.advance(to: 0.2)
        connection.write([UInt8](repeating: 7, count: 1000))
        try phone.advance(to: 0.5)
        #expect(connection.clientReceived.isEmpty)
        let end = try phone.admin { $0.endOutage() }.get()
        #expect(end.startedAt == 0.1 && end.plannedEnd == 60.1 && end.movedDeliveries == 1)
        #expect(end.connectivityReturnsAt == nil)
        let back = try #require(try phone.advance(until: 5) { connection.clientReceived.count == 1000 })
        #expect(abs(back - 0.8) <= 0.001 + 1e-9, "the bytes came back at \(back) s")
        let outage = try #require(phone.report().events.first { $0.kind == .outage })
        #expect(outage.durationSeconds.map { abs($0 - 0.4) < 1e-9 } == true, "\(String(describing: outage.durationSeconds))")
        let again = try phone.admin { $0.endOutage() }
        #expect(throws: ReplannableDevice.EarlyEndRefusal.self) { try again.get() }
    }

    /// An outage scripted at 3 s, the timeline paused at 1 s and resumed at 6 s: nothing
    /// happens in the pause, and the outage begins 5 s behind its script, at 8 s.
    @Test func aPausedTimelineHoldsItsEventsBackByThePause() throws {
        let outage = TimelineEvent(at: 3, kind: .outage(duration: 2, mode: .stall))
        let phone = try VirtualPhone(ProxyVirtualTimeTests.profile(events: [outage]))
        try phone.advance(to: 1)
        let paused = try phone.admin { $0.pauseTimeline() }.get()
        #expect(paused.at == 1)
        #expect(throws: DeviceModel.TimelinePauseRefusal.self) { try phone.admin { $0.pauseTimeline() }.get() }
        try phone.advance(to: 6)
        #expect(phone.report().events.isEmpty, "no scripted event while paused")
        let resumed = try phone.admin { $0.resumeTimeline() }.get()
        #expect(resumed.at == 1 && resumed.resumedAt == 6)
        try phone.advance(to: 7.99)
        #expect(phone.report().events.isEmpty)
        try phone.advance(to: 8.01)
        let report = phone.report()
        #expect(report.events.map(\.at) == [8])
        #expect(report.timelinePauses?.count == 1)
    }
}
