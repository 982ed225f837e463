import DequeModule
import NetsimCore

/// What a push transport's app (WebSocket, gRPC) holds between the network and itself, and its
/// pace (`ClientSettings.Consumer`), with time as an argument, for both engines: the model
/// engine schedules the app's next `finish` at the time an arrival or a finish returns; the live
/// bench's `EventInbox` holds one behind a lock and waits those times out on the bench clock.
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
public struct AppInbox: Sendable {
    enum Mode: Sendable, Equatable {
        case buffered(capacity: Int)
        case pull
    }

    public struct Event: Sendable, Equatable {
        public var sequence: UInt64
        /// The event's payload bytes (what the buffer's peak counts).
        public var payloadBytes: Int
        /// Its bytes under the transport's flow control (`FlowWindow`), handed back when read.
        public var windowBytes: Int
        /// The connection it came on: a pulled event left unread dies with its connection.
        public var connection: ConnectionID

        public init(sequence: UInt64, payloadBytes: Int, windowBytes: Int, connection: ConnectionID) {
            self.sequence = sequence
            self.payloadBytes = payloadBytes
            self.windowBytes = windowBytes
            self.connection = connection
        }
    }

    /// What an arrival did.
    public struct Arrival: Sendable, Equatable {
        /// The app was idle and took the event: it is done then.
        public var handlingUntil: Double?
        /// Pull: the event was read off the transport now (its window bytes go back).
        public var read: Event?
    }

    /// What the app took next when it finished one.
    public struct Next: Sendable, Equatable {
        public var event: Event
        public var handlingUntil: Double
        /// Pull: the event was read off the transport now.
        public var read: Bool
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
    public private(set) var peakEvents = 0
    public private(set) var peakBytes = 0
    public private(set) var drops = 0

    /// The inbox of `buffer` (`unbounded` capped at its safety limit) for an app that takes
    /// `handlingSeconds` per event.
    public init(_ buffer: ClientSettings.ReceiveBuffer, handlingSeconds: Double) {
        switch buffer {
        case .pull: mode = .pull
        case .bounded(let limit): mode = .buffered(capacity: limit)
        case .unbounded: mode = .buffered(capacity: ClientSettings.ReceiveBuffer.unboundedSafetyLimit)
        }
        self.handlingSeconds = handlingSeconds
    }

    /// The model engine's inbox for a push client's settings: nil without a consumer (each event
    /// is handled as it arrives, at once, and the engine keeps no inbox).
    init?(_ buffer: ClientSettings.ReceiveBuffer, consumer: ClientSettings.Consumer?) {
        guard let consumer else { return nil }
        self.init(buffer, handlingSeconds: 1 / consumer.eventsPerSecond)
    }

    var waitingCount: Int { waiting.count }

    /// `event` came off the network at `now`.
    public mutating func arrived(_ event: Event, at now: Double) -> Arrival {
        if handling == nil {
            take(event)
            return Arrival(handlingUntil: now + handlingSeconds, read: mode == .pull ? event : nil)
        }
        if case .buffered(let capacity) = mode, waitingCount >= capacity, popFirst() != nil {
            drops += 1
        }
        waiting.append(event)
        waitingPayloadBytes += event.payloadBytes
        if case .buffered = mode { note(events: waitingCount, bytes: waitingPayloadBytes) }
        return Arrival(handlingUntil: nil, read: nil)
    }

    /// The app finished the event it was handling, at `now`: returns it, and the next it takes
    /// (the buffer's oldest, or pulled, the next unread one), if any.
    public mutating func finish(at now: Double) -> (done: Event?, next: Next?) {
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
