import Foundation
import NetsimCore
import Synchronization

/// Something the emulated phone did, as the admin API's `GET /events` streams it and
/// `NetsimProxy.events()` yields it. Times are emulated seconds from the start of the run, as
/// in the report.
public enum PhoneEvent: Sendable, Equatable {
    /// The radio moved from `previous` to `state` (nil without a radio model: `NONE` in JSON).
    case radioState(at: Double, state: RadioState?, previous: RadioState?)
    /// A timeline event, scripted or triggered: an outage, a handover, a `set`, a NAT expiry
    /// (the report's `events` entries).
    case timeline(DeviceEvent)
    /// Connectivity is back: the outage or handover gap that began at `startedAt` (with any that
    /// overlapped it) is over.
    case outageEnded(at: Double, startedAt: Double)
    /// Traffic found the radio asleep and woke it. Published when the proxy reads the bytes, so
    /// its `at` may lie ahead of the events before it (bytes an outage holds wake the radio
    /// when they get through).
    case radioWoken(WakeUp)
    case connectionOpened(at: Double, connection: ConnectionID)
    /// `finished` when both FINs were passed on (not reset, blackholed or cut at the end).
    case connectionClosed(at: Double, connection: ConnectionID, finished: Bool)
    /// The profile's timeline was paused (`POST /timeline/pause`).
    case timelinePaused(at: Double)
    /// The profile's timeline runs again, `pausedSeconds` behind its script.
    case timelineResumed(at: Double, pausedSeconds: Double)
    /// This subscriber fell behind and missed `count` events before the next one.
    case dropped(count: Int)

    /// The server-sent event's `event:` name.
    public var name: String {
        switch self {
        case .radioState: "radio-state"
        case .timeline(let event): event.kind.rawValue
        case .outageEnded: "outage-ended"
        case .radioWoken: "radio-woken"
        case .connectionOpened: "connection-opened"
        case .connectionClosed: "connection-closed"
        case .timelinePaused: "timeline-paused"
        case .timelineResumed: "timeline-resumed"
        case .dropped: "dropped"
        }
    }

    /// Whether this is a `dropped` notice: a subscriber that gets them does not keep up.
    package var isDroppedNotice: Bool {
        if case .dropped = self { return true }
        return false
    }

    /// The event as one line of JSON (the server-sent event's `data:`).
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data?
        switch self {
        case .radioState(let at, let state, let previous):
            data = try? encoder.encode(RadioStateChange(at: at, state: state.reportName, previous: previous.reportName))
        case .timeline(let event):
            data = try? encoder.encode(event)
        case .outageEnded(let at, let startedAt):
            data = try? encoder.encode(["at": at, "startedAt": startedAt])
        case .radioWoken(let wake):
            data = try? encoder.encode(wake)
        case .connectionOpened(let at, let connection):
            data = try? encoder.encode(ConnectionChange(at: at, connection: connection, finished: nil))
        case .connectionClosed(let at, let connection, let finished):
            data = try? encoder.encode(ConnectionChange(at: at, connection: connection, finished: finished))
        case .timelinePaused(let at):
            data = try? encoder.encode(["at": at])
        case .timelineResumed(let at, let pausedSeconds):
            data = try? encoder.encode(["at": at, "pausedSeconds": pausedSeconds])
        case .dropped(let count):
            data = try? encoder.encode(["count": count])
        }
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    private struct RadioStateChange: Encodable {
        var at: Double
        var state: String
        var previous: String
    }

    private struct ConnectionChange: Encodable {
        var at: Double
        var connection: ConnectionID
        var finished: Bool?
    }
}

/// A phone's event, with the phone's number (from 1); `dropped` notices, which are a
/// subscriber's own, have none.
public struct NumberedPhoneEvent: Sendable, Equatable {
    public var phone: Int?
    public var event: PhoneEvent

    public init(phone: Int?, event: PhoneEvent) {
        self.phone = phone
        self.event = event
    }

    /// The event's JSON (`PhoneEvent.json`) with its phone's number as `phone`, for a run of
    /// several phones.
    public var jsonWithPhone: String {
        let json = event.json
        guard let phone, json.hasPrefix("{") else { return json }
        return json == "{}" ? "{\"phone\":\(phone)}" : "{\"phone\":\(phone)," + json.dropFirst()
    }
}

/// Where one phone publishes what it does: its run's hub, under its number.
struct PhoneEventPublisher {
    let hub: PhoneEventHub
    let phone: Int

    func publish(_ event: PhoneEvent) {
        hub.publish(event, phone: phone)
    }
}

/// The subscribers to a proxy's events. Each has a bounded buffer: one that falls behind
/// misses events rather than growing the process, and is told how many (`PhoneEvent.dropped`)
/// before the next one it gets. Published to from the phones' one event loop only, so every
/// subscriber sees the events in the order they happened. A subscriber follows one phone or
/// all of them.
final class PhoneEventHub: Sendable {
    /// Events a subscriber may have waiting before later ones are dropped.
    static let subscriberBufferLimit = 256

    private final class Subscriber: Sendable {
        let continuation: AsyncStream<NumberedPhoneEvent>.Continuation
        /// The phone followed; nil for all of them.
        let phone: Int?
        /// Events missed since the last `dropped` notice got through.
        let missed = Atomic(0)

        init(_ continuation: AsyncStream<NumberedPhoneEvent>.Continuation, phone: Int?) {
            self.continuation = continuation
            self.phone = phone
        }
    }

    /// The subscribers by id; nil once the proxy has stopped.
    private let subscribers = Mutex<(next: Int, all: [Int: Subscriber]?)>((0, [:]))

    /// A new subscription to `phone`'s events (all phones' if nil), from now on. It ends when
    /// the consumer stops iterating (its entry is removed then) or when the proxy stops (at
    /// once if it has).
    func subscribe(phone: Int?) -> AsyncStream<NumberedPhoneEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: NumberedPhoneEvent.self, bufferingPolicy: .bufferingOldest(Self.subscriberBufferLimit))
        let subscriber = Subscriber(continuation, phone: phone)
        let id = subscribers.withLock { state -> Int? in
            guard state.all != nil else { return nil }
            state.next += 1
            state.all?[state.next] = subscriber
            return state.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.all?.removeValue(forKey: id) }
        }
        return stream
    }

    var subscriberCount: Int { subscribers.withLock { $0.all?.count ?? 0 } }

    func publish(_ event: PhoneEvent, phone: Int) {
        // Yields outside the lock: a yield can end a stream, whose termination takes the lock.
        let current = subscribers.withLock { Array(($0.all ?? [:]).values) }
        for subscriber in current where subscriber.phone == nil || subscriber.phone == phone {
            let missed = subscriber.missed.load(ordering: .relaxed)
            if missed > 0 {
                let notice = NumberedPhoneEvent(phone: nil, event: .dropped(count: missed))
                guard case .enqueued = subscriber.continuation.yield(notice) else {
                    subscriber.missed.add(1, ordering: .relaxed)
                    continue
                }
                subscriber.missed.store(0, ordering: .relaxed)
            }
            if case .dropped = subscriber.continuation.yield(NumberedPhoneEvent(phone: phone, event: event)) {
                subscriber.missed.add(1, ordering: .relaxed)
            }
        }
    }

    /// Ends every subscription (the proxy stopped).
    func finishAll() {
        let current = subscribers.withLock { state in
            defer { state.all = nil }
            return Array((state.all ?? [:]).values)
        }
        for subscriber in current { subscriber.continuation.finish() }
    }
}
