import NetsimTestSupport
import Testing

@testable import NetsimCore

/// What each chunk waited for (radio, outage, queue), and the run report's per-destination sums.
@Suite(.computes) struct DestinationWaitsTests {
    func delivery(_ verdict: SendVerdict) -> Delivery? {
        if case .deliver(let delivery) = verdict { return delivery }
        return nil
    }

    func device(radio: RadioParameters = .none, up: LinkParameters = LinkParameters(), events: [TimelineEvent] = []) -> DeviceModel {
        DeviceModel(
            profile: Profile(
                name: "test", description: "", networks: [Network(name: "cell", radio: radio, up: up, down: LinkParameters())],
                start: "cell", timeline: Timeline(events: events)),
            seed: 1)
    }

    @Test("a chunk's waits: the promotion it paid, apart from the link")
    func promotion() throws {
        // LTE from IDLE: a 260 ms promotion (radio-parameters.md), then the 20 ms one-way delay.
        var model = device(radio: .lte(LTERadioParameters()), up: LinkParameters(delay: 0.02))
        let connection = model.openConnection(at: 0)
        let waited = try #require(delivery(model.send(100, .up, on: connection, at: 30)))
        #expect(abs(waited.waits.promotion - 0.26) < 1e-9)
        #expect(waited.waits.outage == 0 && waited.waits.queue == 0 && waited.waits.paging == 0)
        #expect(waited.radioWait == waited.waits.radio)
    }

    @Test("a chunk sent into a stall waits for TCP's first retransmission after it")
    func outage() throws {
        // Round trip 0.1 s, so the RTO is 0.3 s: retries at 11.3, 11.9, 13.1 and 15.5, the first after the outage's end at 15.
        var model = device(
            up: LinkParameters(delay: 0.1), events: [TimelineEvent(at: 10, kind: .outage(duration: 5, mode: .stall))])
        let connection = model.openConnection(at: 0)
        _ = model.advance(to: 11)
        let held = try #require(delivery(model.send(100, .up, on: connection, at: 11)))
        #expect(abs(held.waits.outage - 4.5) < 1e-9)
        #expect(abs(held.at - 15.6) < 1e-9)
    }

    @Test("a chunk behind another on a rate-limited link waits for it to leave")
    func queue() throws {
        // 8 kbit/s: 1000 bytes take 1 s (a rate counts payload only: docs/emulation.md).
        var model = device(up: LinkParameters(capacity: .rate(bitsPerSecond: 8000)))
        let connection = model.openConnection(at: 0)
        let first = try #require(delivery(model.send(1000, .up, on: connection, at: 0)))
        #expect(first.waits == ChunkWaits())
        let second = try #require(delivery(model.send(100, .up, on: connection, at: 0.5)))
        #expect(abs(first.onAir.end - 1) < 1e-9)
        #expect(abs(second.waits.queue - 0.5) < 1e-9)
    }

    @Test("per destination: the chunks delivered by then, the longest waits first, a cause counted only when waited for")
    func ledger() {
        var ledger = DestinationWaitLedger()
        ledger.connectionOpened(to: "a.example:443")
        ledger.connectionOpened(to: "b.example:443")
        ledger.connectionOpened(to: "b.example:443")
        ledger.add("a.example:443", .up, deliveredAt: 1, waits: ChunkWaits(promotion: 0.26))
        ledger.add("a.example:443", .down, deliveredAt: 2, waits: ChunkWaits())
        ledger.add("b.example:443", .down, deliveredAt: 3, waits: ChunkWaits(paging: 0.4, queue: 0.1))
        ledger.add("b.example:443", .down, deliveredAt: 4, waits: ChunkWaits(paging: 0.2))
        ledger.add("a.example:443", .up, deliveredAt: 9, waits: ChunkWaits(outage: 30))
        ledger.settle(through: 2.5)

        let figures = ledger.figures(until: 5)
        #expect(figures.map(\.destination) == ["b.example:443", "a.example:443"], "0.7 s of waits before 0.26 s")
        let b = figures[0]
        #expect(b.connections == 2 && b.chunks == PerDirection(up: 0, down: 2) && b.waitedChunks == 2)
        #expect(b.waits[.paging] == WaitFigures(chunks: 2, seconds: 0.6000000000000001, maxSeconds: 0.4))
        #expect(b.waits[.queue] == WaitFigures(chunks: 1, seconds: 0.1, maxSeconds: 0.1))
        #expect(b.waits[.promotion] == nil && b.waits[.outage] == nil)
        let a = figures[1]
        #expect(a.chunks == PerDirection(up: 1, down: 1) && a.waitedChunks == 1, "the chunk delivered at 9 is still on its way")
        #expect(ledger.figures(until: 9).first?.destination == "a.example:443")
    }

    @Test("destinations beyond the limit are counted together")
    func bounded() {
        var ledger = DestinationWaitLedger()
        for index in 0..<(DestinationWaitLedger.destinationLimit + 10) {
            ledger.connectionOpened(to: "host\(index).example:443")
        }
        let figures = ledger.figures(until: 0)
        #expect(figures.count == DestinationWaitLedger.destinationLimit + 1)
        #expect(figures.first { $0.destination == DestinationWaitLedger.otherDestinations }?.connections == 10)
    }
}
