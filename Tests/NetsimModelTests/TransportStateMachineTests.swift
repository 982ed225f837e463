import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimModel

/// Each transport's state machine alone: inputs in, actions out, no engine, no clock.
@Suite(.computes)
struct TransportStateMachineTests {
    @Test func restPostsTheOutboxThenPollsThenWaits() {
        var ledger = AppLedger(outboxLimit: 8)
        _ = ledger.produceMessage(at: 0)
        var client = RESTPollingClientModel(settings: ClientSettings.RESTSettings(), batchLimit: 100, seed: 1)
        #expect(client.start(now: 0, ledger: &ledger) == [.connect, .send(.postRequest(message: 1)), .setTimer(.requestTimeout, at: 10)])
        ledger.acknowledge(1)
        #expect(
            client.received(.postResponse(ack: 1), now: 0.1, ledger: &ledger)
                == [.cancelTimer(.requestTimeout), .send(.pollRequest(after: 0)), .setTimer(.requestTimeout, at: 10.1)])
        #expect(
            client.received(.pollResponse(first: 1, last: 0, latest: nil), now: 0.2, ledger: &ledger)
                == [.cancelTimer(.requestTimeout), .setTimer(.poll, at: 1.2)])
        #expect(client.phase == .waiting)
    }

    /// `requestTimeout: none` and `pingInterval: none` (deadlines): no timer, so a
    /// request or connection on a dead path waits as long as the run.
    @Test func withoutDeadlinesNoTimerIsArmed() {
        var ledger = AppLedger(outboxLimit: 8)
        var rest = ClientSettings.RESTSettings()
        rest.requestTimeout = nil
        var poller = RESTPollingClientModel(settings: rest, batchLimit: 100, seed: 1)
        #expect(poller.start(now: 0, ledger: &ledger) == [.connect, .send(.pollRequest(after: 0))])
        var ws = ClientSettings.WebSocketSettings()
        ws.pingInterval = nil
        var socket = WebSocketClientModel(settings: ws, seed: 1)
        _ = socket.start(now: 0, ledger: &ledger)
        #expect(socket.received(.accepted(newConnection: true), now: 0.1, ledger: &ledger) == [])
    }

    @Test func restTimeoutClosesCountsAndBacksOff() {
        var ledger = AppLedger(outboxLimit: 8)
        var client = RESTPollingClientModel(settings: ClientSettings.RESTSettings(), batchLimit: 100, seed: 1)
        _ = client.start(now: 0, ledger: &ledger)
        let actions = client.timerFired(.requestTimeout, now: 10, ledger: &ledger)
        #expect(actions.first == .closeConnection)
        guard case .setTimer(.retry, let at) = actions.last else {
            Issue.record("no retry armed: \(actions)")
            return
        }
        #expect(at >= 10 + 0.5 * 0.8 && at <= 10 + 0.5 * 1.2)
        #expect(ledger.record.failedAttempts == 1)
        #expect(client.timerFired(.retry, now: at, ledger: &ledger).first == .connect)
    }

    @Test func webSocketUnansweredPingClosesAtTheNextPing() {
        var ledger = AppLedger(outboxLimit: 8)
        var client = WebSocketClientModel(settings: ClientSettings.WebSocketSettings(), seed: 1)
        #expect(client.start(now: 0, ledger: &ledger) == [.connect, .send(.open(after: 0, newConnection: true))])
        #expect(client.received(.accepted(newConnection: true), now: 0.5, ledger: &ledger) == [.setTimer(.ping, at: 30.5)])
        #expect(client.timerFired(.ping, now: 30.5, ledger: &ledger) == [.send(.ping(fromClient: true)), .setTimer(.ping, at: 60.5)])
        let actions = client.timerFired(.ping, now: 60.5, ledger: &ledger)
        #expect(Array(actions.prefix(3)) == [.send(.close), .cancelTimer(.ping), .closeConnection])
        #expect(client.phase == .backingOff)
    }

    @Test func grpcKeepaliveRestartsAfterTheAckAndTimesOut() {
        var ledger = AppLedger(outboxLimit: 8)
        var settings = ClientSettings.GRPCClientSettings()
        settings.callTimeLimit = nil
        var client = GRPCClientModel(settings: settings, seed: 1)
        #expect(client.start(now: 0, ledger: &ledger) == [.connect, .send(.open(after: 0, newConnection: true))])
        #expect(client.received(.accepted(newConnection: true), now: 0.3, ledger: &ledger) == [.setTimer(.ping, at: 60.3)])
        #expect(
            client.timerFired(.ping, now: 60.3, ledger: &ledger) == [.send(.ping(fromClient: true)), .setTimer(.pingTimeout, at: 70.3)])
        #expect(
            client.received(.pong(toClient: true), now: 60.35, ledger: &ledger) == [
                .cancelTimer(.pingTimeout), .setTimer(.ping, at: 120.35),
            ])
        _ = client.timerFired(.ping, now: 120.35, ledger: &ledger)
        let actions = client.timerFired(.pingTimeout, now: 130.35, ledger: &ledger)
        #expect(actions.contains(.send(.goAway(tooManyPings: false))))
        #expect(actions.contains(.closeConnection))
        // grpc-swift's subchannel reconnects and its load balancer opens a second connection;
        // the call, which had opened, is reopened at once and waits for one to be ready.
        #expect(
            actions.filter { [.openSpareConnection, .connect, .send(.preface)].contains($0) } == [
                .connect, .send(.preface), .openSpareConnection,
            ])
        #expect(!actions.contains { if case .send(.open) = $0 { true } else { false } })
        #expect(client.connection == .settingUp)
        #expect(client.spare == .settingUp)
        // The server's SETTINGS on it start keepalive again, and the call goes on it.
        #expect(
            client.received(.prefaceAccepted, now: 130.5, ledger: &ledger) == [
                .setTimer(.ping, at: 190.5), .send(.open(after: 0, newConnection: false)),
            ])
        #expect(client.connection == .ready)
    }

    /// gRPC C-core's `max_pings_without_data` 2: after two pings with nothing written since, the
    /// next ping waits until a minute after the last (grpcio 1.85.3 through netsim: pings at 2 s
    /// and 4 s, then 64 s with a 2 s keepalive); a message written lifts it, and the held ping
    /// goes when the keepalive time alone would send it. Unset (grpc-swift's), every 10 s.
    @Test func grpcCoreThrottlesPingsWithoutDataToOneAMinute() {
        var ledger = AppLedger(outboxLimit: 8)
        var settings = ClientSettings.GRPCClientSettings()
        settings.callTimeLimit = nil
        settings.keepaliveTime = 10
        settings.keepaliveTimeout = 5
        settings.maxPingsWithoutData = 2
        var client = GRPCClientModel(settings: settings, seed: 1)
        _ = client.start(now: 0, ledger: &ledger)
        #expect(client.received(.accepted(newConnection: true), now: 0, ledger: &ledger) == [.setTimer(.ping, at: 10)])
        #expect(client.timerFired(.ping, now: 10, ledger: &ledger).first == .send(.ping(fromClient: true)))
        #expect(client.received(.pong(toClient: true), now: 10.1, ledger: &ledger).last == .setTimer(.ping, at: 20.1))
        #expect(client.timerFired(.ping, now: 20.1, ledger: &ledger).first == .send(.ping(fromClient: true)))
        // Two pings without data: the third waits for a minute after the second.
        #expect(client.received(.pong(toClient: true), now: 20.2, ledger: &ledger).last == .setTimer(.ping, at: 80.1))
        // A message written lifts it: the ping goes at 30.2, as the keepalive time says.
        _ = ledger.produceMessage(at: 0)
        #expect(client.messageProduced(now: 25, ledger: &ledger).suffix(1) == [.setTimer(.ping, at: 30.2)])

        var unlimited = settings
        unlimited.maxPingsWithoutData = nil
        var swift = GRPCClientModel(settings: unlimited, seed: 1)
        var swiftLedger = AppLedger(outboxLimit: 8)
        _ = swift.start(now: 0, ledger: &swiftLedger)
        _ = swift.received(.accepted(newConnection: true), now: 0, ledger: &swiftLedger)
        for ping in 1...3 {
            let at = Double(ping) * 10 + Double(ping - 1) * 0.1
            #expect(swift.timerFired(.ping, now: at, ledger: &swiftLedger).first == .send(.ping(fromClient: true)))
            #expect(swift.received(.pong(toClient: true), now: at + 0.1, ledger: &swiftLedger).last == .setTimer(.ping, at: at + 10.1))
        }
    }

    /// Found by `tune keepalive --verify`: with the phone offline the reconnection still opens
    /// (grpc-swift does not wait for the network); the call waits, and when the network returns
    /// it goes on that connection instead of a third one.
    @Test func grpcReconnectsAfterAKeepaliveTimeoutEvenOfflineAndTheCallWaitsForTheNetwork() {
        var ledger = AppLedger(outboxLimit: 8)
        var client = GRPCClientModel(settings: ClientSettings.GRPCClientSettings(), seed: 1)
        _ = client.start(now: 0, ledger: &ledger)
        _ = client.received(.accepted(newConnection: true), now: 0.3, ledger: &ledger)
        #expect(client.networkChanged(available: false, now: 50, ledger: &ledger) == [])
        _ = client.timerFired(.ping, now: 60.3, ledger: &ledger)
        let actions = client.timerFired(.pingTimeout, now: 70.3, ledger: &ledger)
        #expect(
            actions.filter { [.openSpareConnection, .connect, .send(.preface)].contains($0) } == [
                .connect, .send(.preface), .openSpareConnection,
            ])
        #expect(!actions.contains { if case .send(.open) = $0 { true } else { false } })
        #expect(client.call == .suspended)
        // Back online, the call waits for one of the two to be ready and opens no third.
        let reopened = client.networkChanged(available: true, now: 100, ledger: &ledger)
        #expect(!reopened.contains(.connect))
        #expect(!reopened.contains { if case .send(.open) = $0 { true } else { false } })
        #expect(client.call == .opening)
        #expect(client.received(.prefaceAccepted, now: 100.4, ledger: &ledger).last == .send(.open(after: 0, newConnection: false)))
    }

    /// A RST or a TCP timeout with a call open is an error to grpc-swift's subchannel, which
    /// reconnects at once; a FIN is a clean close, after which the next call connects.
    @Test func grpcReconnectsAtOnceAfterAnErrorButNotAfterAFIN() {
        for (end, reconnects) in [(ConnectionEnd.reset, true), (.timedOut, true), (.closedByPeer, false)] {
            var ledger = AppLedger(outboxLimit: 8)
            var client = GRPCClientModel(settings: ClientSettings.GRPCClientSettings(), seed: 1)
            _ = client.start(now: 0, ledger: &ledger)
            _ = client.received(.accepted(newConnection: true), now: 0.3, ledger: &ledger)
            let actions = client.connectionEnded(end, now: 10, ledger: &ledger)
            #expect(actions.contains(.openSpareConnection) == reconnects, "\(end)")
            // After a FIN the call connects anew; after an error it waits for the two.
            #expect(actions.contains(.send(.open(after: 0, newConnection: true))) == !reconnects, "\(end)")
            #expect(client.connection == (reconnects ? .settingUp : .handshaking), "\(end)")
        }
    }

    /// gRFC A8: after GOAWAY ENHANCE_YOUR_CALM "too_many_pings" the client doubles its
    /// keepalive time.
    @Test func grpcTooManyPingsDoublesTheKeepaliveTime() {
        var ledger = AppLedger(outboxLimit: 8)
        var client = GRPCClientModel(settings: ClientSettings.GRPCClientSettings(), seed: 1)
        _ = client.start(now: 0, ledger: &ledger)
        _ = client.received(.accepted(newConnection: true), now: 0.3, ledger: &ledger)
        _ = client.received(.goAway(tooManyPings: true), now: 200, ledger: &ledger)
        #expect(client.keepaliveTime == 120)
        #expect(client.connection == .handshaking)
    }

    /// A client whose call was lost to a keepalive timeout at 70.3 s (20 s / 5 s keepalive,
    /// the call opened at 0.3 s): the reconnection and the spare are setting up HTTP/2.
    private func racingGRPCClient(permitWithoutCalls: Bool = false) -> (GRPCClientModel, AppLedger) {
        var ledger = AppLedger(outboxLimit: 8)
        var settings = ClientSettings.GRPCClientSettings()
        settings.callTimeLimit = nil
        settings.keepaliveTime = 20
        settings.keepaliveTimeout = 5
        settings.permitWithoutCalls = permitWithoutCalls
        var client = GRPCClientModel(settings: settings, seed: 1)
        _ = client.start(now: 0, ledger: &ledger)
        _ = client.received(.accepted(newConnection: true), now: 0.3, ledger: &ledger)
        _ = client.timerFired(.ping, now: 20.3, ledger: &ledger)
        _ = client.timerFired(.pingTimeout, now: 25.3, ledger: &ledger)
        return (client, ledger)
    }

    /// grpc-swift-nio-transport 2.9.2's `PickFirstLoadBalancer`: when its second subchannel is
    /// ready before the reconnection, it closes the reconnection (a FIN) and the waiting call
    /// goes on the second, whose keepalive starts then.
    @Test func grpcTheSpareReadyFirstTakesTheCall() {
        var (client, ledger) = racingGRPCClient()
        #expect(
            client.spareReceived(.prefaceAccepted, now: 25.5, ledger: &ledger) == [
                .closeConnection, .cancelTimer(.ping), .cancelTimer(.pingTimeout), .promoteSpareConnection,
                .setTimer(.ping, at: 45.5), .send(.open(after: 0, newConnection: false)),
            ])
        #expect(client.connection == .ready)
        #expect(client.spare == .none)
        #expect(!client.goingAway)
    }

    /// When the reconnection is ready first, the call goes on it; the spare's SETTINGS then
    /// make the load balancer roll over: the call stays, the spare waits with no call and no
    /// pings, and when the call's connection dies the reopened call goes on the spare, keeping
    /// its keepalive timer's phase (ready at 25.6 s: it fires at 45.6, 65.6, ...), and no
    /// connection opens. The spare's keepalive then finds it dead and two connections open.
    @Test func grpcAfterARollOverTheNextCallGoesOnTheIdleSpare() {
        var (client, ledger) = racingGRPCClient()
        #expect(
            client.received(.prefaceAccepted, now: 25.5, ledger: &ledger) == [
                .setTimer(.ping, at: 45.5), .send(.open(after: 0, newConnection: false)),
            ])
        #expect(client.spareReceived(.prefaceAccepted, now: 25.6, ledger: &ledger) == [.setTimer(.sparePing, at: 45.6)])
        #expect(client.spare == .standby)
        #expect(client.goingAway)
        _ = client.received(.accepted(newConnection: false), now: 25.7, ledger: &ledger)
        // No call on the spare and no permitWithoutCalls: its timer fires and sends nothing.
        #expect(client.timerFired(.sparePing, now: 45.6, ledger: &ledger) == [.setTimer(.sparePing, at: 65.6)])
        #expect(client.timerFired(.sparePing, now: 65.6, ledger: &ledger) == [.setTimer(.sparePing, at: 85.6)])
        // The call's connection is reset at 70 s: the spare takes over and the call reopens on it.
        let actions = client.connectionEnded(.reset, now: 70, ledger: &ledger)
        #expect(!actions.contains(.connect))
        #expect(!actions.contains(.openSpareConnection))
        #expect(
            actions == [
                .cancelTimer(.ping), .cancelTimer(.pingTimeout), .setTimer(.ping, at: 85.6), .promoteSpareConnection,
                .cancelTimer(.sparePing), .cancelTimer(.sparePingTimeout), .cancelTimer(.callDeadline),
                .send(.open(after: 0, newConnection: false)),
            ])
        #expect(client.connection == .ready)
        #expect(client.spare == .none)
        #expect(!client.goingAway)
        // Its HEADERS went, so its keepalive pings; unanswered, the two connections open.
        #expect(
            client.timerFired(.ping, now: 85.6, ledger: &ledger) == [.send(.ping(fromClient: true)), .setTimer(.pingTimeout, at: 90.6)])
        let lost = client.timerFired(.pingTimeout, now: 90.6, ledger: &ledger)
        #expect(lost.filter { [.openSpareConnection, .connect].contains($0) } == [.connect, .openSpareConnection])
        #expect(client.call == .backingOff)
    }

    /// With `permitWithoutCalls` the spare pings on its own while it waits; unanswered, it is let go.
    @Test func grpcAStandbySparePingsOnlyWhenPermittedWithoutCalls() {
        var (client, ledger) = racingGRPCClient(permitWithoutCalls: true)
        _ = client.received(.prefaceAccepted, now: 25.5, ledger: &ledger)
        _ = client.spareReceived(.prefaceAccepted, now: 25.6, ledger: &ledger)
        _ = client.received(.accepted(newConnection: false), now: 25.7, ledger: &ledger)
        #expect(
            client.timerFired(.sparePing, now: 45.6, ledger: &ledger) == [
                .sendOnSpare(.ping(fromClient: true)), .setTimer(.sparePingTimeout, at: 50.6),
            ])
        #expect(
            client.spareReceived(.pong(toClient: true), now: 45.7, ledger: &ledger) == [
                .cancelTimer(.sparePingTimeout), .setTimer(.sparePing, at: 65.7),
            ])
        _ = client.timerFired(.sparePing, now: 65.7, ledger: &ledger)
        #expect(
            client.timerFired(.sparePingTimeout, now: 70.7, ledger: &ledger) == [
                .sendOnSpare(.goAway(tooManyPings: false)), .closeSpareConnection, .cancelTimer(.sparePing),
                .cancelTimer(.sparePingTimeout),
            ])
        #expect(client.spare == .none)
        // The call's connection, rolled over, then dies: its subchannel is shut down, so one
        // connection opens for the next call, not two.
        let actions = client.connectionEnded(.reset, now: 80, ledger: &ledger)
        #expect(actions.filter { [.openSpareConnection, .connect].contains($0) } == [.connect])
    }

    /// A call renewed on a rolled-over connection closes it (its last stream ended) and goes on
    /// the spare.
    @Test func grpcACallRenewedAfterARollOverMovesToTheSpare() {
        var ledger = AppLedger(outboxLimit: 8)
        var settings = ClientSettings.GRPCClientSettings()
        settings.callTimeLimit = 300
        settings.keepaliveTime = 20
        settings.keepaliveTimeout = 5
        var client = GRPCClientModel(settings: settings, seed: 1)
        _ = client.start(now: 0, ledger: &ledger)
        _ = client.received(.accepted(newConnection: true), now: 0.3, ledger: &ledger)
        _ = client.connectionEnded(.reset, now: 10, ledger: &ledger)
        _ = client.received(.prefaceAccepted, now: 10.2, ledger: &ledger)
        _ = client.spareReceived(.prefaceAccepted, now: 10.3, ledger: &ledger)
        _ = client.received(.accepted(newConnection: false), now: 10.4, ledger: &ledger)
        let actions = client.timerFired(.callDeadline, now: 310, ledger: &ledger)
        #expect(actions.first == .send(.callCancelled))
        #expect(actions.contains(.closeConnection))
        #expect(actions.contains(.promoteSpareConnection))
        #expect(!actions.contains(.connect))
        #expect(actions.last == .setTimer(.callDeadline, at: 610))
        #expect(actions.dropLast().last == .send(.open(after: 0, newConnection: false)))
        #expect(client.connection == .ready)
    }

    /// gRPC core's policy: pings closer than 5 minutes are strikes; the third strike is one
    /// too many. Writing DATA forgives.
    @Test func serverPolicyStrikesThenGoAway() {
        let policy = GRPCServerPolicy.grpcCore
        var policing = PingPolicing()
        let verdicts = [0.0, 20, 40, 60].map { policing.receivedPing(at: $0, callOpen: true, policy: policy) }
        #expect(verdicts == [false, false, false, true], "the first ping is accepted, two strikes tolerated, the third is one too many")

        var forgiving = PingPolicing()
        let forgiven = (0..<10).map { minute in
            defer { forgiving.wroteHeadersOrData() }
            return forgiving.receivedPing(at: Double(minute) * 20, callOpen: true, policy: policy)
        }
        #expect(!forgiven.contains(true), "writing DATA forgives strikes")

        var withoutCalls = PingPolicing()
        let idle = [0.0, 400, 800, 1200].map { withoutCalls.receivedPing(at: $0, callOpen: false, policy: policy) }
        #expect(idle == [false, false, false, true], "without calls only one ping per 2 h is allowed")

        var unpoliced = PingPolicing()
        let anything = (0..<100).map { unpoliced.receivedPing(at: Double($0) * 0.01, callOpen: false, policy: .none) }
        #expect(!anything.contains(true))
    }

    @Test func wireSizesFollowTheEncoders() {
        let grpc = WireFormat(encoding: .transport(.grpc), eventPayloadBytes: 256, messagePayloadBytes: 256)
        #expect(grpc.bytes(.ping(fromClient: true)) == 17)
        #expect(WireFormat.varintBytes(127) == 1)
        #expect(WireFormat.varintBytes(128) == 2)
        #expect(WireFormat.digits(0) == 1)
        #expect(WireFormat.digits(1000) == 4)
        #expect(WireFormat.webSocketFrame(payload: 125, masked: false) == 127)
        #expect(WireFormat.webSocketFrame(payload: 126, masked: true) == 134)
    }
}
