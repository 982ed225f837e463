import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@testable import NetsimModel

/// `watchNetwork: true` for the REST and WebSocket models, as the live clients' loops ask the
/// phone's reachability: at the top of each round (REST) or before each connection attempt
/// (WebSocket), offline, they wait for the network instead of sending into the outage.
@Suite(.computes)
struct NetworkWatchModelTests {
    static func rest(watching: Bool, reconnect: ClientSettings.Reconnect = .resilient) -> RESTPollingClientModel {
        var settings = ClientSettings.RESTSettings()
        settings.watchNetwork = watching
        return RESTPollingClientModel(settings: settings, batchLimit: 100, reconnect: reconnect, seed: 1)
    }

    static func webSocket(watching: Bool) -> WebSocketClientModel {
        var settings = ClientSettings.WebSocketSettings()
        settings.watchNetwork = watching
        settings.pingInterval = nil
        return WebSocketClientModel(settings: settings, seed: 1)
    }

    /// Offline at its start, a watching poller sends nothing; the network back at 3 s, it
    /// connects and polls at once, with its 10 s request timeout. A poller that does not watch,
    /// or a naive one (which never watches), polls into the outage at 0 s.
    @Test func aWatchingPollerWaitsForTheNetworkAndPollsAtOnceWhenItReturns() {
        var ledger = AppLedger(outboxLimit: 8)
        var watching = Self.rest(watching: true)
        #expect(watching.networkChanged(available: false, now: 0, ledger: &ledger).isEmpty)
        #expect(watching.start(now: 0, ledger: &ledger).isEmpty)
        #expect(watching.phase == .suspended)
        #expect(
            watching.networkChanged(available: true, now: 3, ledger: &ledger) == [
                .connect, .send(.pollRequest(after: 0)), .setTimer(.requestTimeout, at: 13),
            ])
        #expect(watching.phase == .polling)

        for var blind in [Self.rest(watching: false), Self.rest(watching: true, reconnect: .naive)] {
            var ledger = AppLedger(outboxLimit: 8)
            _ = blind.networkChanged(available: false, now: 0, ledger: &ledger)
            let actions = blind.start(now: 0, ledger: &ledger)
            #expect(actions.first == .connect && blind.phase == .polling, "\(actions)")
        }
    }

    /// A poll answered at 10 s sets the next for 11 s. The network gone at 10.2 s, a message the
    /// app produces at 10.5 s wakes the loop, which finds it offline: the poll timer is
    /// cancelled and nothing goes. Back at 10.8 s, the message goes at once; the poll after its
    /// answer, as live polls after it posted.
    @Test func aMessageProducedOfflineWaitsForTheNetwork() {
        var ledger = AppLedger(outboxLimit: 8)
        var client = Self.rest(watching: true)
        _ = client.start(now: 0, ledger: &ledger)
        let answered = client.received(.pollResponse(first: 1, last: 0, latest: 0), now: 10, ledger: &ledger)
        #expect(answered == [.cancelTimer(.requestTimeout), .setTimer(.poll, at: 11)])
        #expect(client.networkChanged(available: false, now: 10.2, ledger: &ledger).isEmpty)
        let id = ledger.produceMessage(at: 10.5)
        #expect(client.messageProduced(now: 10.5, ledger: &ledger) == [.cancelTimer(.poll)])
        #expect(client.phase == .suspended)
        #expect(
            client.networkChanged(available: true, now: 10.8, ledger: &ledger) == [
                .send(.postRequest(message: id)), .setTimer(.requestTimeout, at: 20.8),
            ])
        let posted = client.received(.postResponse(ack: id), now: 10.9, ledger: &ledger)
        #expect(posted == [.cancelTimer(.requestTimeout), .send(.pollRequest(after: 0)), .setTimer(.requestTimeout, at: 20.9)])
    }

    /// The answer at 10 s arrives offline, with nothing to post: the app would wait for its
    /// poll at 11 s. Back at 10.4 s, it still waits for 11 s (no early poll); back at 12 s,
    /// past it, it polls at once.
    @Test func backOnlineBeforeThePollIsDueThePollerWaitsForIt() {
        for (back, expected) in [
            (10.4, [TransportAction.setTimer(.poll, at: 11)]),
            (12.0, [.send(.pollRequest(after: 0)), .setTimer(.requestTimeout, at: 22)]),
        ] {
            var ledger = AppLedger(outboxLimit: 8)
            var client = Self.rest(watching: true)
            _ = client.start(now: 0, ledger: &ledger)
            _ = client.networkChanged(available: false, now: 9.9, ledger: &ledger)
            let answered = client.received(.pollResponse(first: 1, last: 0, latest: 0), now: 10, ledger: &ledger)
            #expect(answered == [.cancelTimer(.requestTimeout)])
            #expect(client.phase == .suspended)
            #expect(client.networkChanged(available: true, now: back, ledger: &ledger) == expected, "back at \(back) s")
        }
    }

    /// A request that fails offline waits out the backoff already running (the live loop sleeps
    /// it), then finds the network gone and waits for it; back, it goes at once.
    @Test func aRunningBackoffIsWaitedOutThenThePollerWaitsForTheNetwork() throws {
        var ledger = AppLedger(outboxLimit: 8)
        var client = Self.rest(watching: true)
        _ = client.start(now: 0, ledger: &ledger)
        _ = client.networkChanged(available: false, now: 5, ledger: &ledger)
        let failed = client.timerFired(.requestTimeout, now: 10, ledger: &ledger)
        #expect(failed.contains(.closeConnection) && client.phase == .backingOff)
        guard case .setTimer(.retry, let retryAt) = try #require(failed.last) else {
            Issue.record("no retry timer: \(failed)")
            return
        }
        // The initial backoff, 0.5 s, jittered by at most 20%.
        #expect(retryAt >= 10.4 && retryAt <= 10.6)
        #expect(client.timerFired(.retry, now: retryAt, ledger: &ledger).isEmpty)
        #expect(client.phase == .suspended && ledger.record.failedAttempts == 1)
        let back = client.networkChanged(available: true, now: 20, ledger: &ledger)
        #expect(back == [.connect, .send(.pollRequest(after: 0)), .setTimer(.requestTimeout, at: 30)])
    }

    /// A WebSocket that ends offline waits for the network instead of its backoff (one failed
    /// attempt, no retry timer); back, it connects at once. One that does not watch arms its
    /// backoff and tries into the outage.
    @Test func aWatchingWebSocketConnectsWhenTheNetworkReturnsNotBefore() {
        var ledger = AppLedger(outboxLimit: 8)
        var client = Self.webSocket(watching: true)
        _ = client.start(now: 0, ledger: &ledger)
        _ = client.received(.accepted(newConnection: true), now: 0.1, ledger: &ledger)
        _ = client.networkChanged(available: false, now: 40, ledger: &ledger)
        #expect(client.connectionEnded(.reset, now: 40, ledger: &ledger) == [.cancelTimer(.ping)])
        #expect(client.phase == .suspended && ledger.record.failedAttempts == 1)
        let back = client.networkChanged(available: true, now: 45, ledger: &ledger)
        #expect(back == [.connect, .send(.open(after: 0, newConnection: true))])
        #expect(client.phase == .upgrading)

        var blind = Self.webSocket(watching: false)
        var blindLedger = AppLedger(outboxLimit: 8)
        _ = blind.start(now: 0, ledger: &blindLedger)
        _ = blind.received(.accepted(newConnection: true), now: 0.1, ledger: &blindLedger)
        _ = blind.networkChanged(available: false, now: 40, ledger: &blindLedger)
        let ended = blind.connectionEnded(.reset, now: 40, ledger: &blindLedger)
        guard case .setTimer(.retry, let at) = ended.last else {
            Issue.record("no retry: \(ended)")
            return
        }
        #expect(at >= 40.4 && at <= 40.6)
        #expect(blind.timerFired(.retry, now: at, ledger: &blindLedger).first == .connect)
    }

    /// A backoff that began online runs out offline: the watching WebSocket then waits for the
    /// network; a network that returns during the backoff changes nothing (live sleeps it out).
    @Test func aWebSocketRetryDueOfflineWaitsForTheNetwork() {
        var ledger = AppLedger(outboxLimit: 8)
        var client = Self.webSocket(watching: true)
        _ = client.start(now: 0, ledger: &ledger)
        _ = client.connectionEnded(.reset, now: 1, ledger: &ledger)
        #expect(client.phase == .backingOff)
        #expect(client.networkChanged(available: false, now: 1.1, ledger: &ledger).isEmpty)
        #expect(client.timerFired(.retry, now: 1.5, ledger: &ledger).isEmpty)
        #expect(client.phase == .suspended)
        #expect(client.networkChanged(available: true, now: 9, ledger: &ledger).first == .connect)

        var again = Self.webSocket(watching: true)
        var againLedger = AppLedger(outboxLimit: 8)
        _ = again.start(now: 0, ledger: &againLedger)
        _ = again.connectionEnded(.reset, now: 1, ledger: &againLedger)
        _ = again.networkChanged(available: false, now: 1.1, ledger: &againLedger)
        #expect(again.networkChanged(available: true, now: 1.2, ledger: &againLedger).isEmpty)
        #expect(again.phase == .backingOff)
    }

    /// LTE with a 20 s stall at 40 s (the link down, the connections kept), one phone, 70 s, an
    /// event a second from 0.5 s. The blind poller's poll into the stall outlives its 10 s
    /// timeout and fails, so does the retry on a new connection whose SYN waits out TCP's
    /// backed-off retransmissions; the watching poller sends nothing in the stall and polls at
    /// 60 s on its kept connection. Its recovery (from the network's return to the delivery of
    /// the last event held back) is one round trip and the radio's promotion from IDLE.
    @Test func overAModelledStallTheWatchingPollerFailsLessAndRecoversSooner() throws {
        let yaml = """
            name: stall-test
            description: LTE with a 20 s stall at 40 s.
            networks:
              lte: {radio: lte, link: {delay: 25ms, down: {rate: 12mbps}, up: {rate: 5mbps}}}
            timeline:
              - {at: 40s, outage: {duration: 20s, mode: stall}}
            """
        var plan = BenchPlan(profile: try ProfileLoader.load(yaml: yaml, source: "stall.yaml") { _ in "" })
        plan.transports = [.rest]
        plan.devices = 1
        plan.duration = 70
        plan.workload = ModelEngineTests.idleWorkload
        plan.workload.serverBurst = .init(at: 0.5, events: 70, eventsPerSecond: 1)
        func device(watching: Bool) throws -> (DeliveryFigures, failed: Int) {
            var plan = plan
            plan.client.rest.watchNetwork = watching
            var records: [DeviceRecords] = []
            _ = ModelEngine.run(plan, records: { _, _, handed in records.append(handed) })
            let record = try #require(records.first)
            return (record.deliveryFigures, record.app.failedAttempts)
        }
        let (watching, watchingFailed) = try device(watching: true)
        let (blind, blindFailed) = try device(watching: false)
        #expect(watching.events.delivered == 70 && blind.events.delivered == 70)
        #expect(blindFailed >= 2, "blind: \(blindFailed) failed attempts")
        #expect(watchingFailed <= blindFailed - 2, "watching: \(watchingFailed), blind: \(blindFailed)")
        let recovered = try #require(watching.recoveries.first)
        // LTE's promotion from IDLE is 0.26 s (radio-parameters.md), the round trip 50 ms.
        #expect(recovered >= 0.26 + 0.05 && recovered < 0.26 + 0.05 + 0.1, "watching recovered in \(recovered) s")
        #expect(try #require(blind.recoveries.first) > 5, "blind: \(blind.recoveries)")
    }
}
