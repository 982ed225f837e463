/// What one write of a transport carries, as the model sees it: its meaning (which the peer's
/// state machine acts on) and, through `WireFormat`, its size as TCP payload.
public enum Frame: Sendable, Equatable {
    // REST polling (HTTP/1.1 on one kept-alive connection).
    /// `GET /events?device=D&after=SEQ`, or `after=now` for `ClientSettings.Reconnect.fromNow`.
    case pollRequest(after: UInt64)
    /// The answer: the device's events `first...last` (empty when `first > last`), and for a
    /// poll from now the device's latest event, where the naive client's next poll starts.
    case pollResponse(first: UInt64, last: UInt64, latest: UInt64?)
    /// `POST /messages?device=D` with one uplink message.
    case postRequest(message: UInt64)
    /// Its answer: the acknowledgement.
    case postResponse(ack: UInt64)

    // Push transports (WebSocket, gRPC bidi over HTTP/2).
    /// Opens a session resuming after `after` (`ClientSettings.Reconnect.fromNow`: from now):
    /// the WebSocket upgrade request, or gRPC's connection preface, SETTINGS, and the call's
    /// HEADERS and Subscribe message.
    case open(after: UInt64, newConnection: Bool)
    /// The server's side of the opening: the 101 response, or SETTINGS, its ACK and the
    /// response HEADERS.
    case accepted(newConnection: Bool)
    case event(UInt64)
    case message(UInt64)
    case ack(UInt64)
    /// A liveness probe (WebSocket ping, HTTP/2 PING) and its answer, sent by `client` or by
    /// the server.
    case ping(fromClient: Bool)
    case pong(toClient: Bool)
    /// HTTP/2 GOAWAY; `tooManyPings` is ENHANCE_YOUR_CALM with "too_many_pings".
    case goAway(tooManyPings: Bool)
    /// An HTTP/2 connection opened with no call on it: the client's preface, SETTINGS and
    /// SETTINGS ACK, answered by the server's SETTINGS and ACK.
    case preface
    case prefaceAccepted
    /// A gRPC call ended by its deadline: the client's RST_STREAM.
    case callCancelled
    /// A WebSocket close frame.
    case close
    // Batching (`ClientSettings.Batching`) on REST and WebSocket: one JSON array of the
    // messages `first...last` (a batch is the oldest unsent ones, so its ids run on). gRPC and
    // QUIC send a batch as back-to-back `message`s.
    /// `POST /messages/batch?device=D`, or one WebSocket text frame.
    case messageBatch(first: UInt64, last: UInt64)
    /// Its answer, acknowledging them all: the POST's `{"acks":[...]}` body, or one such frame.
    case acks(first: UInt64, last: UInt64)

    /// Application heartbeat or TCP keepalive probe (the tuner's plain transports).
    case heartbeat
    case heartbeatAck

    // QUIC (RFC 9000), an HTTP/3 request stream carrying the push: `open`, `accepted`, `event`,
    // `message` and `ack` as above, `ping` a PING frame (answered by a `packetAck`).
    /// The client's first flight: an Initial with the ClientHello; `resumed` with a session
    /// ticket, so the request that follows goes as 0-RTT data without waiting for the answer.
    case clientHello(resumed: Bool)
    /// The server's Initial and Handshake packets (without the certificate when resumed).
    case serverHello(resumed: Bool)
    /// The client's Handshake packet with its Finished.
    case clientFinished
    /// A server that sees the client's packets arrive from a new address validates the path
    /// (RFC 9000 section 8.2) before sending more than a few packets there.
    case pathChallenge
    case pathResponse
    /// A packet with only an ACK frame: the receiver's answer to a packet that asks for one
    /// (every packet but these and stateless resets), PINGs included.
    case packetAck
    /// A server's answer to a packet of a connection it no longer has (RFC 9000 section 10.3):
    /// the client learns the connection is gone.
    case statelessReset
}
