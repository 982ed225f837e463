import NetsimModel
import NetsimTestSupport
import Testing

@testable import NetsimBench

/// The live client's receive buffer (the model's `AppInbox` behind a lock): its peak is the
/// buffer's own count, never more than its bound, while the network side and the app race over
/// it; a pulling app holds the network side back for its handling time.
@Suite(.computes) struct EventInboxTests {
    static func event(_ sequence: Int) -> EventInbox.Event {
        EventInbox.Event(sequence: UInt64(sequence), payloadBytes: 100 + sequence % 7)
    }

    @Test func aFullBufferKeepsTheNewestAndCountsWhatItDrops() async {
        let ledger = DeviceLedger(device: 0, outboxLimit: 8)
        let inbox = EventInbox(ledger: ledger, clock: BenchClock(), mode: .bounded(4), consumer: nil)
        for _ in 1...10 { ledger.eventCreated(at: 0) }
        for sequence in 1...10 { await inbox.deliver(Self.event(sequence)) }
        let record = ledger.record
        // The idle app took event 1; the buffer is each time the newest four after it, and
        // dropped 2 to 6. Their bytes peaked with events 3 to 6 (103 + 104 + 105 + 106).
        #expect(record.receiveBufferDrops == 5)
        #expect(record.peakBufferedEvents == 4)
        #expect(record.peakBufferedBytes == 418)
        inbox.finish()
        await inbox.runApp()
        #expect(ledger.record.events.arrived == 5)
    }

    /// The app takes events while the network side delivers: a count kept by the app as it
    /// takes an event lagged the buffer, and a full buffer of 8 could peak at 9.
    @Test func thePeakNeverPassesTheBoundWhileTheAppTakesEvents() async {
        let ledger = DeviceLedger(device: 0, outboxLimit: 8)
        let inbox = EventInbox(ledger: ledger, clock: BenchClock(), mode: .bounded(8), consumer: nil)
        for _ in 1...20_000 { ledger.eventCreated(at: 0) }
        async let app: Void = inbox.runApp()
        for sequence in 1...20_000 { await inbox.deliver(Self.event(sequence)) }
        inbox.finish()
        await app
        let record = ledger.record
        #expect(record.peakBufferedEvents <= 8 && record.peakBufferedBytes <= 8 * 106)
        #expect(record.events.arrived + record.receiveBufferDrops == 20_000)
    }

    /// A finished buffer still hands the app what it holds, then the app stops; an app waiting
    /// on an empty buffer stops when its task is cancelled; events after the finish are not
    /// buffered.
    @Test func theAppTakesWhatIsLeftAfterTheFinishAndStopsWhenCancelled() async {
        let ledger = DeviceLedger(device: 0, outboxLimit: 8)
        let inbox = EventInbox(ledger: ledger, clock: BenchClock(), mode: .bounded(4), consumer: nil)
        for _ in 1...4 { ledger.eventCreated(at: 0) }
        for sequence in 1...3 { await inbox.deliver(Self.event(sequence)) }
        inbox.finish()
        await inbox.deliver(Self.event(4))
        await inbox.runApp()
        #expect(ledger.record.events.arrived == 3 && ledger.record.receiveBufferDrops == 0)
        // The idle app took event 1: the buffer held the other two.
        #expect(ledger.record.peakBufferedEvents == 2)

        let idle = EventInbox(ledger: DeviceLedger(device: 1, outboxLimit: 8), clock: BenchClock(), mode: .unbounded, consumer: nil)
        let waiting = Task { await idle.runApp() }
        waiting.cancel()
        await waiting.value
    }

    /// Pulled, the app handles each event before its read returns; a read that arrives while
    /// another is handled waits unread, and is handled after it. Lower bounds only: the clock
    /// is real.
    @Test func aPullingAppHandlesOneEventAtATime() async {
        let ledger = DeviceLedger(device: 0, outboxLimit: 8)
        let clock = BenchClock()
        let inbox = EventInbox(ledger: ledger, clock: clock, mode: .pull, consumer: .init(eventsPerSecond: 50))
        for _ in 1...3 { ledger.eventCreated(at: 0) }
        await inbox.deliver(Self.event(1))
        #expect(ledger.record.events.arrived == 1)
        #expect(ledger.deliveries[0].deliveredAt >= 0.02)
        async let second: Void = inbox.deliver(Self.event(2))
        async let third: Void = inbox.deliver(Self.event(3))
        _ = await (second, third)
        let delivered = ledger.deliveries.map(\.deliveredAt)
        #expect(delivered.count == 3)
        #expect(delivered[2] - delivered[0] >= 0.04 - 1e-3)
        #expect(ledger.record.peakBufferedEvents == 1 && ledger.record.receiveBufferDrops == 0)
    }
}
