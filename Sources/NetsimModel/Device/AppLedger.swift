/// The app's side of one modelled device, whatever its transport: the events it received and
/// its outbox of uplink messages. The same rules as the live bench's `DeviceLedger`: the outbox
/// keeps each message until the server acknowledges it, is bounded (oldest dropped and counted),
/// and every unacknowledged message is sent once per connection ("generation").
public struct AppLedger: Sendable {
    private struct Pending: Sendable {
        var id: UInt64
        var sentInGeneration = 0
    }

    public private(set) var record = AppRecord()
    /// The sequence to resume after: the highest the app has received.
    public var highestSequence: UInt64 { record.events.highest }
    private var outbox: [Pending] = []
    private(set) var generation = 0
    let outboxLimit: Int

    init(outboxLimit: Int) {
        self.outboxLimit = outboxLimit
    }

    /// The server created its next event at `time`.
    mutating func eventCreated(at time: Double) {
        record.events.create(at: time)
    }

    /// Event `sequence` reached the app at `time`; returns when it was created, at its first
    /// arrival only.
    mutating func receive(sequence: UInt64, at time: Double) -> Double? {
        record.events.receive(sequence, at: time)
    }

    /// The app produces a message; returns its id.
    mutating func produceMessage() -> UInt64 {
        record.messagesProduced += 1
        outbox.append(Pending(id: UInt64(record.messagesProduced)))
        if outbox.count > outboxLimit {
            record.droppedMessageIDs.append(outbox.removeFirst().id)
        }
        return UInt64(record.messagesProduced)
    }

    /// A new connection: every unacknowledged message is due again on it.
    mutating func beginConnection() -> Int {
        generation += 1
        return generation
    }

    /// The oldest message not yet sent on connection `generation`, marked as sent on it.
    mutating func nextMessage(for generation: Int) -> UInt64? {
        guard let index = outbox.firstIndex(where: { $0.sentInGeneration < generation }) else { return nil }
        outbox[index].sentInGeneration = generation
        return outbox[index].id
    }

    mutating func acknowledge(_ id: UInt64) {
        outbox.removeAll { $0.id == id }
    }

    mutating func countFailedAttempt() { record.failedAttempts += 1 }
    mutating func countCallRenewal() { record.callRenewals += 1 }

    /// The app learnt, `seconds` after it died, that its connection was dead.
    mutating func recordDetection(after seconds: Double) { record.detections.append(seconds) }

    /// Every event created so far delivered, but those skipped for good (up to
    /// `skippedThrough`, where a naive client last asked from now), and every message
    /// acknowledged: the live bench's `DeviceLedger.isSettled`.
    func isSettled(skippedThrough: UInt64) -> Bool {
        guard outbox.isEmpty else { return false }
        guard skippedThrough > 0 else { return record.events.isComplete }
        let created = UInt64(record.events.created)
        return record.events.hasArrived(after: min(skippedThrough, created), through: created)
    }
}
