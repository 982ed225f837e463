import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@testable import NetsimModel

/// The model engine against hand-computed figures (radio-parameters.md: Video Optimizer's
/// lte.conf) and against itself.
@Suite(.computes)
struct ModelEngineTests {
    /// A workload with nothing in it for `duration`: keepalive is all that flows.
    static let idleWorkload: Workload = {
        var workload = Workload()
        workload.eventMeanGap = 1e12
        workload.messageInterval = 1e12
        return workload
    }()

    static func keepaliveOnly(profile: String, hours: Double = 1) throws -> BenchPlan {
        var configuration = BenchPlan(profile: try ProfileCatalog.builtin(named: profile))
        configuration.transports = [.grpc]
        configuration.devices = 1
        configuration.duration = hours * 3600
        configuration.workload = idleWorkload
        configuration.client.grpc.callTimeLimit = nil
        configuration.drainTimeout = 0
        return configuration
    }

    /// Runs the engine and puts each device's handed-over records back into its outcome.
    static func run(_ configuration: BenchPlan) -> [BenchTransport: [DeviceOutcome]] {
        var records: [BenchTransport: [DeviceRecords]] = [:]
        let result = ModelEngine.run(configuration, records: { transport, _, handed in records[transport, default: []].append(handed) })
        return result.devices.reduce(into: [:]) { merged, entry in
            merged[entry.key] = zip(entry.value, records[entry.key] ?? []).map { device, handed in
                var outcome = device.outcome(until: result.endSeconds)
                outcome.app = handed.app
                outcome.server = handed.server
                return outcome
            }
        }
    }

    /// Each device's records are handed over in device order and not kept, so a fleet's
    /// memory does not grow with the run's length.
    @Test func recordsAreHandedOverInOrderAndNotKept() throws {
        var configuration = BenchPlan(profile: try ProfileCatalog.builtin(named: "lte-good"))
        configuration.devices = 70
        configuration.duration = 600
        configuration.transports = BenchTransport.allCases
        var order: [BenchTransport: [Int]] = [:]
        var events = 0
        let result = ModelEngine.run(
            configuration,
            records: { transport, index, records in
                order[transport, default: []].append(index)
                events += records.app.events.created
            })
        for transport in BenchTransport.allCases {
            #expect(order[transport] == Array(0..<70))
            #expect(result.devices[transport]?.map(\.index) == Array(0..<70))
        }
        #expect(events > 0)
    }

    /// A device keeps what is still open (items in flight), not a record per event or message:
    /// after 20 days it holds no more than after one.
    @Test func retainedRecordsDoNotGrowWithTheRunsLength() throws {
        func retained(days: Double) throws -> (records: Int, delivered: Int) {
            let outcome = ModelEngine.playDevice(
                profile: try ProfileCatalog.builtin(named: "lte-good"), client: .ws(ClientSettings().ws), workload: Workload(),
                duration: days * 86400, seed: 3)
            return (
                outcome.app.events.retainedRecordCount + outcome.server.messages.retainedRecordCount,
                outcome.app.events.arrived + outcome.server.messages.arrived
            )
        }
        let oneDay = try retained(days: 1)
        let twentyDays = try retained(days: 20)
        #expect(twentyDays.delivered > 19 * oneDay.delivered)
        #expect(twentyDays.records <= oneDay.records)
    }

    /// A gRPC call renewed at its time limit (every 10 minutes) resumes from the last event the
    /// app got; events of the cancelled call still on their way are dropped with its stream,
    /// not delivered twice.
    @Test func grpcCallRenewalsDeliverNothingTwice() throws {
        var configuration = BenchPlan(profile: try ProfileCatalog.builtin(named: "lte-good"))
        configuration.transports = [.grpc]
        configuration.devices = 5
        configuration.duration = 4 * 3600
        configuration.workload.eventMeanGap = 5
        for device in try #require(Self.run(configuration)[.grpc]) {
            #expect(device.app.callRenewals >= 20)
            #expect(device.app.events.duplicates == 0)
            #expect(device.app.events.unrecoverable(skippedThrough: 0) == (0, 0))
        }
    }

    @Test func eventQueueOrdersByTimeThenBySchedulingOrder() {
        var queue = EventQueue<String>()
        queue.schedule("c", at: 2)
        queue.schedule("a", at: 1)
        queue.schedule("b", at: 1)
        queue.schedule("d", at: 0.5)
        var order: [String] = []
        while let next = queue.next() { order.append(next.element) }
        #expect(order == ["d", "a", "b", "c"])
    }

    /// One keepalive ping a minute on an idle LTE phone for an hour: the connection's own
    /// wake-up plus 59 pings (each period is 60 s plus the ping's round trip) are 60 isolated
    /// wake-ups of lte-good's radio (verizon-lte: a 0.279 s promotion, 0.1 s of continuous
    /// reception, 9.9 s of DRX at a 320 ms cycle, about 2.64 J each by hand), the rest idle at
    /// 19.955 mW (43 ms of paging at 594 mW every 1.28 s).
    @Test func oneKeepaliveAMinuteOnIdleLTEIsSixtyIsolatedWakeUps() throws {
        let run = Self.run(try Self.keepaliveOnly(profile: "lte-good"))
        let device = try #require(run[.grpc]?.first)
        #expect(device.radio.promotions == 60)
        #expect(device.connections.opened == 1)
        guard case .lte(let radio)? = try RadioCatalog.builtin(named: "verizon-lte")?.parameters else {
            Issue.record("verizon-lte is not an LTE radio")
            return
        }
        let wakeUp = isolatedWakeUp(radio)
        #expect(abs(wakeUp.joules - 2.64) < 0.01, "by hand: 0.279 x 0.4205 + 0.1 x 0.4205 + DRX = 2.64 J")
        let idleSeconds = device.radio.secondsByState[.idle] ?? 0
        let expected = 60 * wakeUp.joules + 0.019955 * idleSeconds
        #expect(
            abs(device.radio.energyJoules - expected) / expected < 0.02,
            "energy \(device.radio.energyJoules) J, expected about \(expected) J")
        #expect(abs(device.radio.wakeSeconds - 60 * (wakeUp.seconds + 0.05)) < 60 * 0.2, "wake \(device.radio.wakeSeconds) s")
        #expect(device.server.pingsReceived == 59)
    }

    /// A carrier NAT that forgets the connection after 30 s idle, with a 60 s keepalive: the
    /// mapping dies silently at about 30 s, the first ping goes nowhere, and the client learns
    /// only when that ping's 10 s timeout passes (about 70 s), 40 s after the death; then it
    /// reconnects, and the same happens again every cycle.
    @Test func natTimeoutKillsSilentlyAndThePingTimeoutFindsOut() throws {
        var configuration = try Self.keepaliveOnly(profile: "nat-timeout")
        configuration.duration = 200
        let run = Self.run(configuration)
        let device = try #require(run[.grpc]?.first)
        #expect(device.events.first?.kind == .natExpiry)
        let firstExpiry = try #require(device.events.first)
        #expect(abs(firstExpiry.at - 60.3) < 0.5, "the first ping meets the expired mapping at about 60 s: \(firstExpiry.at)")
        let detection = try #require(device.app.detections.first)
        #expect(abs(detection - 40) < 1, "found out \(detection) s after the mapping expired")
        #expect(device.connections.opened >= 2)
        #expect(device.connections.reset == 0)
        #expect(device.app.failedAttempts >= 1)
    }

    /// Found by `netsim tune keepalive --verify`: bytes an outage holds on a connection that a
    /// blackhole then silences never arrive (the proxy drops its queues). The keepalive ping of
    /// about 120.3 s is held by a stall from 120.62 s until TCP's retransmission after it; the
    /// blackhole at 124 s kills the connection first, so that ping never reaches the server
    /// (before the fix it did: 4 pings counted instead of 3), and the 20 s ping timeout finds
    /// the death out at about 140.6 s.
    @Test func bytesHeldOnAConnectionABlackholeSilencesNeverArrive() throws {
        var profile = try ProfileCatalog.builtin(named: "lte-good")
        profile.timeline = Timeline(events: [
            TimelineEvent(at: 120.62, kind: .outage(duration: 5, mode: .stall)),
            TimelineEvent(at: 124, kind: .outage(duration: 5, mode: .blackhole)),
        ])
        var settings = ClientSettings.GRPCClientSettings()
        settings.keepaliveTime = 60
        settings.keepaliveTimeout = 20
        settings.callTimeLimit = nil
        var workload = Workload()
        workload.eventMeanGap = 1e15
        workload.messageInterval = 1e15
        let outcome = ModelEngine.playDevice(
            profile: profile, client: .grpc(settings, server: .none), workload: workload, duration: 300, seed: 1)
        let detection = try #require(outcome.app.detections.first)
        #expect(abs(detection - 16.6) < 0.5, "found out \(detection) s after the blackhole")
        #expect(outcome.server.pingsReceived == 3, "the held ping must not reach the server")
    }

    /// grpc-swift's connection race, played through the device model (`GRPCClientModel`), as
    /// `tune keepalive --verify` measured it live. No jitter, so both handshakes take the same
    /// time and the subchannel's reconnection, whose SYN leaves first, is ready first:
    /// - 700 s: a handover resets the call's connection. Two connections open; the call goes
    ///   on the reconnection and the load balancer rolls over to the other one, which then
    ///   carries nothing and sends no pings (its last bytes, the server's SETTINGS, at about
    ///   700 s); the 30 s NAT forgets it at about 730 s.
    /// - 1300 s: a 30 s blackhole. The call's connection misses its next ping and keepalive
    ///   closes it 5 s after that, 14.3 s after the blackhole began; it was rolled over, so nothing reconnects, and the call waits for the
    ///   network on the forgotten connection.
    /// - 1330 s: the network is back and the call's HEADERS meet the expired mapping (the NAT
    ///   expiry, dated 730 s). That connection's keepalive timer runs from its SETTINGS at about
    ///   700 s: it fires at about 1340 s, and 5 s later it is found dead. The app relied on it
    ///   only from its keepalive's close of the blackholed one, so its death counts from 1330 s,
    ///   when the HEADERS found it gone: 15.3 s. Two more connections open: 5 in all.
    @Test func grpcsIdleSpareIsForgottenByTheNATAndTheNextCallHangsOnIt() throws {
        let yaml = """
            name: roll-over
            description: Two LTE cells, a handover reset at 700 s, a blackhole at 1300 s, a 30 s NAT.
            nat: {idleTimeout: 30s}
            networks:
              lte: {radio: lte, link: {delay: 25ms, down: {rate: 12mbps}, up: {rate: 5mbps}}}
              lte2: {radio: lte, link: {delay: 25ms, down: {rate: 12mbps}, up: {rate: 5mbps}}}
            timeline:
              - {at: 700s, handover: {to: lte2, mode: reset, gap: 0s}}
              - {at: 1300s, outage: {duration: 30s, mode: blackhole}}
            """
        let profile = try ProfileLoader.load(yaml: yaml, source: "roll-over.yaml") { _ in "" }
        var settings = ClientSettings.GRPCClientSettings()
        settings.keepaliveTime = 20
        settings.keepaliveTimeout = 5
        settings.callTimeLimit = nil
        let outcome = ModelEngine.playDevice(
            profile: profile, client: .grpc(settings, server: .none), workload: Self.idleWorkload, duration: 1500, seed: 1)
        let expiries = outcome.events.filter { $0.kind == .natExpiry }
        #expect(expiries.count == 1, "\(expiries)")
        let expiry = try #require(expiries.first)
        #expect(abs(expiry.at - 1330) < 0.5, "the reopened call meets the mapping at \(expiry.at) s")
        #expect(abs((expiry.expiredAt ?? 0) - 730) < 1, "the mapping expired at \(expiry.expiredAt ?? 0) s")
        // The reset noticed at once, the blackholed connection at its next ping (14.3 s), and
        // the spare 15.3 s after the HEADERS found it gone.
        let detections = outcome.app.detections
        #expect(detections.count == 3 && detections[0] == 0 && abs(detections[1] - 14.3) < 0.1, "\(detections)")
        #expect(detections.count == 3 && abs(detections[2] - 15.3) < 0.1, "\(detections)")
        // The live accounting reads the same off the proxy's events and when the app noticed.
        if detections.count == 3 {
            let noticed = [700, 1300 + detections[1], expiry.at + detections[2]]
            let live = ConnectionDeaths.detectionDelays(events: outcome.events, noticed: noticed, end: 1500)
            #expect(zip(live, detections).allSatisfy { abs($0 - $1) < 1e-6 } && live.count == 3, "\(live)")
        }
        #expect(outcome.connections.opened == 5)
    }

    /// LTE with a 5 s reset outage at 40 s.
    static func resetOutage() throws -> Profile {
        let yaml = """
            name: reset-test
            description: LTE with a reset outage at 40 s.
            networks:
              lte: {radio: lte, link: {delay: 25ms, down: {rate: 12mbps}, up: {rate: 5mbps}}}
            timeline:
              - {at: 40s, outage: {duration: 5s, mode: reset}}
            """
        return try ProfileLoader.load(yaml: yaml, source: "reset.yaml") { _ in "" }
    }

    @Test func sameSeedSameOutcomeDifferentSeedDifferentOne() throws {
        var configuration = BenchPlan(profile: try ProfileCatalog.builtin(named: "lte-tunnel"))
        configuration.devices = 3
        configuration.transports = BenchTransport.allCases
        let first = Self.run(configuration)
        let second = Self.run(configuration)
        configuration.seed = 2
        let third = Self.run(configuration)
        for transport in BenchTransport.allCases {
            let a = try #require(first[transport])
            let b = try #require(second[transport])
            #expect(a.map(\.radio) == b.map(\.radio))
            #expect(a.map(\.app) == b.map(\.app))
            #expect(a.map(\.server) == b.map(\.server))
            #expect(a.map(\.bytes) == b.map(\.bytes))
            #expect(a.map(\.radio) != third[transport]!.map(\.radio))
        }
    }

    /// Through lte-tunnel's 30 s stall every transport delivers every event and message once.
    @Test(arguments: BenchTransport.allCases)
    func aStallLosesNothing(_ transport: BenchTransport) throws {
        var configuration = BenchPlan(profile: try ProfileCatalog.builtin(named: "lte-tunnel"))
        configuration.transports = [transport]
        configuration.devices = 5
        let run = Self.run(configuration)
        for device in try #require(run[transport]) {
            #expect(device.app.events.created == device.server.eventsCreated)
            #expect(device.app.events.isComplete)
            #expect(device.app.events.duplicates == 0)
            #expect(device.server.messages.created == device.app.messagesProduced)
            #expect(device.server.messages.isComplete)
        }
    }

    /// In the tunnel a REST poll stalls, times out after 10 s, and the client closes its
    /// connection. The poll still reaches the server when TCP's retransmission gets through, and
    /// its answer crosses the phone's radio to a socket the app has closed, which takes that
    /// first write, as the live bench counts it. Each such connection carries one answer, so the
    /// downlink bytes counted equal those the radio carried (the model dropped those answers
    /// while the radio still carried them: 115 KB counted of 128 KB on ten phones).
    @Test func anAnswerToARequestTheClientGaveUpOnIsCountedAsTheRadioCarriedIt() throws {
        var configuration = BenchPlan(profile: try ProfileCatalog.builtin(named: "lte-tunnel"))
        configuration.transports = [.rest]
        configuration.devices = 5
        for device in try #require(Self.run(configuration)[.rest]) {
            #expect(device.connections.closed > 2, "requests timed out in the tunnel")
            #expect(device.bytes.down == device.radio.bytes.down)
            #expect(device.bytes.up == device.radio.bytes.up)
        }
    }

    /// LTE whose downlink is throttled to 8 kbit/s from 10 s to 20 s.
    static func throttleUndone() throws -> Profile {
        let yaml = """
            name: throttle-test
            description: LTE whose downlink is throttled to 8 kbit/s from 10 s to 20 s.
            networks:
              lte: {radio: lte, link: {delay: 25ms, down: {rate: 12mbps}, up: {rate: 5mbps}}}
            timeline:
              - {at: 10s, set: {link: {down: {rate: 8kbps}}}}
              - {at: 20s, set: {link: {down: {rate: 12mbps}}}}
            """
        return try ProfileLoader.load(yaml: yaml, source: "throttle.yaml") { _ in "" }
    }

    /// Events of 2,000 bytes about every half second queue up behind a 10 s throttle of the
    /// downlink (about 20 kB more than 8 kbit/s carries). When the throttle ends, what waits
    /// leaves at 12 Mbit/s, and the agenda's arrivals move with it: every event arrives once
    /// and in order, and none waits longer than the throttle (without the move, the backlog
    /// kept its 8 kbit/s departures until about 40 s, and arrivals answered before the change
    /// fell behind the connection's later bytes).
    @Test(arguments: BenchTransport.comparedByDefault)
    func aThrottleUndoneMovesWhatWaitsAndLosesNothing(_ transport: BenchTransport) throws {
        var configuration = BenchPlan(profile: try Self.throttleUndone())
        configuration.transports = [transport]
        configuration.devices = 3
        configuration.duration = 60
        configuration.workload.eventMeanGap = 0.5
        configuration.workload.eventPayloadBytes = 2000
        let run = Self.run(configuration)
        for device in try #require(run[transport]) {
            #expect(device.app.events.created == device.server.eventsCreated)
            #expect(device.app.events.isComplete)
            #expect(device.app.events.duplicates == 0 && device.app.events.outOfOrder == 0)
            #expect(device.server.messages.isComplete)
            guard transport != .rest else { continue }
            var latencies = LatencyCounts.makeHistogram()
            device.app.events.latencies.add(to: &latencies)
            #expect(Double(latencies.max) / 1e6 < 12, "an event waited \(Double(latencies.max) / 1e6) s")
        }
    }

    /// A reset outage kills every open TCP connection; each transport notices at once (the RST)
    /// and resumes without losing an event. (QUIC has no RST to get: QUICModelTests.)
    @Test(arguments: BenchTransport.comparedByDefault)
    func aResetIsNoticedAtOnceAndResumed(_ transport: BenchTransport) throws {
        var configuration = BenchPlan(profile: try Self.resetOutage())
        configuration.transports = [transport]
        configuration.devices = 3
        let run = Self.run(configuration)
        for device in try #require(run[transport]) {
            #expect(device.connections.reset >= 1)
            #expect(device.connections.opened >= 2)
            #expect(device.app.events.unrecoverable(skippedThrough: 0) == (0, 0))
            #expect(device.app.detections.allSatisfy { $0 == 0 })
        }
    }
}

/// One isolated LTE wake-up on a radio, from its parameters as Video Optimizer prices it: the
/// promotion, the inactivity timer's continuous reception, then short and long DRX at their
/// duty-cycled power. The ping's own round trip adds a little continuous reception on top.
func isolatedWakeUp(_ p: LTERadioParameters) -> (joules: Double, seconds: Double) {
    func duty(_ cycle: Double) -> Double { (p.drxOnDuration * p.drxOnPower + (cycle - p.drxOnDuration) * p.tailPower) / cycle }
    let joules =
        p.promotionTime * p.promotionPower + p.inactivityTimer * p.beta + p.shortDRXTime * duty(p.shortDRXCycle)
        + p.longDRXTime * duty(p.longDRXCycle)
    return (joules, p.promotionTime + p.inactivityTimer + p.shortDRXTime + p.longDRXTime)
}
