/// The app's side of one device, whatever its transport: the events it received and
/// its `Outbox` of uplink messages. The live bench's `DeviceLedger` holds one behind a lock, so
/// both engines keep them by the same code.
public struct AppLedger: Sendable {
    public private(set) var record = AppRecord()
    /// The sequence to resume after: the highest the app has received, or that came off the
    /// network into its receive buffer (`AppInbox`), whichever is higher.
    public var highestSequence: UInt64 { max(record.events.highest, readThrough) }
    /// The highest event that came off the network into a receive buffer (0: none did).
    private var readThrough: UInt64 = 0
    /// The live bench's connection attempts so far (`noteConnectionAttempt`).
    private var connectionAttempts = 0
    /// The model's messages carry no text: `WireFormat` computes their sizes.
    private(set) var outbox: Outbox<NoPayload>

    public init(outboxLimit: Int) {
        outbox = Outbox(limit: outboxLimit)
    }

    /// The server created its next event at `time`.
    public mutating func eventCreated(at time: Double) {
        record.events.create(at: time)
    }

    /// Event `sequence` reached the app at `time`; returns when it was created, at its first
    /// arrival only.
    @discardableResult
    public mutating func receive(sequence: UInt64, at time: Double) -> Double? {
        record.events.receive(sequence, at: time)
    }

    /// Event `sequence` came off the network into the app's receive buffer: a new connection
    /// resumes after it, even while it waits there (the live `EventInbox` tells it too).
    public mutating func readOffNetwork(_ sequence: UInt64) {
        readThrough = max(readThrough, sequence)
    }

    /// The app held `events` events of `bytes` payload bytes between the network and itself
    /// (a REST poll's answer it works through): the peaks take note.
    public mutating func noteBuffered(events: Int, bytes: Int) {
        record.peakBufferedEvents = max(record.peakBufferedEvents, events)
        record.peakBufferedBytes = max(record.peakBufferedBytes, bytes)
    }

    /// The app's `AppInbox` figures so far: its peaks and the events its full buffer dropped.
    public mutating func noteInbox(peakEvents: Int, peakBytes: Int, drops: Int) {
        noteBuffered(events: peakEvents, bytes: peakBytes)
        // The live inbox's figures reach the ledger outside its lock, so an older count may come
        // after a newer one.
        record.receiveBufferDrops = max(record.receiveBufferDrops, drops)
    }

    /// The app produces a message at `time`; returns its id.
    @discardableResult
    public mutating func produceMessage(at time: Double) -> UInt64 {
        record.produceMessage(into: &outbox, at: time) { _ in NoPayload() }
    }

    /// A new connection: every unacknowledged message is due again on it.
    public mutating func beginConnection() -> Int {
        outbox.beginConnection()
    }

    /// The messages connection `generation` sends at `now` (`Outbox.next`, marked as sent on
    /// it): a batch, or one message without batching. Nil when none is due; when a batch will
    /// be, the client's flush timer is armed for then (on the bench clock, live).
    public mutating func dueMessages(
        for generation: Int, batching: ClientSettings.Batching?, now: Double, into actions: inout [TransportAction]
    ) -> [Outbox<NoPayload>.Message]? {
        switch nextMessages(for: generation, batching: batching, now: now) {
        case .send(let batch):
            return batch
        case .wait(let until):
            actions.append(.setTimer(.flush, at: until))
            return nil
        case .idle:
            return nil
        }
    }

    public mutating func acknowledge(_ id: UInt64) {
        outbox.acknowledge(id)
    }

    public mutating func countFailedAttempt() { record.failedAttempts += 1 }
    public mutating func countCallRenewal() { record.callRenewals += 1 }

    /// What connection `generation` sends next at `now` (`Outbox.next`).
    mutating func nextMessages(for generation: Int, batching: ClientSettings.Batching?, now: Double) -> Outbox<NoPayload>.Step {
        outbox.next(for: generation, batching: batching, now: now)
    }

    /// The unacknowledged messages from `first` through `last` (`Outbox.messages`).
    public func messages(from first: UInt64, through last: UInt64) -> [Outbox<NoPayload>.Message] {
        outbox.messages(from: first, through: last)
    }

    /// Every message acknowledged or dropped.
    public var outboxIsEmpty: Bool { outbox.isEmpty }

    // MARK: What only the live bench measures (`AppRecord`)

    /// The app learnt at `time` that its connection was gone (or, for REST, heard from it).
    public mutating func noteConnectionLossNoticed(at time: Double) { record.connectionLossesNoticed.append(time) }

    /// An attempt to connect at `time` (bench seconds), counted in its second; the device's
    /// first is not (the bench starts its whole fleet at once).
    public mutating func noteConnectionAttempt(at time: Double) {
        connectionAttempts += 1
        guard connectionAttempts > 1 else { return }
        record.attemptsBySecond[Int(max(0, time).rounded(.down)), default: 0] += 1
    }

    /// The app learnt, `seconds` after it died, that its connection was dead.
    mutating func recordDetection(after seconds: Double) { record.detections.append(seconds) }

    /// Every event created so far delivered, but those skipped for good (up to
    /// `skippedThrough`, where a naive client last asked from now), and every message
    /// acknowledged: the live bench's `DeviceLedger.isSettled`.
    public func isSettled(skippedThrough: UInt64) -> Bool {
        guard outbox.isEmpty else { return false }
        guard skippedThrough > 0 else { return record.events.isComplete }
        let created = UInt64(record.events.created)
        return record.events.hasArrived(after: min(skippedThrough, created), through: created)
    }
}
