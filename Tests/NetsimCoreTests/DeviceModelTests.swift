import NetsimTestSupport
import Testing

@testable import NetsimCore

/// The device: radio, links, timeline and NAT together, with injected times and no sockets.
@Suite(.computes) struct DeviceModelTests {
    func profile(
        radio: RadioParameters = .none, up: LinkParameters = LinkParameters(), down: LinkParameters = LinkParameters(),
        nat: NATPolicy? = nil, events: [TimelineEvent] = [], repeatPeriod: Double? = nil
    ) -> Profile {
        Profile(
            name: "test", description: "",
            networks: [
                Network(name: "cell", radio: radio, up: up, down: down),
                Network(
                    name: "wifi", radio: .wifi(WiFiRadioParameters()), up: LinkParameters(delay: 0.005), down: LinkParameters(delay: 0.005)),
            ],
            start: "cell", nat: nat, timeline: Timeline(events: events, repeatPeriod: repeatPeriod))
    }

    func deliveryTime(_ verdict: SendVerdict) -> Double? {
        if case .deliver(let delivery) = verdict { return delivery.at }
        return nil
    }

    @Test func passThroughDeliversAtOnce() {
        var device = DeviceModel(profile: .passThrough, seed: 1)
        let connection = device.openConnection(at: 0)
        #expect(device.send(1000, .up, on: connection, at: 3) == .deliver(Delivery(at: 3, onAir: .init(start: 3, end: 3))))
        #expect(deliveryTime(device.send(1000, .down, on: connection, at: 4)) == 4)
    }

    /// A chunk that waits behind a queue the link slowed does not wake the radio where the slow
    /// rate would send it, minutes ahead: the radio decides in time order, so that wake would
    /// hold every later admission, the downlink's too, until then. Uplink 8 kbit/s (1000 B/s):
    /// 10,000 B sent at 0 go on air after LTE's 0.26 s promotion, 0.26-10.26 s. At 1 s the link
    /// drops to 800 bit/s (100 B/s): the 9,260 B left leave by 93.6 s. 100 B sent up at 2 s
    /// leave behind them, 93.6-94.6 s; 100 B sent down at 3 s reach the phone 10 ms later,
    /// 3.01 s, with the radio connected (not at 93.86 s, after a promotion at 93.6 s).
    @Test func aChunkBehindASlowedQueueDoesNotHoldTheRadioUntilItLeaves() throws {
        var device = DeviceModel(
            profile: profile(
                radio: .lte(LTERadioParameters()), up: LinkParameters(capacity: .rate(bitsPerSecond: 8_000)),
                down: LinkParameters(delay: 0.01)),
            seed: 1)
        let connection = device.openConnection(at: 0)
        let first = try #require(deliveryTime(device.send(10_000, .up, on: connection, at: 0)))
        #expect(abs(first - 10.26) < 1e-9)
        _ = device.trigger(.set(network: nil, up: LinkChange(capacity: .rate(bitsPerSecond: 800)), down: LinkChange()), at: 1)
        let moved = try #require(device.takeRetimedDeliveries().first?.dues.first)
        #expect(abs(moved - 93.6) < 0.02, "\(moved)")
        let behind = try #require(deliveryTime(device.send(100, .up, on: connection, at: 2)))
        #expect(abs(behind - 94.6) < 0.02, "\(behind)")
        let down = try #require(deliveryTime(device.send(100, .down, on: connection, at: 3)))
        #expect(abs(down - 3.01) < 1e-9, "\(down)")
    }

    @Test func delaysAddUpToTheRoundTrip() {
        var device = DeviceModel(profile: profile(up: LinkParameters(delay: 0.05), down: LinkParameters(delay: 0.05)), seed: 1)
        let connection = device.openConnection(at: 0)
        let request = deliveryTime(device.send(100, .up, on: connection, at: 1))!
        let response = deliveryTime(device.send(100, .down, on: connection, at: request))!
        #expect(abs(response - 1.1) < 1e-9)
    }

    @Test func theFirstRequestOnAnIdleLTEPhonePaysThePromotion() {
        var device = DeviceModel(profile: profile(radio: .lte(LTERadioParameters()), up: LinkParameters(delay: 0.02)), seed: 1)
        let connection = device.openConnection(at: 0)
        guard case .deliver(let delivery) = device.send(100, .up, on: connection, at: 30) else {
            Issue.record("not delivered")
            return
        }
        #expect(abs(delivery.at - 30.28) < 1e-9)
        #expect(abs(delivery.radioWait - 0.26) < 1e-9)
        #expect(abs(delivery.onAir.start - 30.26) < 1e-9)
        #expect(device.radioReport(until: 60).promotions == 1)
        #expect(abs(device.radioWaits(until: 60).promotionSeconds - 0.26) < 1e-9)
    }

    @Test func theHandshakeStartsThePromotionAndTheFirstBytesWaitForTheRest() {
        var device = DeviceModel(profile: profile(radio: .lte(LTERadioParameters())), seed: 1)
        let connection = device.openConnection(at: 10)
        #expect(abs(device.handshake(on: connection, at: 10).start - 10.26) < 1e-9)
        guard case .deliver(let delivery) = device.send(100, .up, on: connection, at: 10.1) else {
            Issue.record("not delivered")
            return
        }
        #expect(abs(delivery.radioWait - 0.16) < 1e-9)
        #expect(device.radioReport(until: 30).promotions == 1)
    }

    /// Bytes the radio admitted just before a stall outage, but that the link could only send
    /// after it, leave when the radio has long gone back to IDLE: they pay a promotion of their
    /// own, as a phone's retransmission after coverage returns sets up a new RRC connection.
    /// Found by the engine-agreement test on lte-tunnel: such a chunk took the radio from IDLE
    /// to connected with no promotion, so whether a phone counted one after the tunnel hung on
    /// which of its chunks was queued when the outage began.
    @Test func bytesHeldPastTheRadiosTailByAnOutageWakeItAgain() {
        let outage = TimelineEvent(at: 10, kind: .outage(duration: 30, mode: .stall))
        let link = LinkParameters(capacity: .rate(bitsPerSecond: 8000))
        var device = DeviceModel(profile: profile(radio: .lte(LTERadioParameters()), up: link, events: [outage]), seed: 1)
        let connection = device.openConnection(at: 0)
        // IDLE at 5: a promotion (0.26 s), then 100 bytes at 1000 B/s, on air 5.26 to 5.36.
        #expect(deliveryTime(device.send(100, .up, on: connection, at: 5)).map { abs($0 - 5.36) < 1e-9 } == true)
        // At 9.998 the radio is in long DRX: a scheduling request (5 ms) puts the bytes at 10.003,
        // inside the outage. TCP retransmits from there with a 0.2 s RTO doubling: 10.203,
        // 10.603, 11.403, 13.003, 16.203, 22.603, 35.403, 61.003, the first after the outage
        // ends at 40. The radio's tail (0.1 + 0.02 + 10 s from 5.36) ended at 15.48: it promotes
        // again at 61.003, and the bytes are on air from 61.263 to 61.363.
        guard case .deliver(let delivery) = device.send(100, .up, on: connection, at: 9.998) else {
            Issue.record("not delivered")
            return
        }
        #expect(abs(delivery.onAir.start - 61.263) < 1e-9)
        #expect(abs(delivery.at - 61.363) < 1e-9)
        #expect(abs(delivery.waits.drx - 0.005) < 1e-9)
        #expect(abs(delivery.waits.promotion - 0.26) < 1e-9)
        #expect(abs(delivery.waits.queue - 51.0) < 1e-9, "the time the link held them")
        #expect(abs(delivery.radioWait - 0.265) < 1e-9)
        #expect(device.radioReport(until: 100).promotions == 2)
        #expect(abs(device.radioWaits(until: 100).promotionSeconds - 0.52) < 1e-9)
    }

    /// Found by `netsim tune keepalive --verify`: a server's SETTINGS written at accept during an
    /// outage (held until TCP's retransmission gets through, after it) set the NAT's idle clock
    /// back to the write, under the client's bytes that were held to the same retransmission;
    /// the next bytes then found the mapping expired though both had just crossed it.
    @Test func bytesAnOutageHeldRefreshTheNATWhenTheyGetThroughInEitherDirection() {
        let outage = TimelineEvent(at: 10, kind: .outage(duration: 100, mode: .stall))
        var device = DeviceModel(
            profile: profile(
                up: LinkParameters(delay: 0.05), down: LinkParameters(delay: 0.05), nat: NATPolicy(idleTimeout: 30, mode: .silent),
                events: [outage]),
            seed: 1)
        _ = device.advance(to: 20)
        let connection = device.openConnection(at: 20)
        let syn = device.handshake(on: connection, at: 20)
        #expect(syn.start > 110)
        let up = deliveryTime(device.send(100, .up, on: connection, at: 20))!
        let down = deliveryTime(device.send(100, .down, on: connection, at: 20.1))!
        #expect(up > 110 && down > 110)
        // 30 s after the held bytes got through, less a little: the mapping is still there.
        #expect(deliveryTime(device.send(100, .up, on: connection, at: min(up, down) + 29)) != nil)
        #expect(device.eventCounts[.natExpiry, default: 0] == 0)
    }

    /// Found by `netsim tune keepalive --verify`: a connection opened during an outage is still
    /// retransmitting its SYN; a blackhole that starts before the SYN gets through has nothing
    /// to kill, and the handshake completes after it (an established one is silenced).
    @Test func aConnectionWhoseSYNHasNotGotThroughSurvivesABlackhole() {
        let outage = TimelineEvent(at: 10, kind: .outage(duration: 100, mode: .stall))
        let blackhole = TimelineEvent(at: 50, kind: .outage(duration: 5, mode: .blackhole))
        var device = DeviceModel(
            profile: profile(up: LinkParameters(delay: 0.05), down: LinkParameters(delay: 0.05), events: [outage, blackhole]), seed: 1)
        let established = device.openConnection(at: 0)
        _ = device.handshake(on: established, at: 0)
        _ = device.advance(to: 20)
        let pending = device.openConnection(at: 20)
        _ = device.handshake(on: pending, at: 20)
        #expect(device.advance(to: 51) == [.silence([established])])
        #expect(device.events.last?.affectedConnections == 1)
        #expect(deliveryTime(device.send(100, .up, on: pending, at: 52)) != nil)
        #expect(device.send(100, .up, on: established, at: 52) == .discard)
    }

    @Test func aNATExpirySaysWhenTheMappingExpired() {
        var device = DeviceModel(
            profile: profile(
                up: LinkParameters(delay: 0.05), down: LinkParameters(delay: 0.05), nat: NATPolicy(idleTimeout: 30, mode: .silent)),
            seed: 1)
        let connection = device.openConnection(at: 0)
        let delivered = deliveryTime(device.send(100, .up, on: connection, at: 1))!
        #expect(device.send(100, .up, on: connection, at: 100) == .discard)
        let expiry = device.events.first { $0.kind == .natExpiry }
        #expect(expiry?.at == 100)
        #expect(abs((expiry?.expiredAt ?? 0) - (delivered + 30)) < 1e-9)
    }

    /// The device counts the wake-ups its traffic starts (what the live view names), whether
    /// a SYN, a chunk or a FIN found the radio asleep.
    @Test func theDeviceCountsTheWakeUpsItsTrafficStarts() {
        let lte = Profile(
            name: "lte", description: "",
            networks: [Network(name: "lte", radio: .lte(LTERadioParameters()), up: LinkParameters(), down: LinkParameters())], start: "lte")
        var device = DeviceModel(profile: lte, seed: 1)
        let connection = device.openConnection(at: 10)
        _ = device.handshake(on: connection, at: 10)
        #expect(device.wakeUps == 1 && device.latestWakeUp == 10)
        _ = device.send(100, .up, on: connection, at: 10.1)
        #expect(device.wakeUps == 1, "the chunk waited on the SYN's promotion")
        // LTE's tail: 0.1 s continuous reception, 0.02 s short DRX, 10 s long DRX after 10.26.
        _ = device.send(100, .up, on: connection, at: 30)
        #expect(device.wakeUps == 2 && device.latestWakeUp == 30)
    }

    /// A connection idle past the NAT's timeout, then hit by a blackhole, died of the
    /// NAT at its expiry; the outage claims only the connections still alive, and the dead
    /// one's next bytes say when it died.
    @Test(arguments: [OutageMode.blackhole, .reset])
    func aConnectionTheNATForgotDiesOfTheNATNotOfALaterOutage(mode: OutageMode) {
        let outage = TimelineEvent(at: 100, kind: .outage(duration: 5, mode: mode))
        var device = DeviceModel(profile: profile(nat: NATPolicy(idleTimeout: 30, mode: .silent), events: [outage]), seed: 1)
        let idle = device.openConnection(at: 0)
        let busy = device.openConnection(at: 80)
        _ = device.send(100, .up, on: idle, at: 1)
        _ = device.send(100, .up, on: busy, at: 90)
        let actions = device.advance(to: 101)
        #expect(actions == [mode == .blackhole ? .silence([busy]) : .reset([busy])])
        #expect(device.events.first { $0.kind == .outage }?.affectedConnections == 1)
        // Its next bytes find the mapping gone since 31 s.
        #expect(device.send(1, .up, on: idle, at: 102) == .discard)
        let expiry = device.events.first { $0.kind == .natExpiry }
        #expect(expiry?.expiredAt == 31 && expiry?.affectedConnections == 1)
        #expect(ConnectionDeaths.detectionDelays(events: device.events, noticed: [130], end: 200) == [99])
    }

    /// A FIN that finds the mapping gone closes a connection nobody uses again (grpc-swift's
    /// idle spare at shutdown): dropped, or reset, but not a connection lost to the NAT.
    @Test func aFINThatFindsTheMappingGoneIsNoExpiry() {
        var device = DeviceModel(profile: profile(nat: NATPolicy(idleTimeout: 30, mode: .silent)), seed: 1)
        let spare = device.openConnection(at: 0)
        #expect(device.send(0, .up, on: spare, at: 100) == .discard)
        #expect(device.send(1, .up, on: spare, at: 101) == .discard)
        #expect(device.eventCounts[.natExpiry, default: 0] == 0)
    }

    @Test func aStallOutageDelaysButDelivers() {
        let outage = TimelineEvent(at: 10, kind: .outage(duration: 5, mode: .stall))
        var device = DeviceModel(profile: profile(up: LinkParameters(delay: 0.05), events: [outage]), seed: 1)
        let connection = device.openConnection(at: 0)
        #expect(device.advance(to: 11) == [])
        #expect(device.isDisconnected(at: 11))
        // Sent at 11 s: retransmitted every RTO (0.05 + 0.2 s), doubling: 11.25, 11.75, 12.75, 14.75, 18.75.
        let delivered = deliveryTime(device.send(100, .up, on: connection, at: 11))!
        #expect(abs(delivered - (18.75 + 0.05)) < 1e-9)
        #expect(device.events.map(\.kind) == [.outage])
        // The stall held the open connection (not 0).
        #expect(device.events.first?.affectedConnections == 1)
    }

    /// A chunk's radio wait on air when added, with nothing waiting before it, goes
    /// into the totals at once, where the next settle would have put it; one on air behind a
    /// chunk still waiting keeps its place behind it. The DRX waits are chosen so that the two
    /// orders of adding them differ in the last bit: 0.1 + 0.2 + 0.6 is 0.9, 0.1 + 0.6 + 0.2 is
    /// 0.8999999999999999.
    @Test func radioWaitsAddUpInTheOrderTheChunksCame() {
        func admission(requested: Double, drx: Double) -> RadioAdmission {
            var admission = RadioAdmission(requested: requested)
            admission.drxWait = drx
            admission.start = requested + drx
            return admission
        }
        var ledger = RadioWaitLedger()
        ledger.settle(through: 1)
        ledger.add(admission(requested: 0.9, drx: 0.1))  // on air at 1: added at once
        ledger.add(admission(requested: 1, drx: 0.2))  // on air at 1.2: waits
        ledger.add(admission(requested: 0.4, drx: 0.6))  // on air at 1, but behind the one waiting
        #expect(ledger.totals(until: 1).chunks == 2)
        #expect(ledger.totals(until: 1.1).drxSeconds == 0.1 + 0.6)
        ledger.settle(through: 1.5)
        let totals = ledger.totals(until: 1.5)
        #expect(totals.chunks == 3 && totals.delayedChunks == 3)
        #expect(totals.drxSeconds == 0.9)
    }

    /// A run that ends inside an outage. The request sent at 51 s is held until TCP's
    /// retransmission after the outage (45-75 s); a report at 60 s ends at 60 s, does not count
    /// the promotion that retransmission will need, and says what is still held.
    @Test func aRadioReportEndsWhereTheRunEndsAndSaysWhatIsStillHeld() {
        let outage = TimelineEvent(at: 45, kind: .outage(duration: 30, mode: .stall))
        var device = DeviceModel(
            profile: profile(
                radio: .lte(LTERadioParameters()), up: LinkParameters(delay: 0.025), down: LinkParameters(delay: 0.025),
                events: [outage]),
            seed: 1)
        let connection = device.openConnection(at: 0)
        _ = device.handshake(on: connection, at: 0)
        _ = device.advance(to: 51)
        let held = deliveryTime(device.send(316, .up, on: connection, at: 51))!
        #expect(held > 75)

        let report = device.radioReport(until: 60)
        #expect(abs(report.durationSeconds - 60) < 1e-9)
        #expect(abs(report.secondsByState.values.reduce(0, +) - 60) < 1e-9)
        #expect(report.wakeSeconds < 60)
        #expect(report.promotions == 1)
        #expect(report.bytes == .init(up: 0, down: 0))
        #expect(report.heldAtEnd.up == .init(chunks: 1, bytes: 316))
        #expect(report.heldAtEnd.down == .init())
        // Nor has the held request waited for the radio yet.
        #expect(device.radioWaits(until: 60).chunks == 0)

        // A run that outlives the retransmission counts it, and holds nothing.
        let later = device.radioReport(until: 120)
        #expect(later.promotions == 2)
        #expect(later.bytes.up == 316)
        #expect(later.heldAtEnd.isEmpty)
    }

    /// A report may be asked for while a promotion is under way: it counts the promotion up to
    /// that time only.
    @Test func aReportDuringAPromotionCutsIt() {
        var device = DeviceModel(profile: profile(radio: .lte(LTERadioParameters())), seed: 1)
        let connection = device.openConnection(at: 0)
        _ = device.send(100, .up, on: connection, at: 10)
        let report = device.radioReport(until: 10.1)
        #expect(abs(report.durationSeconds - 10.1) < 1e-9)
        #expect(abs((report.secondsByState[.promotion] ?? 0) - 0.1) < 1e-9)
        #expect(report.heldAtEnd.up == .init(chunks: 1, bytes: 100))
    }

    @Test func aResetOutageResetsOpenConnectionsAndLaterOnesWork() {
        let outage = TimelineEvent(at: 10, kind: .outage(duration: 2, mode: .reset))
        var device = DeviceModel(profile: profile(events: [outage]), seed: 1)
        let first = device.openConnection(at: 0)
        let second = device.openConnection(at: 1)
        #expect(device.nextEventTime == 10)
        #expect(device.advance(to: 9.9) == [])
        #expect(device.advance(to: 10) == [.reset([first, second])])
        #expect(device.send(10, .up, on: first, at: 10.5) == .reset)
        let later = device.openConnection(at: 13)
        #expect(deliveryTime(device.send(10, .up, on: later, at: 13)) == 13)
    }

    @Test func aBlackholeSilencesOpenConnections() {
        let outage = TimelineEvent(at: 10, kind: .outage(duration: 2, mode: .blackhole))
        var device = DeviceModel(profile: profile(events: [outage]), seed: 1)
        let connection = device.openConnection(at: 0)
        #expect(device.advance(to: 10) == [.silence([connection])])
        #expect(device.send(10, .down, on: connection, at: 20) == .discard)
        #expect(device.events.first?.affectedConnections == 1)
    }

    @Test func aHandoverMovesTheDeviceToTheNewNetworkAndItsRadio() {
        let handover = TimelineEvent(at: 20, kind: .handover(to: "wifi", mode: .keep, gap: 1))
        var device = DeviceModel(profile: profile(radio: .lte(LTERadioParameters()), events: [handover]), seed: 1)
        let connection = device.openConnection(at: 0)
        #expect(device.advance(to: 20) == [])
        #expect(device.network.name == "wifi")
        #expect(device.radioState(at: 20.5) == .idle)
        // During the gap bytes wait; afterwards they cross the WiFi link's 5 ms.
        let delivered = deliveryTime(device.send(10, .up, on: connection, at: 25))!
        #expect(abs(delivered - 25.005) < 1e-9)
        let report = device.radioReport(until: 40)
        #expect(report.model == "lte+wifi")
        #expect(abs(report.durationSeconds - 40) < 1e-9)
    }

    @Test func aSignalEventMovesTheConnectedPowerFromThenOn() throws {
        // An NR radio at 2 W and 20 mW per dB below -90 dBm, kept CONNECTED by a byte a second
        // from 1 s to 30 s (and its 10.2 s tail past the end at 40 s). The signal falls to
        // -110 dBm at 5 s: from then on 0.4 W more, so 35 s x 0.4 W = 14 J more than without.
        var radio = NRRadioParameters.nonStandalone
        radio.beta = 2
        radio.rsrpSlope = 0.02
        func energy(_ events: [TimelineEvent]) -> (joules: Double, device: DeviceModel) {
            var device = DeviceModel(profile: profile(radio: .nr(radio), events: events), seed: 1)
            let connection = device.openConnection(at: 0)
            for second in 1...30 {
                _ = device.advance(to: Double(second))
                _ = device.send(1, .up, on: connection, at: Double(second))
            }
            _ = device.advance(to: 40)
            return (device.radioReport(until: 40).energyJoules, device)
        }
        let steady = energy([])
        let fading = energy([TimelineEvent(at: 5, kind: .signal(rsrp: -110))])
        #expect(abs(fading.joules - steady.joules - 14) < 1e-9)
        let event = try #require(fading.device.events.first { $0.kind == .signal })
        #expect(event.rsrp == -110)
        #expect(event.description == "5s: signal on cell at -110dBm")
    }

    @Test func aSetEventChangesTheLinkFromThenOn() {
        let change = TimelineEvent(at: 5, kind: .set(network: nil, up: LinkChange(delay: 0.3), down: LinkChange()))
        var device = DeviceModel(profile: profile(up: LinkParameters(delay: 0.1), events: [change]), seed: 1)
        let connection = device.openConnection(at: 0)
        #expect(deliveryTime(device.send(1, .up, on: connection, at: 1)) == 1.1)
        _ = device.advance(to: 6)
        #expect(abs(deliveryTime(device.send(1, .up, on: connection, at: 6))! - 6.3) < 1e-9)
    }

    @Test func theNATForgetsIdleConnectionsSilentlyOrWithAReset() {
        var silent = DeviceModel(profile: profile(nat: NATPolicy(idleTimeout: 60)), seed: 1)
        let connection = silent.openConnection(at: 0)
        #expect(deliveryTime(silent.send(1, .up, on: connection, at: 59)) != nil)
        #expect(deliveryTime(silent.send(1, .down, on: connection, at: 118)) != nil, "activity restarted the timer")
        #expect(silent.send(1, .up, on: connection, at: 180) == .discard)
        #expect(silent.send(1, .down, on: connection, at: 180.1) == .discard)

        var resetting = DeviceModel(profile: profile(nat: NATPolicy(idleTimeout: 60, mode: .reset)), seed: 1)
        let other = resetting.openConnection(at: 0)
        #expect(resetting.send(1, .up, on: other, at: 61) == .reset)
    }

    /// Bytes an outage holds refresh the NAT's mapping when they get through, not when they
    /// were written: the answer to a request held for two minutes by a stall goes out through a
    /// fresh mapping, though the request was written long before the 30 s idle timeout.
    @Test func bytesHeldByAnOutageRefreshTheNATWhenTheyGetThrough() {
        let stall = TimelineEvent(at: 10, kind: .outage(duration: 120, mode: .stall))
        var device = DeviceModel(profile: profile(nat: NATPolicy(idleTimeout: 30), events: [stall]), seed: 1)
        let connection = device.openConnection(at: 0)
        _ = device.advance(to: 20)
        let request = deliveryTime(device.send(100, .up, on: connection, at: 20))
        #expect(request.map { $0 > 130 } == true, "held until the stall ends: \(String(describing: request))")
        #expect(deliveryTime(device.send(100, .down, on: connection, at: request! + 0.01)) != nil)
        #expect(device.events.allSatisfy { $0.kind != .natExpiry })
    }

    @Test func aRepeatingTimelineRecurs() {
        let outage = TimelineEvent(at: 10, kind: .outage(duration: 5, mode: .stall))
        var device = DeviceModel(profile: profile(events: [outage], repeatPeriod: 30), seed: 1)
        _ = device.advance(to: 100)
        #expect(device.events.map(\.at) == [10, 40, 70, 100])
        #expect(device.nextEventTime == 130)
        #expect(device.isDisconnected(at: 72))
        #expect(!device.isDisconnected(at: 76))
    }

    @Test("advance applies at most its limit of events; the rest stay due for the next call")
    func advanceIsBounded() {
        let outage = TimelineEvent(at: 0.5, kind: .outage(duration: 0.1, mode: .stall))
        var device = DeviceModel(profile: profile(events: [outage], repeatPeriod: 1), seed: 1)
        _ = device.advance(to: 1_000_000, limit: 10)
        #expect(device.events.count == 10)
        #expect(device.nextEventTime == 10.5)
        _ = device.advance(to: 12, limit: 10)
        #expect(device.events.map(\.at).suffix(2) == [10.5, 11.5])
    }

    @Test("the event list keeps the first 1000 events; every event is counted")
    func eventListIsBounded() {
        let outage = TimelineEvent(at: 0.5, kind: .outage(duration: 0.1, mode: .stall))
        var device = DeviceModel(profile: profile(events: [outage], repeatPeriod: 1), seed: 1)
        _ = device.advance(to: 5000)
        #expect(device.events.count == DeviceModel.eventListLimit)
        #expect(device.events.last?.at == 999.5)
        #expect(device.eventCounts == [.outage: 5000])
        #expect(device.lastEvent?.at == 4999.5)
    }

    @Test("a full queue says when it next has room: when enough of what is queued has left")
    func queueRoomTime() {
        let link = LinkParameters(capacity: .rate(bitsPerSecond: 8000), queueLimit: 1500)
        var device = DeviceModel(profile: profile(up: link), seed: 1)
        let connection = device.openConnection(at: 0)
        _ = device.send(1000, .up, on: connection, at: 0)  // on the link 0-1 s
        #expect(device.queueRoomTime(.up, at: 0) == 0, "1000 bytes queued: room now")
        _ = device.send(1000, .up, on: connection, at: 0)  // 1-2 s
        _ = device.send(1000, .up, on: connection, at: 0)  // 2-3 s
        #expect(device.queueRoomTime(.up, at: 0.5) == 2, "3000 queued: under 1500 once two chunks have left")
        #expect(device.queueRoomTime(.up, at: 2.5) == 2.5)
        #expect(device.queueRoomTime(.down, at: 0) == nil, "no limit downstream")
    }

    @Test func aTriggeredOutageActsAtOnce() {
        var device = DeviceModel(profile: profile(), seed: 1)
        let connection = device.openConnection(at: 0)
        #expect(device.trigger(.outage(duration: 3, mode: .reset), at: 5) == [.reset([connection])])
        #expect(device.isDisconnected(at: 6))
    }

    @Test("an undo puts back the fields its step set, keeps what the timeline set since, and walks back step by step")
    func undoingATriggeredSet() {
        // The timeline adds loss at 10 s, after the two triggered steps and before the undos.
        let lossy = TimelineEvent(
            at: 10, kind: .set(network: nil, up: LinkChange(loss: .independent(probability: 0.01)), down: LinkChange()))
        var device = DeviceModel(profile: profile(up: LinkParameters(delay: 0.1), events: [lossy]), seed: 1)
        let nothingYet = device.undoSet(at: 1)
        #expect(nothingYet == false, "nothing triggered yet")
        _ = device.trigger(.set(network: nil, up: LinkChange(delay: 0.3), down: LinkChange()), at: 2)
        _ = device.trigger(.set(network: nil, up: LinkChange(delay: 0.5, queueLimit: .some(3000)), down: LinkChange()), at: 3)
        _ = device.advance(to: 10)
        #expect(device.network.up.delay == 0.5 && device.network.up.queueLimit == 3000)

        let undidTheLatest = device.undoSet(at: 11)
        #expect(undidTheLatest)
        #expect(device.network.up.delay == 0.3 && device.network.up.queueLimit == nil)
        #expect(device.network.up.loss == .independent(probability: 0.01), "the timeline's later step stays")
        #expect(device.lastEvent?.undoes == 3 && device.lastEvent?.link?.up.delaySeconds == 0.3)
        #expect(device.lastEvent.map { "\($0)" } == "11s: set on cell undoing the set at 3s")
        let connection = device.openConnection(at: 11)
        #expect(abs(deliveryTime(device.send(1, .down, on: connection, at: 11))! - 11) < 1e-9, "the down link was never changed")

        let undidTheFirst = device.undoSet(at: 12)
        #expect(undidTheFirst)
        #expect(device.network.up.delay == 0.1)
        let nothingLeft = device.undoSet(at: 13)
        #expect(nothingLeft == false, "both steps undone")
        #expect(device.eventCounts[.set] == 5)
    }

    @Test("an undo changes the network its step named, wherever the device is now")
    func undoingASetOnAnotherNetwork() {
        var device = DeviceModel(profile: profile(), seed: 1)
        _ = device.trigger(.set(network: "wifi", up: LinkChange(delay: 0.2), down: LinkChange()), at: 1)
        _ = device.trigger(.handover(to: "wifi", mode: .keep, gap: 0), at: 2)
        #expect(device.network.up.delay == 0.2)
        let undidTheWiFiStep = device.undoSet(at: 3)
        #expect(undidTheWiFiStep)
        #expect(device.network.name == "wifi" && device.network.up.delay == 0.005)
    }

    @Test("only the last undoLimit triggered steps can be undone")
    func undoHistoryIsBounded() {
        var device = DeviceModel(profile: profile(), seed: 1)
        for step in 1...(DeviceModel.undoLimit + 10) {
            _ = device.trigger(.set(network: nil, up: LinkChange(delay: Double(step) / 1000), down: LinkChange()), at: Double(step))
        }
        var undone = 0
        while device.undoSet(at: 1000) { undone += 1 }
        #expect(undone == DeviceModel.undoLimit)
        #expect(device.network.up.delay == 0.010, "the step before the oldest one kept")
    }

    @Test("connectivity returns at the end of the gap in force, or of gaps that overlap it")
    func connectivityReturns() {
        let outage = TimelineEvent(at: 10, kind: .outage(duration: 5, mode: .stall))
        var device = DeviceModel(profile: profile(events: [outage]), seed: 1)
        #expect(device.connectivityReturns(after: 9) == nil)
        #expect(device.connectivityReturns(after: 12) == 15)
        _ = device.trigger(.outage(duration: 8, mode: .stall), at: 13)
        _ = device.trigger(.handover(to: "wifi", mode: .keep, gap: 2), at: 21)
        #expect(device.connectivityReturns(after: 12) == 23, "10-15, 13-21 and 21-23 back to back")
        #expect(device.connectivityReturns(after: 23) == nil)
    }

    @Test func theSameSeedGivesTheSameRun() {
        func run(seed: UInt64) -> [SendVerdict] {
            let link = LinkParameters(
                capacity: .rate(bitsPerSecond: 2e6), delay: 0.03, jitter: Jitter(amount: 0.01), loss: .independent(probability: 0.05))
            var device = DeviceModel(profile: profile(radio: .lte(LTERadioParameters()), up: link, down: link), seed: seed)
            let connection = device.openConnection(at: 0)
            return (0..<200).map { device.send(3000, $0 % 2 == 0 ? .up : .down, on: connection, at: Double($0) * 0.37) }
        }
        #expect(run(seed: 9) == run(seed: 9))
        #expect(run(seed: 9) != run(seed: 10))
    }
}
