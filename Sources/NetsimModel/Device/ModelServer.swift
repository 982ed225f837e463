import NetsimCore

/// What the server of one device saw over a modelled run.
public struct ServerRecord: Sendable, Equatable {
    public fileprivate(set) var eventsCreated = 0
    /// The device's latest event when a client last asked from now
    /// (`ClientSettings.Reconnect.fromNow`): every event up to it that the app had not received
    /// then is skipped for good, since no later request asks for it again.
    public fileprivate(set) var skippedThrough: UInt64 = 0
    /// The app's uplink messages as they reached the server.
    public fileprivate(set) var messages = ArrivalTally()
    /// GOAWAY ENHANCE_YOUR_CALM "too_many_pings" sent.
    public var tooManyPingsGoAways = 0
    /// Client pings the server received (its load: the tuner's pings per second per client).
    public var pingsReceived = 0
    /// QUIC: the times a connection's packets began to arrive from a new address of the phone
    /// (a handover, or a NAT that had forgotten the mapping) and the connection moved there.
    public var migrations = 0
    /// The most events the server had created for the device and not yet handed to its
    /// connection (pushed, or answered to a poll), as the live `EventStore` counts its queue.
    /// Watched only with a consumer (`DeviceSimulation`); zero otherwise.
    public fileprivate(set) var peakQueuedEvents = 0
}

/// What the modelled server asks the engine to do.
enum ServerAction: Sendable, Equatable {
    case send(Frame, on: ConnectionID)
    case close(ConnectionID)
    case setTimer(ServerTimer, at: Double)
    case cancelTimer(ServerTimer)
}

enum ServerTimer: Sendable, Hashable {
    /// WebSocket auto-ping, or gRPC server keepalive, on a connection.
    case ping(ConnectionID)
    case pingTimeout(ConnectionID)
    /// QUIC: the connection's idle timeout.
    case idle(ConnectionID)
}

/// The server side of one device, for each transport as the live bench's servers behave:
/// REST answers polls (at most `batchLimit` events) and acknowledges POSTs; WebSocket and gRPC
/// push the events after the session's resume point and every new one, acknowledge each
/// message (a batch's with one answer), and a newer session for the device takes over the push. The WebSocket server
/// auto-pings like the client; the gRPC server polices client pings and sends its own
/// keepalive per its `GRPCServerPolicy`.
struct ModelServer: Sendable {
    enum Kind: Sendable {
        case rest(batchLimit: Int)
        /// Nil: the server does not ping.
        case ws(pingInterval: Double?)
        case grpc(GRPCServerPolicy)
        /// A plain connection that answers heartbeats (TCP keepalive probes are answered by
        /// the kernel the same way).
        case heartbeat
        /// An HTTP/3 server that pushes like the WebSocket one; it forgets a connection that
        /// received nothing for the idle timeout (RFC 9000 section 10.1), silently.
        case quic(idleTimeout: Double)
    }

    private struct Session: Sendable {
        var connection: ConnectionID
        var pushedThrough: UInt64
    }

    /// Per-connection state of the WebSocket and gRPC servers.
    private struct ConnectionState: Sendable {
        var awaitingPong = false
        var callOpen = false
        var policing = PingPolicing()
        /// QUIC: whether an ack-eliciting packet went out since the last one received.
        var sentSinceReceipt = false
    }

    let kind: Kind
    private(set) var record = ServerRecord()
    private var session: Session?
    private var connections = ConnectionTable<ConnectionState>()

    init(kind: Kind) {
        self.kind = kind
    }

    var eventsCreated: Int { record.eventsCreated }

    /// The workload creates the device's next event.
    mutating func createEvent(now: Double, into actions: inout [ServerAction]) {
        record.eventsCreated += 1
        guard let session else { return }
        push(session, now: now, into: &actions)
    }

    /// The server's queue for the device holds `events` events now (the peak takes note).
    mutating func noteQueued(_ events: Int) {
        record.peakQueuedEvents = max(record.peakQueuedEvents, events)
    }

    /// The app produced its next message at `time`: the server's record times its arrival.
    mutating func messageProduced(at time: Double) {
        record.messages.create(at: time)
    }

    /// Message `id` reached the server at `time`; returns when it was produced, at its first
    /// arrival only.
    mutating func messageArrived(_ id: UInt64, at time: Double) -> Double? {
        record.messages.receive(id, at: time)
    }

    /// Like the clients (`TransportClientModel`), the server appends what it asks for to
    /// `actions`, in order.
    mutating func received(_ frame: Frame, on connection: ConnectionID, now: Double, into actions: inout [ServerAction]) {
        readSomething(on: connection, now: now, into: &actions)
        switch frame {
        case .pollRequest(let requested):
            guard case .rest(let limit) = kind else { return }
            let after = start(after: requested)
            let first = after + 1
            let last = min(after + UInt64(limit), UInt64(eventsCreated))
            let latest = requested == ClientSettings.Reconnect.fromNow ? after : nil
            actions.append(.send(.pollResponse(first: first, last: last, latest: latest), on: connection))
        case .postRequest(let id):
            actions.append(.send(.postResponse(ack: id), on: connection))
        case .clientHello(let resumed):
            wrote(.serverHello(resumed: resumed), on: connection, now: now, into: &actions)
        case .open(let after, let newConnection):
            if kind.takesOverSessions, let old = session, old.connection != connection {
                if case .ws = kind { actions.append(.send(.close, on: old.connection)) }
                actions.append(.close(old.connection))
                forget(old.connection, into: &actions)
            }
            connections[connection, default: ConnectionState()].callOpen = true
            wrote(.accepted(newConnection: newConnection), on: connection, now: now, into: &actions)
            if case .ws(let interval?) = kind {
                actions.append(.setTimer(.ping(connection), at: now + interval))
            }
            let opened = Session(connection: connection, pushedThrough: start(after: after))
            session = opened
            push(opened, now: now, into: &actions)
        case .message(let id):
            wrote(.ack(id), on: connection, now: now, into: &actions)
        case .messageBatch(let first, let last):
            wrote(.acks(first: first, last: last), on: connection, now: now, into: &actions)
        case .ping(fromClient: true):
            record.pingsReceived += 1
            // QUIC's transport answers a PING with an ACK; the server has nothing to add.
            if case .quic = kind { return }
            if case .grpc(let policy) = kind {
                let callOpen = connections[connection]?.callOpen ?? false
                if connections[connection, default: ConnectionState()].policing.receivedPing(at: now, callOpen: callOpen, policy: policy) {
                    record.tooManyPingsGoAways += 1
                    actions.append(.send(.goAway(tooManyPings: true), on: connection))
                    actions.append(.close(connection))
                    forget(connection, into: &actions)
                    return
                }
            }
            actions.append(.send(.pong(toClient: true), on: connection))
        case .pong(toClient: false):
            connections[connection]?.awaitingPong = false
            actions.append(.cancelTimer(.pingTimeout(connection)))
            if case .grpc(let policy) = kind, let time = policy.keepaliveTime {
                actions.append(.setTimer(.ping(connection), at: now + time))
            }
        case .preface:
            actions.append(.send(.prefaceAccepted, on: connection))
        case .heartbeat:
            record.pingsReceived += 1
            actions.append(.send(.heartbeatAck, on: connection))
        case .callCancelled:
            connections[connection]?.callOpen = false
            if session?.connection == connection { session = nil }
        case .close, .goAway:
            actions.append(.close(connection))
            forget(connection, into: &actions)
        default:
            break
        }
    }

    mutating func timerFired(_ timer: ServerTimer, now: Double, into actions: inout [ServerAction]) {
        switch (timer, kind) {
        case (.ping(let connection), .ws(let interval?)):
            guard let state = connections[connection] else { return }
            if state.awaitingPong {
                actions.append(.send(.close, on: connection))
                actions.append(.close(connection))
                forget(connection, into: &actions)
                return
            }
            connections[connection]?.awaitingPong = true
            actions.append(.send(.ping(fromClient: false), on: connection))
            actions.append(.setTimer(.ping(connection), at: now + interval))
        case (.ping(let connection), .grpc(let policy)):
            guard connections[connection] != nil else { return }
            connections[connection]?.awaitingPong = true
            actions.append(.send(.ping(fromClient: false), on: connection))
            actions.append(.setTimer(.pingTimeout(connection), at: now + policy.keepaliveTimeout))
        case (.idle(let connection), .quic):
            guard connections[connection] != nil else { return }
            actions.append(.close(connection))
            forget(connection, into: &actions)
        case (.pingTimeout(let connection), .grpc):
            guard connections[connection]?.awaitingPong == true else { return }
            actions.append(.send(.goAway(tooManyPings: false), on: connection))
            actions.append(.close(connection))
            forget(connection, into: &actions)
        default:
            break
        }
    }

    /// The connection is gone (reset, closed by the client, or TCP gave up).
    mutating func connectionEnded(_ connection: ConnectionID, into actions: inout [ServerAction]) {
        forget(connection, into: &actions)
    }

    /// gRPC's server keepalive waits `keepaliveTime` after the last read; a QUIC server's idle
    /// timer restarts.
    private mutating func readSomething(on connection: ConnectionID, now: Double, into actions: inout [ServerAction]) {
        if case .quic(let idleTimeout) = kind {
            connections[connection, default: ConnectionState()].sentSinceReceipt = false
            actions.append(.setTimer(.idle(connection), at: now + idleTimeout))
            return
        }
        guard case .grpc(let policy) = kind, let time = policy.keepaliveTime else { return }
        connections[connection, default: ConnectionState()].awaitingPong = false
        actions.append(.cancelTimer(.pingTimeout(connection)))
        actions.append(.setTimer(.ping(connection), at: now + time))
    }

    /// Where a poll or a subscription after `after` starts: `after` itself, or for "from now"
    /// the latest event, recorded as skipped through (the live bench's `EventStore.start`).
    private mutating func start(after: UInt64) -> UInt64 {
        guard after == ClientSettings.Reconnect.fromNow else { return after }
        record.skippedThrough = max(record.skippedThrough, UInt64(eventsCreated))
        return UInt64(eventsCreated)
    }

    private mutating func push(_ session: Session, now: Double, into actions: inout [ServerAction]) {
        var through = session.pushedThrough
        while through < UInt64(eventsCreated) {
            through += 1
            wrote(.event(through), on: session.connection, now: now, into: &actions)
        }
        self.session?.pushedThrough = through
    }

    /// Writes a frame the peer answers (HEADERS or DATA, a QUIC ack-eliciting packet): the
    /// gRPC server's ping policing and the QUIC server's idle timer (restarted by the first
    /// such packet since the last one received) take note.
    private mutating func wrote(_ frame: Frame, on connection: ConnectionID, now: Double, into actions: inout [ServerAction]) {
        connections[connection]?.policing.wroteHeadersOrData()
        actions.append(.send(frame, on: connection))
        if case .quic(let idleTimeout) = kind, connections[connection]?.sentSinceReceipt == false {
            connections[connection]?.sentSinceReceipt = true
            actions.append(.setTimer(.idle(connection), at: now + idleTimeout))
        }
    }

    /// QUIC: the client's packets now come from a new address (a handover, or a NAT that
    /// forgot the mapping): the server validates the new path and sends there from now on.
    mutating func migrated(_ connection: ConnectionID, now: Double, into actions: inout [ServerAction]) {
        guard connections[connection] != nil else { return }
        record.migrations += 1
        wrote(.pathChallenge, on: connection, now: now, into: &actions)
    }

    private mutating func forget(_ connection: ConnectionID, into actions: inout [ServerAction]) {
        connections[connection] = nil
        if session?.connection == connection { session = nil }
        actions.append(.cancelTimer(.ping(connection)))
        actions.append(.cancelTimer(.pingTimeout(connection)))
        if case .quic = kind { actions.append(.cancelTimer(.idle(connection))) }
    }
}

extension ModelServer.Kind {
    /// Whether a device's new session closes its old one: the WebSocket server closes the old
    /// connection, and a QUIC server drops it (its connection would only idle out).
    var takesOverSessions: Bool {
        switch self {
        case .ws, .quic: true
        case .rest, .grpc, .heartbeat: false
        }
    }
}
