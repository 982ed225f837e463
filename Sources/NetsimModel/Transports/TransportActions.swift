/// What a modelled client or server asks the engine to do. The transport state machines are
/// values that take inputs (a frame arrived, a timer fired, the connection died) and return
/// these; the engine carries them out on the device model. Nothing in a state machine reads a
/// clock: `now` is always an argument. To the gRPC app's policy (`GRPCApp`) its call is its
/// connection: its `.connect` and `.send(.open)` open a call and its `.closeConnection` cancels
/// it, which `GRPCClientModel` carries onto the channel's connections.
public enum TransportAction: Sendable, Equatable {
    /// Open a new TCP connection (its SYN crosses the radio), or a new QUIC connection on a new
    /// UDP flow (its handshake is the frames sent after it); the frames sent after it go on it.
    case connect
    /// Open the spare: another connection that starts HTTP/2 (the preface) beside the current
    /// one, as grpc-swift's load balancer's second subchannel does after an unclean close. Its
    /// frames reach the client as `spareReceived`; an earlier spare is closed first.
    case openSpareConnection
    /// Close the spare from this side (a FIN).
    case closeSpareConnection
    /// The spare becomes the current connection (the current one is closed or gone).
    case promoteSpareConnection
    /// Write a frame on the current connection.
    case send(Frame)
    /// Write a frame on the spare.
    case sendOnSpare(Frame)
    /// Close the current connection from this side (a FIN follows what was written; a QUIC
    /// connection is discarded silently, as its idle timeout does).
    case closeConnection
    case setTimer(TransportTimer, at: Double)
    case cancelTimer(TransportTimer)
}

/// The timers a client or server keeps. Setting one replaces its earlier deadline.
public enum TransportTimer: Int, Sendable, Hashable, CaseIterable {
    /// REST: the next poll.
    case poll
    /// REST: the request in flight gives up.
    case requestTimeout
    /// A reconnection attempt after backoff.
    case retry
    /// WebSocket auto-ping, gRPC keepalive, heartbeat: the next probe.
    case ping
    /// The probe in flight goes unanswered.
    case pingTimeout
    /// gRPC: the call reaches its deadline.
    case callDeadline
    /// gRPC: the spare's keepalive timer, and its ping going unanswered.
    case sparePing
    case sparePingTimeout
    /// QUIC: the connection's idle timeout (or, before the handshake completes, its handshake
    /// timeout) passes with nothing received: it is closed silently.
    case idle
    /// Batching: the batch of the oldest unsent message falls due (`Outbox.next`).
    case flush
    /// REST with a consumer: the app has handled the last poll's answer.
    case consumed
}

/// Why the engine tells a machine its connection is gone.
public enum ConnectionEnd: Sendable, Equatable {
    /// A RST arrived (the profile reset it, or a NAT in reset mode).
    case reset
    /// The peer closed it (its FIN arrived).
    case closedByPeer
    /// TCP gave up retransmitting unacknowledged data (Linux: `tcp_retries2` = 15).
    case timedOut
}
