import NetsimTestSupport
import Testing

@testable import NetsimModel

/// The outbox both engines send uplink messages by, as a value: limits, drops, generations and
/// batching waits, against figures worked out by hand.
@Suite(.computes)
struct OutboxTests {
    /// An outbox holding `times.count` messages produced at those times, numbered from 1.
    static func outbox(limit: Int, producedAt times: [Double], record: inout AppRecord) -> Outbox<NoPayload> {
        var outbox = Outbox<NoPayload>(limit: limit)
        for time in times { _ = record.produceMessage(into: &outbox, at: time) { _ in NoPayload() } }
        return outbox
    }

    /// Drains what connection `generation` sends at `now`: the ids of each send, in order.
    static func drain(
        _ outbox: inout Outbox<NoPayload>, _ generation: Int, batching: ClientSettings.Batching? = nil, now: Double
    ) -> [[UInt64]] {
        var sends: [[UInt64]] = []
        while case .send(let batch) = outbox.next(for: generation, batching: batching, now: now) { sends.append(batch.map(\.id)) }
        return sends
    }

    @Test func aFullOutboxDropsTheOldestAndTheRecordCountsThem() {
        var record = AppRecord()
        // Limit 3, five messages: the fourth pushes out 1, the fifth 2.
        let outbox = Self.outbox(limit: 3, producedAt: [0, 1, 2, 3, 4], record: &record)
        #expect(record.messagesProduced == 5)
        #expect(record.droppedMessageIDs == [1, 2])
        #expect(outbox.count == 3)
    }

    @Test func eachUnacknowledgedMessageGoesOncePerConnection() {
        var record = AppRecord()
        var outbox = Self.outbox(limit: 8, producedAt: [0, 1, 2], record: &record)
        #expect(outbox.next(for: 0, batching: nil, now: 5) == .idle)  // before any connection
        let first = outbox.beginConnection()
        #expect(first == 1)
        #expect(Self.drain(&outbox, first, now: 5) == [[1], [2], [3]])
        #expect(outbox.next(for: first, batching: nil, now: 5) == .idle)
        // 1 is acknowledged, then the connection dies: 2 and 3 go again on the next, not 1.
        outbox.acknowledge(1)
        outbox.acknowledge(99)  // an unknown id changes nothing
        let second = outbox.beginConnection()
        #expect(Self.drain(&outbox, second, now: 6) == [[2], [3]])
        // A message produced now goes on the current connection only once.
        _ = record.produceMessage(into: &outbox, at: 7) { _ in NoPayload() }
        #expect(Self.drain(&outbox, second, now: 7) == [[4]])
        outbox.acknowledge(2)
        outbox.acknowledge(3)
        outbox.acknowledge(4)
        #expect(outbox.isEmpty)
    }

    @Test func aBatchWaitsUntilFullOrItsOldestHasWaitedFlushAfter() {
        var record = AppRecord()
        let batching = ClientSettings.Batching(maxMessages: 3, flushAfter: 2)
        var outbox = Self.outbox(limit: 8, producedAt: [10, 11], record: &record)
        let generation = outbox.beginConnection()
        // Two of three, the oldest produced at 10: due at 12.
        #expect(outbox.next(for: generation, batching: batching, now: 11) == .wait(until: 12))
        #expect(Self.drain(&outbox, generation, batching: batching, now: 12) == [[1, 2]])
        // Three produced at 13, 13.5 and 14: full at 14, sent then, before the flush at 15.
        for time in [13, 13.5] { _ = record.produceMessage(into: &outbox, at: time) { _ in NoPayload() } }
        #expect(outbox.next(for: generation, batching: batching, now: 13.5) == .wait(until: 15))
        _ = record.produceMessage(into: &outbox, at: 14) { _ in NoPayload() }
        #expect(Self.drain(&outbox, generation, batching: batching, now: 14) == [[3, 4, 5]])
        #expect(outbox.next(for: generation, batching: batching, now: 14) == .idle)
    }

    @Test func aBacklogGoesInFullBatchesThenTheRestWhenDue() {
        var record = AppRecord()
        let batching = ClientSettings.Batching(maxMessages: 3, flushAfter: 2)
        // Seven produced while offline, 0 to 6 s; the connection comes at 10: all are overdue.
        var outbox = Self.outbox(limit: 8, producedAt: [0, 1, 2, 3, 4, 5, 6], record: &record)
        let generation = outbox.beginConnection()
        #expect(Self.drain(&outbox, generation, batching: batching, now: 10) == [[1, 2, 3], [4, 5, 6], [7]])
        // On a new connection before any acknowledgement, the same again; 7 alone is not yet
        // due at 7.5 (produced at 6, flushed at 8).
        let next = outbox.beginConnection()
        #expect(Self.drain(&outbox, next, batching: batching, now: 7.5) == [[1, 2, 3], [4, 5, 6]])
        #expect(outbox.next(for: next, batching: batching, now: 7.5) == .wait(until: 8))
    }
}
