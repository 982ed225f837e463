import NetsimModel
import Synchronization

/// The app's side of one device, whatever its transport: the model engine's `AppLedger` (the
/// events it received, for delivery accounting and resumption, and its `Outbox` of uplink
/// messages) behind a lock, shared by the device's client, the workload that produces its
/// messages and the server that creates its events. It wakes the app's driver when a message is
/// produced. The outbox holds ids and times, as the model's does; a message's text is made when
/// it is written (`Workload.payload`).
final class DeviceLedger: Sendable {
    /// An uplink message as a live client writes it: the outbox's message with its text.
    struct Message: Sendable, Equatable {
        var id: UInt64
        var createdAt: Double
        var payload: String
    }

    /// An event's first delivery to the app, and when the server created it.
    struct Delivery: Sendable, Equatable {
        var createdAt: Double
        var deliveredAt: Double
    }

    private struct State {
        var app: AppLedger
        /// Every event's first delivery, in the order they came: the live bench learns when
        /// the device's network came back only from its proxy's report at the end, and measures
        /// the recoveries from these then (the model engine folds them as it plays). Bounded by
        /// the workload's events.
        var deliveries: [Delivery] = []
        /// The bench-clock second of the last REST answer noted in `connectionLossesNoticed`.
        var lastAnsweredSecond: Int?
    }

    let device: Int
    /// The length of each uplink message's text.
    let messagePayloadBytes: Int
    private let state: Mutex<State>
    private let outboxSignal = SignalSlot()

    init(device: Int, outboxLimit: Int, messagePayloadBytes: Int = Workload().messagePayloadBytes) {
        self.device = device
        self.messagePayloadBytes = messagePayloadBytes
        state = Mutex(State(app: AppLedger(outboxLimit: outboxLimit)))
    }

    /// Runs `body` on the app's ledger under the lock: the way a live `AppDriver` hands the
    /// ledger to the app's machine, as the model engine hands it its own.
    func withApp<Result: Sendable>(_ body: (inout AppLedger) -> Result) -> Result {
        state.withLock { body(&$0.app) }
    }

    // MARK: Events

    /// The server creates the device's next event at `time`: told before the server offers it,
    /// as the model engine tells its `AppLedger`, so the event's latency is measured from it.
    func eventCreated(at time: Double) {
        state.withLock { $0.app.eventCreated(at: time) }
    }

    /// Delivers an event to the app.
    func receive(sequence: UInt64, at time: Double) {
        state.withLock { state in
            guard let createdAt = state.app.receive(sequence: sequence, at: time) else { return }
            state.deliveries.append(Delivery(createdAt: createdAt, deliveredAt: time))
        }
    }

    /// Event `sequence` came off the network into the app's receive buffer (`EventInbox`): a
    /// new connection resumes after it (`AppLedger.readOffNetwork`).
    func readOffNetwork(_ sequence: UInt64) {
        state.withLock { $0.app.readOffNetwork(sequence) }
    }

    // MARK: Outbox

    /// The app produces a message: it waits in the outbox until acknowledged.
    func produceMessage(createdAt: Double) {
        _ = state.withLock { $0.app.produceMessage(at: createdAt) }
        outboxSignal.signal()
    }

    /// The outbox's message `message` with its text.
    func message(_ message: Outbox<NoPayload>.Message) -> Message {
        Message(
            id: message.id, createdAt: message.createdAt,
            payload: Workload.payload("message", device: device, number: message.id, length: messagePayloadBytes))
    }

    func acknowledge(_ id: UInt64) {
        state.withLock { $0.app.acknowledge(id) }
    }

    /// Wake-ups when a message is produced, for the app's driver (`AppDriver`).
    func outboxWakeUps() -> AsyncStream<Void> {
        outboxSignal.subscribe()
    }

    // MARK: Counters

    func noteConnectionLossNoticed(at time: Double) { state.withLock { $0.app.noteConnectionLossNoticed(at: time) } }
    /// A REST request was answered: noted (the first of each second) as the app hearing from
    /// its connection, which ends any wait on a dead one.
    func noteRequestAnswered(at time: Double) {
        state.withLock { state in
            let second = Int(max(0, time).rounded(.down))
            guard state.lastAnsweredSecond != second else { return }
            state.lastAnsweredSecond = second
            state.app.noteConnectionLossNoticed(at: time)
        }
    }

    /// A REST poll's answer holds `events` events of `bytes` payload bytes now.
    func noteBuffered(events: Int, bytes: Int) {
        state.withLock { $0.app.noteBuffered(events: events, bytes: bytes) }
    }

    /// A push client's `EventInbox` so far: its peaks and the events its full buffer dropped.
    func noteInbox(peakEvents: Int, peakBytes: Int, drops: Int) {
        state.withLock { $0.app.noteInbox(peakEvents: peakEvents, peakBytes: peakBytes, drops: drops) }
    }

    /// Whether every event created so far has been delivered or skipped for good (up to
    /// `skippedThrough`, where a naive client last subscribed from now) and every message
    /// acknowledged: the bench's drain waits for this, and not for what will never come.
    func isSettled(eventsCreated: Int, skippedThrough: UInt64 = 0) -> Bool {
        let created = UInt64(eventsCreated)
        return state.withLock { state in
            state.app.outboxIsEmpty && state.app.record.events.hasArrived(after: min(skippedThrough, created), through: created)
        }
    }

    var deliveredEventCount: Int { state.withLock { $0.app.record.events.arrived } }

    var record: AppRecord { state.withLock { $0.app.record } }

    var deliveries: [Delivery] { state.withLock { $0.deliveries } }

    func stop() { outboxSignal.close() }
}
