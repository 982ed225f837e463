import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@testable import NetsimModel

/// `reconnect: naive` in the model engine, against hand-computed figures: a client that asks
/// "from now" after losing its connection never gets the events produced while it was away;
/// a resilient one resumes after the last it received and loses none.
@Suite(.computes)
struct NaiveReconnectModelTests {
    /// One device on `ModelEngineTests.resetOutage` (a 5 s reset outage at 40 s) for 60 s, with
    /// an event every second from 0.5 s (event n at n - 0.5 s) and no uplink messages.
    static func configuration(_ transport: BenchTransport, _ reconnect: ClientSettings.Reconnect) throws -> BenchPlan {
        var configuration = BenchPlan(profile: try ModelEngineTests.resetOutage())
        configuration.transports = [transport]
        configuration.devices = 1
        configuration.duration = 60
        configuration.workload = ModelEngineTests.idleWorkload
        configuration.workload.serverBurst = .init(at: 0.5, events: 60, eventsPerSecond: 1)
        configuration.client.reconnect = reconnect
        // A REST poll that waits out the outage on its connection would not fail; a short
        // timeout makes it fail, so the naive poller asks from now after the outage.
        configuration.client.rest.requestTimeout = 0.5
        return configuration
    }

    static func device(_ transport: BenchTransport, _ reconnect: ClientSettings.Reconnect) throws -> (DeliveryFigures, end: Double) {
        var records: [DeviceRecords] = []
        let result = ModelEngine.run(try configuration(transport, reconnect), records: { _, _, handed in records.append(handed) })
        return (try #require(records.first).deliveryFigures, result.endSeconds)
    }

    /// The push clients learn of the reset at 40 s and connect again: WebSocket after the naive
    /// retry (40.1 s), gRPC's subchannel at once (40.0 s). Their SYNs and first bytes, written in
    /// the outage, wait out TCP's backed-off retransmissions (RTO 0.25 s: the 50 ms round trip
    /// plus Linux's 200 ms minimum, doubling) and cross at 47.85 s (40.1 + 0.25 × 31) and
    /// 47.75 s; the subscription from now reaches the server just after, when its latest event
    /// is 48 (47.5 s): events 41 to 48, produced while the client was away, are lost by
    /// skipping, and everything else arrives. The run stops when it is settled, not at the
    /// drain's deadline: the drain does not wait for skipped events.
    @Test(arguments: [BenchTransport.ws, .grpc])
    func aNaivePushClientLosesTheEventsProducedWhileAway(_ transport: BenchTransport) throws {
        let (naive, end) = try Self.device(transport, .naive)
        #expect(naive.events.sent == 60)
        #expect(naive.eventsLostBySkipping == 8)
        #expect(naive.events.delivered == 52)
        #expect(naive.events.unrecoverable == 8)
        #expect(end < 61, "the run waited \(end) s for skipped events")
        let (resilient, _) = try Self.device(transport, .resilient)
        #expect(resilient.events.delivered == 60 && resilient.eventsLostBySkipping == 0)
    }

    /// The REST poller's last answer before the outage covers event 39 (38.5 s); its next poll,
    /// at about 40.2 s, finds the kept-alive connection reset and goes on a new one. Every
    /// request in the outage outlives its 0.5 s timeout and is retried 100 ms later, from now,
    /// on a new connection (every 0.6 s: 40.2, 40.8, ..., 48.0 s, 14 failures). Their bytes
    /// wait out TCP's backed-off retransmissions, the one written at 40.8 s until 48.55 s
    /// (40.8 + 0.25 × 31), and the uplink sends in order, so the requests after the outage
    /// wait behind it and time out too. The poll at 48.6 s is the first answered, from now,
    /// when the server's latest event is 49 (48.5 s): events 40 to 49 are lost by skipping.
    /// A resilient poller asks after event 39 and loses none.
    @Test func aNaivePollerLosesTheEventsProducedWhileAway() throws {
        let (naive, _) = try Self.device(.rest, .naive)
        #expect(naive.eventsLostBySkipping == 10)
        #expect(naive.events.delivered == 50)
        let (resilient, _) = try Self.device(.rest, .resilient)
        #expect(resilient.events.delivered == 60 && resilient.eventsLostBySkipping == 0)
    }

    /// A naive poller asks from now at its start and after each failure, then from the
    /// answer's last event (or the server's latest); a resilient one always from the highest
    /// event received.
    @Test func thePollCursorFollowsTheStrategy() {
        var naive = PollCursor(.naive)
        #expect(naive.after(highestReceived: 7) == ClientSettings.Reconnect.fromNow)
        naive.answered(through: 12)
        #expect(naive.after(highestReceived: 7) == 12)
        naive.answered(through: nil)
        #expect(naive.after(highestReceived: 7) == 12)
        naive.failed()
        #expect(naive.after(highestReceived: 12) == ClientSettings.Reconnect.fromNow)
        var resilient = PollCursor(.resilient)
        resilient.failed()
        #expect(resilient.after(highestReceived: 7) == 7)
        #expect(ClientSettings.Reconnect.naive.resumeCursor(highestReceived: 7) == ClientSettings.Reconnect.fromNow)
        #expect(ClientSettings.Reconnect.resilient.resumeCursor(highestReceived: 7) == 7)
    }

    /// The server resolves "from now" to its latest event when the request reaches it, and
    /// records it as skipped through; `after=now` is three characters on the wire.
    @Test func theServerResolvesFromNowToItsLatestEvent() {
        var server = ModelServer(kind: .rest(batchLimit: 100))
        var actions: [ServerAction] = []
        for _ in 1...3 { server.createEvent(now: 0, into: &actions) }
        actions.removeAll()
        server.received(.pollRequest(after: ClientSettings.Reconnect.fromNow), on: 1, now: 1, into: &actions)
        #expect(actions == [.send(.pollResponse(first: 4, last: 3, latest: 3), on: 1)])
        #expect(server.record.skippedThrough == 3)
        server.received(.pollRequest(after: 1), on: 1, now: 1, into: &actions)
        #expect(actions.last == .send(.pollResponse(first: 2, last: 3, latest: nil), on: 1))
        let wire = WireFormat(encoding: .transport(.rest), eventPayloadBytes: 0, messagePayloadBytes: 0)
        #expect(wire.bytes(.pollRequest(after: ClientSettings.Reconnect.fromNow)) == wire.bytes(.pollRequest(after: 100)))
        // {"events":[],"latest":3}: 11 bytes (,"latest":3) more than {"events":[]}.
        #expect(wire.bytes(.pollResponse(first: 4, last: 3, latest: 3)) == wire.bytes(.pollResponse(first: 4, last: 3, latest: nil)) + 11)
    }
}
