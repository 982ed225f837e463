import NIOCore
import Synchronization

/// The admin connections open now, oldest first, for the cap on connections, and the event
/// streams apart (`EventStreamRoster`). Hummingbird's own cap (`MaximumAvailableConnections`)
/// stops accepting at the limit, which would let idle connections lock out a real request;
/// this one closes the oldest instead. (Their channels live on several event loops, hence the
/// lock.)
final class AdminConnections: Sendable {
    private struct State {
        var requests: [any Channel] = []
        var streams: EventStreamRoster<ObjectIdentifier>
        var streamChannels: [ObjectIdentifier: any Channel] = [:]
    }

    private let state: Mutex<State>
    private let limit: Int

    init(limits: AdminLimits) {
        limit = limits.maximumConnections
        state = Mutex(State(streams: EventStreamRoster(limit: limits.maximumEventStreams, heartbeat: limits.eventStreamHeartbeat)))
    }

    /// Adds a connection; at the limit, the oldest one is closed to make room.
    func add(_ channel: any Channel) {
        let evicted = state.withLock { state -> (any Channel)? in
            state.requests.append(channel)
            return state.requests.count > limit ? state.requests.removeFirst() : nil
        }
        evicted?.close(promise: nil)
    }

    /// Moves a connection whose request was answered with an event stream out of the cap on
    /// requests, into the streams, closing the stream it takes the place of if the streams are
    /// full (`EventStreamRoster`).
    func becomeStream(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let evicted = state.withLock { state -> (any Channel)? in
            let admission = state.streams.admit(id, now: .now())
            state.requests.removeAll { $0 === channel }
            state.streamChannels[id] = channel
            guard case .admittedInPlaceOf(let old) = admission else { return nil }
            return state.streamChannels.removeValue(forKey: old)
        }
        evicted?.close(promise: nil)
    }

    /// What happened to a stream, for its roster entry (`EventStreamRoster`).
    enum StreamNews {
        case writeStarted, writeFinished, dropped, heartbeat
    }

    func stream(_ channel: any Channel, _ news: StreamNews) {
        let id = ObjectIdentifier(channel)
        state.withLock { state in
            switch news {
            case .writeStarted: state.streams.writeStarted(id, now: .now())
            case .writeFinished: state.streams.writeFinished(id)
            case .dropped: state.streams.dropped(id)
            case .heartbeat: state.streams.heartbeat(id)
            }
        }
    }

    func remove(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { state in
            state.requests.removeAll { $0 === channel }
            // Only the channel's own entry: an identifier is reused once its channel is freed.
            if state.streamChannels[id] === channel {
                state.streamChannels[id] = nil
                state.streams.remove(id)
            }
        }
    }
}
