/// The app's side of one modelled device, whatever its transport: the events it received and
/// its outbox of uplink messages. The same rules as the live bench's `DeviceLedger`: the outbox
/// keeps each message until the server acknowledges it, is bounded (oldest dropped and counted),
/// and every unacknowledged message is sent once per connection ("generation").
public struct AppLedger: Sendable {
    public struct Delivery: Sendable, Equatable {
        public var createdAt: Double
        public var deliveredAt: Double
    }

    /// What the app saw over the run.
    public struct Record: Sendable, Equatable {
        /// When each event (sequence - 1) reached the app, and when the server created it.
        public var deliveries: [Delivery?] = []
        public var duplicateEvents = 0
        public var outOfOrderEvents = 0
        public var messagesProduced = 0
        /// Messages the full outbox dropped (the oldest first): lost unless they had arrived.
        public var droppedMessageIDs: [UInt64] = []
        public var messagesDroppedFromOutbox: Int { droppedMessageIDs.count }
        /// Connects, polls, requests or calls that failed.
        public var failedAttempts = 0
        /// gRPC calls ended by their deadline and opened again.
        public var callRenewals = 0
        /// Times the app learnt that its connection was dead, and how long after its death.
        public var detections: [Double] = []
    }

    private struct Pending: Sendable {
        var id: UInt64
        var sentInGeneration = 0
    }

    public private(set) var record = Record()
    /// The sequence to resume after: the highest the app has received.
    public private(set) var highestSequence: UInt64 = 0
    private var outbox: [Pending] = []
    private(set) var generation = 0
    let outboxLimit: Int

    init(outboxLimit: Int) {
        self.outboxLimit = outboxLimit
    }

    mutating func receive(sequence: UInt64, createdAt: Double, at time: Double) {
        let index = Int(clamping: sequence) - 1
        guard index >= 0 else { return }
        if index >= record.deliveries.count {
            record.deliveries.append(contentsOf: repeatElement(nil, count: index + 1 - record.deliveries.count))
        }
        guard record.deliveries[index] == nil else {
            record.duplicateEvents += 1
            return
        }
        if sequence < highestSequence { record.outOfOrderEvents += 1 }
        record.deliveries[index] = Delivery(createdAt: createdAt, deliveredAt: time)
        highestSequence = max(highestSequence, sequence)
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

    /// Every event created so far delivered and every message acknowledged.
    func isSettled(eventsCreated: Int) -> Bool {
        outbox.isEmpty && record.deliveries.count >= eventsCreated
            && record.deliveries.prefix(eventsCreated).allSatisfy { $0 != nil }
    }
}
