import NetsimModel
import Testing

@testable import NetsimBench

/// The live client's receive buffer: its peak is the buffer's own count, never more than its
/// bound, while the network side and the app race over it.
@Suite struct EventInboxTests {
    static func event(_ sequence: Int) -> EventInbox.Event {
        EventInbox.Event(sequence: UInt64(sequence), payloadBytes: 100 + sequence % 7)
    }

    @Test func aFullBufferKeepsTheNewestAndCountsWhatItDrops() async {
        let ledger = DeviceLedger(device: 0, outboxLimit: 8)
        let inbox = EventInbox(ledger: ledger, clock: BenchClock(), mode: .bounded(4), consumer: nil)
        for _ in 1...10 { ledger.eventCreated(at: 0) }
        for sequence in 1...10 { await inbox.deliver(Self.event(sequence)) }
        let record = ledger.record
        #expect(record.receiveBufferDrops == 6)
        #expect(record.peakBufferedEvents == 4)
        // The buffer is each time the newest four; their bytes peaked with events 3 to 6
        // (103 + 104 + 105 + 106).
        #expect(record.peakBufferedBytes == 418)
        inbox.finish()
        await inbox.runApp()
        #expect(ledger.record.events.arrived == 4)
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
        #expect(ledger.record.peakBufferedEvents == 3)

        let idle = EventInbox(ledger: DeviceLedger(device: 1, outboxLimit: 8), clock: BenchClock(), mode: .unbounded, consumer: nil)
        let waiting = Task { await idle.runApp() }
        waiting.cancel()
        await waiting.value
    }
}
