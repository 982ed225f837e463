import NIOCore

/// The admin API's open event streams (`GET /events`) and which one a new subscriber may push
/// out when `AdminLimits.maximumEventStreams` are open: a value over time given as an argument,
/// so its rule is tested without sockets.
///
/// A stream writes one event at a time, each once the socket took the one before, so a client
/// that does not read shows as a write that waits (the socket's buffers are full) and, while
/// events keep coming, as events its subscription dropped. A new subscriber is always
/// admitted: at the cap it takes the place of, in this order:
/// 1. the stream whose oldest write has waited longest, if it has waited at least one heartbeat
///    interval (a client that reads takes a write in milliseconds);
/// 2. else the stream that has dropped events in the most heartbeat intervals in a row, if
///    that is at least `droppingHeartbeatsToEvict` (it reads, but too slowly to follow);
/// 3. else the oldest stream. On a quiet phone a client that never reads looks like one that
///    does (a heartbeat's few bytes fit its socket's buffers for hours), so nothing tells the
///    two apart; refusing would let whoever opened the streams first keep everyone else out,
///    while a pushed-out client that reads (a browser's `EventSource`) simply connects again.
struct EventStreamRoster<ID: Hashable> {
    /// Heartbeat intervals in a row with drops after which a stream may be pushed out.
    static var droppingHeartbeatsToEvict: Int { 3 }

    private struct Stream {
        /// When each write the socket has not taken yet began, oldest first (a channel's writes
        /// complete in order).
        var pendingWrites: [NIODeadline] = []
        /// Whether the stream wrote a `dropped` notice since the last heartbeat.
        var droppedSinceHeartbeat = false
        /// Heartbeat intervals in a row in which it did.
        var droppingHeartbeats = 0
    }

    private var streams: [ID: Stream] = [:]
    /// The streams in the order they opened: of two equally bad, the older goes.
    private var order: [ID] = []

    let limit: Int
    let heartbeat: TimeAmount

    init(limit: Int, heartbeat: TimeAmount) {
        self.limit = limit
        self.heartbeat = heartbeat
    }

    var count: Int { streams.count }

    /// What a new subscriber is told.
    enum Admission: Equatable {
        case admitted
        /// Admitted in the place of this stream, which is to be closed.
        case admittedInPlaceOf(ID)
    }

    /// Admits `id` at `now`; if the roster is full, in the place of the stream the rule above
    /// picks. (A roster with a limit under 1 keeps one stream.)
    mutating func admit(_ id: ID, now: NIODeadline) -> Admission {
        guard streams.count >= max(limit, 1), let evicted = leastKeepingUp(now: now) ?? order.first else {
            add(id)
            return .admitted
        }
        remove(evicted)
        add(id)
        return .admittedInPlaceOf(evicted)
    }

    /// The stream rule 1 or 2 picks; nil if every stream keeps up.
    private func leastKeepingUp(now: NIODeadline) -> ID? {
        let stuck = order.compactMap { id in streams[id]?.pendingWrites.first.map { (id, $0) } }
            .filter { now - $0.1 >= heartbeat }
        if let longest = stuck.min(by: { $0.1 < $1.1 }) { return longest.0 }
        let dropping = order.compactMap { id in streams[id].map { (id, $0.droppingHeartbeats) } }
            .filter { $0.1 >= Self.droppingHeartbeatsToEvict }
        // `max` keeps the first of equals: the oldest stream.
        return dropping.max { $0.1 < $1.1 }?.0
    }

    private mutating func add(_ id: ID) {
        streams[id] = Stream()
        order.append(id)
    }

    mutating func remove(_ id: ID) {
        guard streams.removeValue(forKey: id) != nil else { return }
        order.removeAll { $0 == id }
    }

    /// A write to the stream (an event, a heartbeat) began at `now`.
    mutating func writeStarted(_ id: ID, now: NIODeadline) {
        streams[id]?.pendingWrites.append(now)
    }

    /// The socket took the stream's oldest write (or it failed: the stream is closing).
    mutating func writeFinished(_ id: ID) {
        guard streams[id]?.pendingWrites.isEmpty == false else { return }
        streams[id]?.pendingWrites.removeFirst()
    }

    /// The stream wrote a `dropped` notice: its subscription had missed events.
    mutating func dropped(_ id: ID) {
        streams[id]?.droppedSinceHeartbeat = true
    }

    /// A heartbeat interval of the stream ended.
    mutating func heartbeat(_ id: ID) {
        guard var stream = streams[id] else { return }
        stream.droppingHeartbeats = stream.droppedSinceHeartbeat ? stream.droppingHeartbeats + 1 : 0
        stream.droppedSinceHeartbeat = false
        streams[id] = stream
    }
}
