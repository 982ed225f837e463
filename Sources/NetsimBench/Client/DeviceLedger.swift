import NetsimModel
import Synchronization

/// The app's side of one device, whatever its transport: the events it received (for
/// delivery accounting and resumption) and its `Outbox` of uplink messages, recorded in the
/// `AppRecord` the model engine's `AppLedger` fills too. The outbox's rule is the model's; this
/// holds it behind a lock and wakes the connection's writer when a message is produced or a
/// batch falls due.
final class DeviceLedger: Sendable {
    typealias Message = Outbox<String>.Message
    /// What a connection's writer does next (`nextBatch`).
    typealias SendStep = Outbox<String>.Step

    /// An event's first delivery to the app, and when the server created it.
    struct Delivery: Sendable, Equatable {
        var createdAt: Double
        var deliveredAt: Double
    }

    private struct State {
        var record = AppRecord()
        /// Every event's first delivery, in the order they came: the live bench learns when
        /// the device's network came back only from its proxy's report at the end, and measures
        /// the recoveries from these then (the model engine folds them as it plays). Bounded by
        /// the workload's events.
        var deliveries: [Delivery] = []
        var outbox: Outbox<String>
        var connectionAttempts = 0
        /// The bench-clock second of the last REST answer noted in `connectionLossesNoticed`.
        var lastAnsweredSecond: Int?
    }

    let device: Int
    private let state: Mutex<State>
    private let outboxSignal = SignalSlot()

    init(device: Int, outboxLimit: Int) {
        self.device = device
        state = Mutex(State(outbox: Outbox(limit: outboxLimit)))
    }

    // MARK: Events

    /// The sequence to resume after: the highest the app has received.
    var lastReceivedSequence: UInt64 { state.withLock { $0.record.events.highest } }

    /// The server creates the device's next event at `time`: told before the server offers it,
    /// as the model engine tells its `AppLedger`, so the event's latency is measured from it.
    func eventCreated(at time: Double) {
        state.withLock { $0.record.events.create(at: time) }
    }

    /// Delivers an event to the app.
    func receive(sequence: UInt64, at time: Double) {
        state.withLock { state in
            guard let createdAt = state.record.events.receive(sequence, at: time) else { return }
            state.deliveries.append(Delivery(createdAt: createdAt, deliveredAt: time))
        }
    }

    // MARK: Outbox

    /// The app produces a message: it waits in the outbox until acknowledged.
    func produceMessage(createdAt: Double, payloadLength: Int) {
        state.withLock { state in
            _ = state.record.produceMessage(into: &state.outbox, at: createdAt) { [device] id in
                Workload.payload("message", device: device, number: id, length: payloadLength)
            }
        }
        outboxSignal.signal()
    }

    /// Starts a new connection: every unacknowledged message is due again on it.
    func beginConnection() -> Int {
        state.withLock { $0.outbox.beginConnection() }
    }

    /// What the writer of connection `generation` does next at `now` (bench seconds): send the
    /// oldest messages not yet sent on it (one at a time without batching, a batch with it), or
    /// wait (`Outbox.next`).
    func nextBatch(for generation: Int, batching: ClientSettings.Batching?, now: Double) -> SendStep {
        state.withLock { $0.outbox.next(for: generation, batching: batching, now: now) }
    }

    func acknowledge(_ id: UInt64) {
        state.withLock { $0.outbox.acknowledge(id) }
    }

    /// Wake-ups when a message is produced, for the current connection's writer.
    func outboxWakeUps() -> AsyncStream<Void> {
        outboxSignal.subscribe()
    }

    /// Sends every message due on connection `generation` through `write` (a batch at a time),
    /// then each new one as the app produces it (or its batch when it is due), until the next
    /// connection subscribes or the task is cancelled. The WebSocket and gRPC clients share it.
    func sendMessages(
        on generation: Int, batching: ClientSettings.Batching?, clock: BenchClock, write: ([Message]) async throws -> Void
    ) async throws {
        var wakeUps = outboxWakeUps().makeAsyncIterator()
        while !Task.isCancelled {
            switch nextBatch(for: generation, batching: batching, now: clock.now()) {
            case .send(let batch):
                try await write(batch)
                continue
            case .wait(let until):
                // The flush timer wakes the same wait a new message does; a child of this wait,
                // cancelled when the wait ends either way.
                let woken = await withDiscardingTaskGroup { group in
                    group.addTask { [outboxSignal] in
                        do {
                            try await clock.sleep(until: until)
                            outboxSignal.signal()
                        } catch {}
                    }
                    defer { group.cancelAll() }
                    return await wakeUps.next() != nil
                }
                guard woken else { return }
            case .idle:
                guard await wakeUps.next() != nil else { return }
            }
        }
    }

    // MARK: Counters

    func countFailedAttempt() { state.withLock { $0.record.failedAttempts += 1 } }
    func countCallRenewal() { state.withLock { $0.record.callRenewals += 1 } }
    func countReceiveBufferDrop() { state.withLock { $0.record.receiveBufferDrops += 1 } }
    func noteConnectionLossNoticed(at time: Double) { state.withLock { $0.record.connectionLossesNoticed.append(time) } }
    /// A REST request was answered: noted (the first of each second) as the app hearing from
    /// its connection, which ends any wait on a dead one.
    func noteRequestAnswered(at time: Double) {
        state.withLock { state in
            let second = Int(max(0, time).rounded(.down))
            guard state.lastAnsweredSecond != second else { return }
            state.lastAnsweredSecond = second
            state.record.connectionLossesNoticed.append(time)
        }
    }

    /// An attempt to connect (a WebSocket connect, a gRPC call, the first REST request since the
    /// start or a failure); the device's first is not bucketed.
    func noteConnectionAttempt(at time: Double) {
        state.withLock { state in
            state.connectionAttempts += 1
            guard state.connectionAttempts > 1 else { return }
            state.record.attemptsBySecond[Int(max(0, time).rounded(.down)), default: 0] += 1
        }
    }
    /// The receive buffer holds `events` events of `bytes` payload bytes now.
    func noteBuffered(events: Int, bytes: Int) {
        state.withLock { state in
            state.record.peakBufferedEvents = max(state.record.peakBufferedEvents, events)
            state.record.peakBufferedBytes = max(state.record.peakBufferedBytes, bytes)
        }
    }

    /// Whether every event created so far has been delivered or skipped for good (up to
    /// `skippedThrough`, where a naive client last subscribed from now) and every message
    /// acknowledged: the bench's drain waits for this, and not for what will never come.
    func isSettled(eventsCreated: Int, skippedThrough: UInt64 = 0) -> Bool {
        let created = UInt64(eventsCreated)
        return state.withLock { state in
            state.outbox.isEmpty && state.record.events.hasArrived(after: min(skippedThrough, created), through: created)
        }
    }

    var deliveredEventCount: Int { state.withLock { $0.record.events.arrived } }

    var record: AppRecord { state.withLock { $0.record } }

    var deliveries: [Delivery] { state.withLock { $0.deliveries } }

    func stop() { outboxSignal.close() }
}
