import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimProxy

/// What the admin API's live changes do to a phone's bytes, on virtual time (`VirtualPhone`):
/// the device calls `POST /set`, `/outage/end` and `/timeline/pause` and `/resume` make, with
/// times exact to the step. `AdminLiveChangeTests` checks the requests and their answers on a
/// real socket.
@Suite(.computes) struct LiveChangeVirtualTimeTests {
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

    /// 20,000 bytes written at 0 s up an 80 kbit/s link (10,000 B/s) would all be gone at 2 s;
    /// at 1 s the link is set to 160 kbit/s: the 10,000 bytes still queued leave at 20,000 B/s
    /// from then, and the last arrives at 1.5 s.
    @Test func aLinkChangeRetimesTheBytesAlreadyQueued() throws {
        let phone = try VirtualPhone(ProxyVirtualTimeTests.profile(LinkParameters(capacity: .rate(bitsPerSecond: 80_000))))
        let connection = try phone.connect(echo: false)
        connection.write([UInt8](repeating: 7, count: 20_000))
        try phone.advance(to: 1)
        try phone.admin { $0.trigger(.set(network: nil, up: LinkChange(capacity: .rate(bitsPerSecond: 160_000)), down: LinkChange())) }
        let done = try #require(try phone.advance(until: 3) { connection.serverReceived.count == 20_000 })
        #expect(abs(done - 1.5) <= 0.001 + 1e-9, "the last byte arrived at \(done) s")
    }

    /// Throttle, write, undo: the uplink set to 8 kbit/s, 30 kB written, the set undone at
    /// 0.5 s. The bytes still queued leave at the profile's 10 Mbit/s from then, and a new
    /// connection's 100-byte round trip takes a step or two of the virtual clock, not
    /// the 30 s the throttled bytes would have held the uplink.
    @Test func aThrottleUndoneLeavesTheUplinkFree() throws {
        let phone = try VirtualPhone(ProxyVirtualTimeTests.profile(LinkParameters(capacity: .rate(bitsPerSecond: 10e6))))
        let throttled = try phone.connect(echo: false)
        try phone.admin { $0.trigger(.set(network: nil, up: LinkChange(capacity: .rate(bitsPerSecond: 8_000)), down: LinkChange())) }
        throttled.write([UInt8](repeating: 7, count: 30_000))
        try phone.advance(to: 0.5)
        #expect(throttled.serverReceived.isEmpty)
        #expect(try phone.admin { $0.undoSet() } != nil)
        let drained = try #require(try phone.advance(until: 1) { throttled.serverReceived.count == 30_000 })
        #expect(drained <= 0.53, "the queued bytes arrived at \(drained) s")
        let fresh = try phone.connect()
        let roundTrip = try #require(try fresh.roundTrip(100, on: phone, within: 2))
        #expect(roundTrip <= 0.003, "a new connection's round trip took \(roundTrip) s")
    }

    /// 50,000 bytes written up an 80 kbit/s link hold it for 5 s. A reset outage at 0.5 s
    /// kills their connection: its bytes leave the queue, and a new connection's 100 bytes
    /// (10 ms each way) come back in about 20 ms, not after the dead bytes' 4.5 s.
    @Test func aResetFreesTheLinkOfTheDeadConnectionsBytes() throws {
        let phone = try VirtualPhone(ProxyVirtualTimeTests.profile(LinkParameters(capacity: .rate(bitsPerSecond: 80_000))))
        let doomed = try phone.connect(echo: false)
        doomed.write([UInt8](repeating: 7, count: 50_000))
        try phone.advance(to: 0.5)
        try phone.admin { $0.trigger(.outage(duration: 0.01, mode: .reset)) }
        #expect(!doomed.clientIsOpen)
        try phone.advance(to: 0.6)
        let fresh = try phone.connect()
        let roundTrip = try #require(try fresh.roundTrip(100, on: phone, within: 2))
        #expect(roundTrip <= 0.025, "a new connection's round trip took \(roundTrip) s")
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
