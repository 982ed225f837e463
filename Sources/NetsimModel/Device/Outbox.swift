/// The app's uplink messages not yet acknowledged, and the rule both engines send them by: the
/// `AppLedger` holds one, in the model engine's device and behind the live `DeviceLedger`'s lock.
///
/// - Bounded: past `limit` messages the oldest is dropped (the caller counts it as lost unless
///   it had arrived).
/// - A message stays until the server acknowledges it, and is sent once per connection (its
///   "generation", `beginConnection`): after a reconnect every unacknowledged one goes again,
///   oldest first, and the server ignores a repeat by its id.
/// - With `ClientSettings.Batching`, the unsent ones wait until a batch is full or its oldest
///   has waited `flushAfter`; without, each goes alone as soon as it can.
///
/// A value with time as an argument: the engines differ only in how they wait for `Step.wait`.
/// `Payload` is what a message carries besides its id and time: its text live, nothing in the
/// model (whose wire sizes are computed).
public struct Outbox<Payload: Sendable>: Sendable {
    public struct Message: Sendable {
        public var id: UInt64
        /// Seconds on the bench clock, when the app produced it.
        public var createdAt: Double
        public var payload: Payload
    }

    /// What a connection sends next.
    public enum Step: Sendable {
        /// Send these, oldest first (a batch, or one message without batching).
        case send([Message])
        /// Nothing is due before this time (the batch's flush).
        case wait(until: Double)
        /// Every message is sent on this connection, or there is none.
        case idle
    }

    private struct Entry: Sendable {
        var message: Message
        /// The last connection it was sent on (0: none).
        var sentInGeneration = 0
    }

    public let limit: Int
    /// Oldest first: ids only grow.
    private var entries: [Entry] = []
    /// The current connection's number; 0 before the first.
    public private(set) var generation = 0

    public init(limit: Int) {
        self.limit = limit
    }

    /// Every message acknowledged (or dropped).
    public var isEmpty: Bool { entries.isEmpty }

    public var count: Int { entries.count }

    /// Adds a message; returns the id of the oldest when that made the outbox overflow and it
    /// was dropped.
    public mutating func add(_ message: Message) -> UInt64? {
        entries.append(Entry(message: message))
        guard entries.count > limit else { return nil }
        return entries.removeFirst().message.id
    }

    /// A new connection: every unacknowledged message is due again on it. Returns its number.
    public mutating func beginConnection() -> Int {
        generation += 1
        return generation
    }

    /// What connection `generation` sends next at `now`: the oldest messages not yet sent on it
    /// (marked as sent on it), or wait for the batch's flush, or nothing.
    public mutating func next(for generation: Int, batching: ClientSettings.Batching?, now: Double) -> Step {
        guard let first = entries.firstIndex(where: { $0.sentInGeneration < generation }) else { return .idle }
        let count: Int
        if let batching {
            let pending = entries[first...].reduce(0) { $0 + ($1.sentInGeneration < generation ? 1 : 0) }
            switch batching.decide(pending: pending, oldestCreatedAt: entries[first].message.createdAt, now: now) {
            case .send(let size): count = size
            case .wait(let until): return .wait(until: until)
            case .idle: return .idle
            }
        } else {
            count = 1
        }
        var batch: [Message] = []
        batch.reserveCapacity(count)
        for index in first..<entries.endIndex where batch.count < count && entries[index].sentInGeneration < generation {
            entries[index].sentInGeneration = generation
            batch.append(entries[index].message)
        }
        return .send(batch)
    }

    /// The unacknowledged messages with ids from `first` through `last`, oldest first: what a
    /// live client writes for a frame the app's machine sent (`Frame.postRequest`,
    /// `Frame.messageBatch`), which names messages by id.
    public func messages(from first: UInt64, through last: UInt64) -> [Message] {
        entries.lazy.map(\.message).filter { (first...last).contains($0.id) }
    }

    /// The server acknowledged message `id`: it is done (a repeat or unknown id changes nothing).
    public mutating func acknowledge(_ id: UInt64) {
        entries.removeAll { $0.message.id == id }
    }
}

/// What a model engine's message carries besides its id and time: nothing (`WireFormat`
/// computes its size).
public struct NoPayload: Sendable, Equatable {}

extension Outbox.Message: Equatable where Payload: Equatable {}
extension Outbox.Step: Equatable where Payload: Equatable {}

extension AppRecord {
    /// The app produces its next message at `time`: counted, numbered from 1, put in `outbox`,
    /// and the message that pushed out of the full outbox counted as dropped. Returns its id.
    public mutating func produceMessage<Payload>(
        into outbox: inout Outbox<Payload>, at time: Double, payload: (UInt64) -> Payload
    ) -> UInt64 {
        messagesProduced += 1
        let id = UInt64(messagesProduced)
        if let dropped = outbox.add(Outbox.Message(id: id, createdAt: time, payload: payload(id))) {
            droppedMessageIDs.append(dropped)
        }
        return id
    }
}
