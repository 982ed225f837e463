import NetsimTestSupport
import Testing

@testable import NetsimCore

/// UDP datagrams through the device model (`DeviceModel.sendDatagram`), against hand-computed
/// times: no sockets, no sleeps.
@Suite(.computes) struct DatagramModelTests {
    /// 1 Mbit/s is 125,000 bytes a second: a 1,250-byte datagram takes 10 ms on the link.
    static let megabit = LinkCapacity.rate(bitsPerSecond: 1_000_000)

    func profile(
        radio: RadioParameters = .none, up: LinkParameters = LinkParameters(), down: LinkParameters = LinkParameters(),
        nat: NATPolicy? = nil, events: [TimelineEvent] = []
    ) -> Profile {
        Profile(
            name: "test", description: "",
            networks: [
                Network(name: "cell", radio: radio, up: up, down: down),
                Network(name: "wifi", radio: .none, up: LinkParameters(), down: LinkParameters()),
            ],
            start: "cell", nat: nat, timeline: Timeline(events: events))
    }

    func deliveredAt(_ verdict: DatagramVerdict) -> Double? {
        if case .deliver(let delivery, _) = verdict { return delivery.at }
        return nil
    }

    func mapping(_ verdict: DatagramVerdict) -> Int? {
        if case .deliver(_, let mapping) = verdict { return mapping }
        return nil
    }

    @Test func theRateSerializesDatagramsBehindEachOtherAndTheDelayFollows() {
        var device = DeviceModel(
            profile: profile(
                up: LinkParameters(capacity: Self.megabit, delay: 0.02), down: LinkParameters(capacity: Self.megabit, delay: 0.02)),
            seed: 1)
        let flow = device.openDatagramFlow(at: 0)
        // Up: on the link 1.000-1.010, then 20 ms; the second waits for the first: 1.010-1.020.
        #expect(abs(deliveredAt(device.sendDatagram(1250, .up, on: flow, at: 1))! - 1.03) < 1e-9)
        #expect(abs(deliveredAt(device.sendDatagram(1250, .up, on: flow, at: 1))! - 1.04) < 1e-9)
        // Down: 20 ms to the base station, then 10 ms on the link.
        #expect(abs(deliveredAt(device.sendDatagram(1250, .down, on: flow, at: 2))! - 2.03) < 1e-9)
    }

    @Test func lossDropsADatagramWhenAnyOfItsFragmentsIsLost() {
        var device = DeviceModel(profile: profile(up: LinkParameters(loss: .independent(probability: 0.1))), seed: 7)
        let flow = device.openDatagramFlow(at: 0)
        var small = 0
        var large = 0
        for index in 0..<10_000 {
            if device.sendDatagram(1000, .up, on: flow, at: Double(index)) == .drop(.loss) { small += 1 }
            // 3,000 bytes and the UDP header are three fragments: lost with 1 - 0.9^3 = 0.271.
            if device.sendDatagram(3000, .up, on: flow, at: Double(index)) == .drop(.loss) { large += 1 }
        }
        // Three standard deviations: sqrt(10,000 * p * (1 - p)) is 30 and 44.
        #expect(abs(small - 1000) < 90)
        #expect(abs(large - 2710) < 135)
        #expect(UDPDatagram.fragments(1472) == 1)
        #expect(UDPDatagram.fragments(1473) == 2)
        #expect(UDPDatagram.wireBytes(1472) == 1500)
    }

    @Test func certainLossDropsEveryDatagramAndNoLossNone() {
        var lossy = DeviceModel(profile: profile(down: LinkParameters(loss: .independent(probability: 1))), seed: 1)
        var clean = DeviceModel(profile: profile(), seed: 1)
        let lossyFlow = lossy.openDatagramFlow(at: 0)
        let cleanFlow = clean.openDatagramFlow(at: 0)
        for index in 0..<100 {
            #expect(lossy.sendDatagram(100, .down, on: lossyFlow, at: Double(index)) == .drop(.loss))
            #expect(deliveredAt(clean.sendDatagram(100, .down, on: cleanFlow, at: Double(index))) == Double(index))
        }
    }

    /// Datagrams 1 ms apart with ±40 ms of jitter overtake each other in both directions, where
    /// a TCP connection's chunks never do.
    @Test func jitterReordersDatagramsButNotAConnectionsChunks() {
        let jittery = LinkParameters(delay: 0.05, jitter: Jitter(amount: 0.04, reordersDatagrams: true))
        var device = DeviceModel(profile: profile(up: jittery, down: jittery), seed: 3)
        var tcpDevice = DeviceModel(profile: profile(up: jittery, down: jittery), seed: 3)
        let flow = device.openDatagramFlow(at: 0)
        let connection = tcpDevice.openConnection(at: 0)
        for direction in Direction.allCases {
            var datagrams: [Double] = []
            var chunks: [Double] = []
            for index in 0..<200 {
                let time = 1 + Double(index) * 0.001
                datagrams.append(deliveredAt(device.sendDatagram(100, direction, on: flow, at: time))!)
                if case .deliver(let delivery) = tcpDevice.send(100, direction, on: connection, at: time) { chunks.append(delivery.at) }
            }
            #expect(datagrams != datagrams.sorted(), "\(direction): datagrams in order")
            #expect(chunks == chunks.sorted(), "\(direction): chunks out of order")
            // Every datagram takes the delay give or take the jitter: 10 to 90 ms.
            for (index, at) in datagrams.enumerated() {
                let took = at - (1 + Double(index) * 0.001)
                #expect(took >= 0.01 - 1e-9 && took <= 0.09 + 1e-9)
            }
        }
    }

    /// A link that keeps datagrams in order keeps its own: after a handover from a link that
    /// reorders, a datagram on the new one does not wait for the old link's late ones.
    @Test func theOrderIsTheLinksOwn() {
        let reordering = LinkParameters(delay: 0.05, jitter: Jitter(amount: 0.04, reordersDatagrams: true))
        let inOrder = LinkParameters(delay: 0.001, jitter: Jitter(amount: 0.0005, reordersDatagrams: false))
        var device = DeviceModel(
            profile: Profile(
                name: "test", description: "",
                networks: [
                    Network(name: "cell", radio: .none, up: reordering, down: reordering),
                    Network(name: "wifi", radio: .none, up: inOrder, down: inOrder),
                ],
                start: "cell", timeline: Timeline(events: [TimelineEvent(at: 1, kind: .handover(to: "wifi", mode: .keep, gap: 0))])),
            seed: 3)
        let flow = device.openDatagramFlow(at: 0)
        // Uplink: its delay comes after the link's queue, so only the order is tested.
        let late = (0..<20).compactMap { deliveredAt(device.sendDatagram(100, .up, on: flow, at: 0.99 + Double($0) * 0.0005)) }.max()
        _ = device.advance(to: 1.001)
        let first = deliveredAt(device.sendDatagram(100, .up, on: flow, at: 1.001))
        #expect((late ?? 0) > 1.05, "the cell's datagrams arrive late")
        #expect(first.map { $0 < 1.005 } == true, "\(String(describing: first)): waited for the cell's")
    }

    /// The same link with `reorder: false`: each datagram is delivered when it would have been,
    /// or with the one before it if that is later (the running latest of the reordering link's
    /// deliveries, since the draws are the same), in both directions.
    @Test func aLinkThatKeepsDatagramsInOrderDeliversEachNoEarlierThanTheOneBefore() {
        let reordering = LinkParameters(delay: 0.05, jitter: Jitter(amount: 0.04, reordersDatagrams: true))
        var inOrder = reordering
        inOrder.jitter?.reordersDatagrams = false
        var free = DeviceModel(profile: profile(up: reordering, down: reordering), seed: 3)
        var kept = DeviceModel(profile: profile(up: inOrder, down: inOrder), seed: 3)
        let freeFlow = free.openDatagramFlow(at: 0)
        let keptFlow = kept.openDatagramFlow(at: 0)
        for direction in Direction.allCases {
            var latest = 0.0
            var held = 0
            for index in 0..<200 {
                let time = 1 + Double(index) * 0.001
                let drawn = deliveredAt(free.sendDatagram(100, direction, on: freeFlow, at: time))!
                let delivered = deliveredAt(kept.sendDatagram(100, direction, on: keptFlow, at: time))!
                if drawn < latest { held += 1 }
                latest = max(latest, drawn)
                #expect(delivered == latest, "\(direction) datagram \(index)")
            }
            #expect(held > 50, "\(direction): \(held) datagrams waited for an earlier one")
        }
        #expect(Jitter(amount: 0.005).summary == "5ms uniform")
        #expect(Jitter(amount: 0.005, reordersDatagrams: true).summary == "5ms uniform, datagrams reordered")
    }

    /// A queue of 3,000 bytes on a 1 Mbit/s link: three 1,000-byte datagrams fit, the fourth is
    /// dropped; once the first has left (8 ms), there is room again.
    @Test func aFullQueueDropsTheDatagramThatDoesNotFit() {
        var device = DeviceModel(profile: profile(up: LinkParameters(capacity: Self.megabit, queueLimit: 3000)), seed: 1)
        let flow = device.openDatagramFlow(at: 0)
        for _ in 0..<3 { #expect(deliveredAt(device.sendDatagram(1000, .up, on: flow, at: 0)) != nil) }
        #expect(device.sendDatagram(1000, .up, on: flow, at: 0) == .drop(.queueFull))
        #expect(device.sendDatagram(1000, .up, on: flow, at: 0.007) == .drop(.queueFull))
        #expect(abs(deliveredAt(device.sendDatagram(1000, .up, on: flow, at: 0.008))! - 0.032) < 1e-9)
    }

    @Test func aStallHoldsDatagramsUntilItEndsAndABlackholeDropsThem() {
        let events = [
            TimelineEvent(at: 10, kind: .outage(duration: 5, mode: .stall)),
            TimelineEvent(at: 20, kind: .outage(duration: 5, mode: .blackhole)),
            TimelineEvent(at: 30, kind: .outage(duration: 5, mode: .reset)),
        ]
        var device = DeviceModel(
            profile: profile(up: LinkParameters(delay: 0.02), down: LinkParameters(delay: 0.02), events: events), seed: 1)
        let flow = device.openDatagramFlow(at: 0)
        _ = device.advance(to: 40)
        // Held, not retransmitted: it goes the moment the link is back (TCP would wait for its RTO).
        #expect(abs(deliveredAt(device.sendDatagram(100, .up, on: flow, at: 12))! - 15.02) < 1e-9)
        // Down: it reaches the base station at 12.02 and waits there.
        #expect(abs(deliveredAt(device.sendDatagram(100, .down, on: flow, at: 12))! - 15) < 1e-9)
        #expect(device.sendDatagram(100, .up, on: flow, at: 22) == .drop(.outage))
        #expect(device.sendDatagram(100, .down, on: flow, at: 22) == .drop(.outage))
        #expect(device.sendDatagram(100, .up, on: flow, at: 32) == .drop(.outage))
        #expect(abs(deliveredAt(device.sendDatagram(100, .up, on: flow, at: 36))! - 36.02) < 1e-9)
    }

    /// A stall on a 1 Mbit/s link with a 3,000-byte queue: the datagrams sent during it wait in
    /// the queue, three of them, then the queue is full.
    @Test func aStallHoldsDatagramsOnlyUpToTheQueueLimit() {
        let events = [TimelineEvent(at: 10, kind: .outage(duration: 5, mode: .stall))]
        var device = DeviceModel(
            profile: profile(up: LinkParameters(capacity: Self.megabit, queueLimit: 3000), events: events), seed: 1)
        let flow = device.openDatagramFlow(at: 0)
        _ = device.advance(to: 12)
        let held = (0..<3).map { deliveredAt(device.sendDatagram(1000, .up, on: flow, at: 11 + Double($0) * 0.1)) }
        #expect(held.map { ($0 ?? 0) * 1000 }.map { $0.rounded() } == [15008, 15016, 15024])
        #expect(device.sendDatagram(1000, .up, on: flow, at: 11.3) == .drop(.queueFull))
    }

    @Test func handoversHoldOrDropDatagramsByTheirMode() {
        let events = [
            TimelineEvent(at: 10, kind: .handover(to: "wifi", mode: .keep, gap: 2)),
            TimelineEvent(at: 20, kind: .handover(to: "cell", mode: .reset, gap: 2)),
        ]
        var device = DeviceModel(profile: profile(events: events), seed: 1)
        let flow = device.openDatagramFlow(at: 0)
        _ = device.advance(to: 30)
        #expect(deliveredAt(device.sendDatagram(100, .up, on: flow, at: 11)) == 12)
        #expect(device.sendDatagram(100, .up, on: flow, at: 21) == .drop(.outage))
    }

    /// RFC 4787's UDP mapping with a 30 s timeout: the server's datagram after it is dropped and
    /// the expiry recorded once; the phone's next datagram opens a new mapping (the server sees
    /// a new port), and a datagram to the old mapping is dropped.
    @Test func theNATForgetsAnIdleUDPMappingAndThePhonesNextDatagramOpensANewOne() {
        var device = DeviceModel(profile: profile(nat: NATPolicy(idleTimeout: nil, udpIdleTimeout: 30)), seed: 1)
        let flow = device.openDatagramFlow(at: 0)
        #expect(mapping(device.sendDatagram(100, .up, on: flow, at: 0)) == 0)
        #expect(deliveredAt(device.sendDatagram(100, .down, on: flow, mapping: 0, at: 20)) == 20)
        #expect(device.sendDatagram(100, .down, on: flow, mapping: 0, at: 60) == .drop(.natExpired))
        #expect(device.sendDatagram(100, .down, on: flow, mapping: 0, at: 61) == .drop(.natExpired))
        #expect(mapping(device.sendDatagram(100, .up, on: flow, at: 62)) == 1)
        #expect(device.sendDatagram(100, .down, on: flow, mapping: 0, at: 63) == .drop(.oldAddress))
        #expect(deliveredAt(device.sendDatagram(100, .down, on: flow, mapping: 1, at: 63)) == 63)
        // Idle from 63 to 100: the up datagram finds the mapping gone, records it, and opens mapping 2.
        #expect(mapping(device.sendDatagram(100, .up, on: flow, at: 100)) == 2)
        let expiries = device.events.filter { $0.kind == .natExpiry }
        #expect(expiries.map(\.at) == [60, 100])
        #expect(expiries.map(\.expiredAt) == [50, 93])
        #expect(expiries.allSatisfy { $0.affectedFlows == 1 && $0.affectedConnections == nil })
    }

    @Test func aHandoverThatChangesThePhonesAddressRemapsEveryFlow() {
        let events = [
            TimelineEvent(at: 10, kind: .handover(to: "wifi", mode: .keep, gap: 0)),
            TimelineEvent(at: 20, kind: .handover(to: "cell", mode: .reset, gap: 0)),
        ]
        var device = DeviceModel(profile: profile(events: events), seed: 1)
        let flows = [device.openDatagramFlow(at: 0), device.openDatagramFlow(at: 0)]
        _ = device.advance(to: 15)
        #expect(flows.map { mapping(device.sendDatagram(100, .up, on: $0, at: 15)) } == [0, 0])
        _ = device.advance(to: 25)
        #expect(device.sendDatagram(100, .down, on: flows[0], mapping: 0, at: 25) == .drop(.oldAddress))
        #expect(flows.map { mapping(device.sendDatagram(100, .up, on: $0, at: 25)) } == [1, 1])
        #expect(device.events.map(\.affectedFlows) == [nil, 2])
    }

    @Test func aDatagramOnAnIdleLTEPhonePaysThePromotion() {
        var device = DeviceModel(profile: profile(radio: .lte(LTERadioParameters()), up: LinkParameters(delay: 0.02)), seed: 1)
        let flow = device.openDatagramFlow(at: 0)
        guard case .deliver(let delivery, _) = device.sendDatagram(100, .up, on: flow, at: 30) else {
            Issue.record("not delivered")
            return
        }
        #expect(abs(delivery.at - 30.28) < 1e-9)
        #expect(abs(delivery.radioWait - 0.26) < 1e-9)
        #expect(device.radioReport(until: 60).promotions == 1)
        #expect(device.radioReport(until: 60).bytes.up == 100)
    }

    /// A datagram held by a stall triggered through the admin API goes when the stall is ended
    /// early, as the replanned answer says.
    @Test func endingATriggeredStallEarlyMovesTheDatagramsItHeld() throws {
        var device = ReplannableDevice(DeviceModel(profile: profile(up: LinkParameters(delay: 0.02)), seed: 1))
        let flow = device.openDatagramFlow(at: 0)
        _ = device.trigger(.outage(duration: 30, mode: .stall), at: 10)
        let ticket = try #require(device.nextTicket)
        #expect(abs(deliveredAt(device.sendDatagram(100, .up, on: flow, at: 12))! - 40.02) < 1e-9)
        let replan = try device.endGaps(at: 20)
        guard case .datagram(let verdict) = replan.calls[ticket].answer else {
            Issue.record("no datagram answer")
            return
        }
        #expect(abs(deliveredAt(verdict)! - 20.02) < 1e-9)
    }

    /// A triggered blackhole drops datagrams, and a keep handover's gap holds them.
    @Test func triggeredGapsHoldOrDropDatagramsAsScriptedOnesDo() {
        var device = DeviceModel(profile: profile(), seed: 1)
        let flow = device.openDatagramFlow(at: 0)
        _ = device.trigger(.outage(duration: 5, mode: .blackhole), at: 10)
        #expect(device.sendDatagram(100, .up, on: flow, at: 11) == .drop(.outage))
        _ = device.trigger(.handover(to: "wifi", mode: .keep, gap: 5), at: 20)
        #expect(deliveredAt(device.sendDatagram(100, .up, on: flow, at: 21)) == 25)
    }

    @Test func theFiguresCountEachDatagramsFate() {
        var figures = DatagramFigures()
        figures.count(100, .up, droppedBy: nil)
        figures.count(200, .up, droppedBy: .loss)
        figures.count(300, .down, droppedBy: nil)
        #expect(figures.counts.up.sent == 2 && figures.counts.up.delivered == 1 && figures.counts.up.bytesDelivered == 100)
        #expect(figures.counts.up.dropped == [.loss: 1])
        #expect(figures.counts.down.bytesDelivered == 300)
    }
}
