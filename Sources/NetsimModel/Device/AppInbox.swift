import DequeModule
import NetsimCore

/// What a push transport's app (WebSocket, gRPC) holds between the network and itself, and its
/// pace, when it has a consumer (`ClientSettings.Consumer`): the live bench's `EventInbox` as a
/// value with time as an argument. The engine schedules the app's next `finish` at the time an
/// arrival or a finish returns.
///
/// - Buffered (`ClientSettings.ReceiveBuffer.bounded`, and `unbounded`, capped at its safety
///   limit as live): the network side hands each event over at once; an idle app takes it, a busy
///   one finds it in the buffer, which when full drops its oldest (counted). What the buffer holds
///   is noted after each arrival, so its peak is the buffer's own count, as live notes it.
/// - Pull: no buffer; the app handles an event before the network side reads the next. Events
///   that arrive meanwhile wait unread in the transport (the socket's receive buffer, HTTP/2's
///   stream window), not in the app; each read hands its bytes back to the sender's
///   `FlowWindow`, which is what holds the server back. The app holds one event: the one it is
///   handling, noted as live notes it.
///
/// An event reaches the app (the ledger's arrival) when the app has handled it: `1 / rate`
/// seconds after it took it.
struct AppInbox: Sendable {
    enum Mode: Sendable, Equatable {
        case buffered(capacity: Int)
        case pull
    }

    struct Event: Sendable, Equatable {
        var sequence: UInt64
        /// The event's payload bytes (what the buffer's peak counts, as live).
        var payloadBytes: Int
        /// Its bytes under the transport's flow control (`FlowWindow`), handed back when read.
        var windowBytes: Int
        /// The connection it came on: a pulled event left unread dies with its connection.
        var connection: ConnectionID
    }

    /// What an arrival did.
    struct Arrival: Sendable, Equatable {
        /// The app was idle and took the event: it is done then.
        var handlingUntil: Double?
        /// Pull: the event was read off the transport now (its window bytes go back).
        var read: Event?
        /// Buffered: the buffer dropped its oldest to make room.
        var dropped = false
    }

    /// What the app took next when it finished one.
    struct Next: Sendable, Equatable {
        var event: Event
        var handlingUntil: Double
        /// Pull: the event was read off the transport now.
        var read: Bool
    }

    let mode: Mode
    /// Seconds the app takes per event (`1 / eventsPerSecond`).
    let handlingSeconds: Double
    /// The event the app is handling, if any.
    private(set) var handling: Event?
    /// Buffered: the buffer, oldest first; pull: events unread in the transport.
    private var waiting = Deque<Event>()
    private var waitingPayloadBytes = 0
    /// The most events and payload bytes the app held at once (`AppRecord.peakBufferedEvents`).
    private(set) var peakEvents = 0
    private(set) var peakBytes = 0
    private(set) var drops = 0

    init(mode: Mode, consumer: ClientSettings.Consumer) {
        self.mode = mode
        handlingSeconds = 1 / consumer.eventsPerSecond
    }

    /// The app's inbox for a push client's settings: nil without a consumer (each event is handled
    /// as it arrives, at once).
    init?(_ buffer: ClientSettings.ReceiveBuffer, consumer: ClientSettings.Consumer?) {
        guard let consumer else { return nil }
        switch buffer {
        case .pull: self.init(mode: .pull, consumer: consumer)
        case .bounded(let limit): self.init(mode: .buffered(capacity: limit), consumer: consumer)
        case .unbounded: self.init(mode: .buffered(capacity: ClientSettings.ReceiveBuffer.unboundedSafetyLimit), consumer: consumer)
        }
    }

    var waitingCount: Int { waiting.count }

    /// `event` came off the network at `now`.
    mutating func arrived(_ event: Event, at now: Double) -> Arrival {
        if handling == nil {
            take(event)
            return Arrival(handlingUntil: now + handlingSeconds, read: mode == .pull ? event : nil)
        }
        var dropped = false
        if case .buffered(let capacity) = mode, waitingCount >= capacity, popFirst() != nil {
            drops += 1
            dropped = true
        }
        waiting.append(event)
        waitingPayloadBytes += event.payloadBytes
        if case .buffered = mode { note(events: waitingCount, bytes: waitingPayloadBytes) }
        return Arrival(handlingUntil: nil, read: nil, dropped: dropped)
    }

    /// The app finished the event it was handling, at `now`: returns it, and the next it takes
    /// (the buffer's oldest, or pulled, the next unread one), if any.
    mutating func finish(at now: Double) -> (done: Event?, next: Next?) {
        let done = handling
        handling = nil
        guard let event = popFirst() else { return (done, nil) }
        take(event)
        return (done, Next(event: event, handlingUntil: now + handlingSeconds, read: mode == .pull))
    }

    /// Pull: the events still unread on `connection`, gone with it (a new connection resumes
    /// after the last one read). A buffer keeps what it holds: those came off the network.
    mutating func connectionEnded(_ connection: ConnectionID) {
        guard mode == .pull, waitingCount > 0 else { return }
        waiting.removeAll { $0.connection == connection }
        waitingPayloadBytes = waiting.reduce(0) { $0 + $1.payloadBytes }
    }

    private mutating func take(_ event: Event) {
        handling = event
        if mode == .pull { note(events: 1, bytes: event.payloadBytes) }
    }

    private mutating func popFirst() -> Event? {
        guard let event = waiting.popFirst() else { return nil }
        waitingPayloadBytes -= event.payloadBytes
        return event
    }

    private mutating func note(events: Int, bytes: Int) {
        peakEvents = max(peakEvents, events)
        peakBytes = max(peakBytes, bytes)
    }
}
