import NetsimCore

/// The size, as TCP payload, of every frame the live bench's clients and servers write, so that
/// the model's bytes (and the segments, radio time and energy they cost) are the live bench's.
/// Measured from `netsim bench --pcap-dir` captures of the live transports (tshark, per TCP
/// segment; docs/model-engine.md has the method and the table): fixed parts are constants here,
/// the parts that vary (decimal sequence numbers, JSON numbers, payloads, length prefixes)
/// are computed the way the encoders write them.
public struct WireFormat: Sendable, Equatable {
    public var transport: BenchTransport
    public var eventPayloadBytes: Int
    public var messagePayloadBytes: Int

    public init(transport: BenchTransport, eventPayloadBytes: Int, messagePayloadBytes: Int) {
        self.transport = transport
        self.eventPayloadBytes = eventPayloadBytes
        self.messagePayloadBytes = messagePayloadBytes
    }

    public func bytes(_ frame: Frame) -> Int {
        switch transport {
        case .rest: restBytes(frame)
        case .ws: webSocketBytes(frame)
        case .grpc: grpcBytes(frame)
        }
    }

    // MARK: REST (AsyncHTTPClient -> Hummingbird, HTTP/1.1, JSON)

    /// `GET /events?device=D&after=SEQ HTTP/1.1` and AsyncHTTPClient's headers, less the digits.
    static let pollRequestHeader = 58
    /// `HTTP/1.1 200 OK` with Hummingbird's Content-Type, Content-Length, Date and Server
    /// headers, less the Content-Length digits.
    static let responseHeader = 137
    /// `POST /messages?device=D HTTP/1.1` with its headers, less the Content-Length digits.
    static let postRequestHeader = 121
    /// JSON time stamps as Foundation's encoder writes seconds since the start (`73.91834519803524`).
    static let jsonTimeLength = 17

    private func restBytes(_ frame: Frame) -> Int {
        switch frame {
        case .pollRequest(let after):
            return Self.pollRequestHeader + Self.digits(after)
        case .pollResponse(let first, let last):
            var body = 13  // {"events":[]}
            if last >= first {
                for sequence in first...last { body += eventJSON(sequence) }
                body += Int(last - first)  // commas
            }
            return Self.responseHeader + Self.digits(UInt64(body)) + body
        case .postRequest(let id):
            let body = messageJSON(id)
            return Self.postRequestHeader + Self.digits(UInt64(body)) + body
        case .postResponse(let ack):
            let body = 8 + Self.digits(ack)  // {"ack":N}
            return Self.responseHeader + Self.digits(UInt64(body)) + body
        default:
            return 0
        }
    }

    /// `{"seq":N,"createdAt":T,"payload":"..."}`
    private func eventJSON(_ sequence: UInt64) -> Int {
        34 + Self.digits(sequence) + Self.jsonTimeLength + eventPayloadBytes
    }

    /// `{"id":N,"createdAt":T,"payload":"..."}`
    private func messageJSON(_ id: UInt64) -> Int {
        33 + Self.digits(id) + Self.jsonTimeLength + messagePayloadBytes
    }

    // MARK: WebSocket (hummingbird-websocket, RFC 6455, JSON text frames)

    /// The upgrade request (`GET /ws?device=D&after=SEQ` with Upgrade, Connection,
    /// Sec-WebSocket-Key and -Version), less the digits of SEQ.
    static let upgradeRequest = 190
    /// `HTTP/1.1 101 Switching Protocols` with its headers.
    static let upgradeResponse = 129
    /// Auto-ping payload: 16 random bytes (swift-websocket's `pingDataSize`).
    static let pingPayload = 16

    private func webSocketBytes(_ frame: Frame) -> Int {
        switch frame {
        case .open(let after, _): Self.upgradeRequest + Self.digits(after)
        case .accepted: Self.upgradeResponse
        case .event(let sequence): Self.webSocketFrame(payload: 10 + eventJSON(sequence) + 1, masked: false)  // {"event":{...}}
        case .ack(let id): Self.webSocketFrame(payload: 8 + Self.digits(id), masked: false)
        case .message(let id): Self.webSocketFrame(payload: messageJSON(id), masked: true)
        case .ping(let fromClient): Self.webSocketFrame(payload: Self.pingPayload, masked: fromClient)
        case .pong(let toClient): Self.webSocketFrame(payload: Self.pingPayload, masked: !toClient)
        // A close frame: status code and "Ping timeout"; the model sends it from either side.
        case .close: Self.webSocketFrame(payload: 14, masked: false)
        default: 0
        }
    }

    /// RFC 6455 framing: 2 bytes, 2 more for 126-65535 bytes of payload, 4 of mask from a client.
    static func webSocketFrame(payload: Int, masked: Bool) -> Int {
        2 + (payload >= 126 ? 2 : 0) + (masked ? 4 : 0) + payload
    }

    // MARK: gRPC (grpc-swift-2 over HTTP/2, protobuf)

    /// HTTP/2 frame header.
    static let frameHeader = 9
    /// The gRPC message prefix: compressed flag and length.
    static let messagePrefix = 5
    /// Client connection start: the preface (24), SETTINGS and a connection WINDOW_UPDATE.
    static let clientConnectionStart = 73
    /// Server connection start: SETTINGS, WINDOW_UPDATE and the ACK of the client's SETTINGS.
    static let serverConnectionStart = 46
    /// The call's request HEADERS (HPACK; a later call on the same connection is smaller, its
    /// headers already in the dynamic table).
    static let callHeaders = 130
    static let laterCallHeaders = 30
    /// The response HEADERS (`:status 200`, content-type), and a later call's.
    static let responseHeaders = 60
    static let laterResponseHeaders = 10
    /// PING and its ACK: a 9-byte header and 8 bytes of opaque data.
    static let ping = 17
    /// GOAWAY with a short debug string ("too_many_pings", "keepalive_expired").
    static let goAway = 40
    /// RST_STREAM.
    static let resetStream = 13

    private func grpcBytes(_ frame: Frame) -> Int {
        switch frame {
        case .open(let after, let newConnection):
            // Subscribe{device, resume_from} in a ClientFrame.
            let subscribe = 2 + 2 + 1 + Self.varintBytes(after) + 2
            return (newConnection ? Self.clientConnectionStart + Self.callHeaders : Self.laterCallHeaders)
                + Self.grpcMessage(subscribe)
        case .accepted(let newConnection):
            return newConnection ? Self.serverConnectionStart + Self.responseHeaders : Self.laterResponseHeaders
        case .event(let sequence):
            // ServerFrame{event: ServerEvent{sequence_id, created_at (double), payload}}.
            let event = 1 + Self.varintBytes(sequence) + 9 + 1 + Self.varintBytes(UInt64(eventPayloadBytes)) + eventPayloadBytes
            return Self.grpcMessage(1 + Self.varintBytes(UInt64(event)) + event)
        case .message(let id):
            let message = 1 + Self.varintBytes(id) + 9 + 1 + Self.varintBytes(UInt64(messagePayloadBytes)) + messagePayloadBytes
            return Self.grpcMessage(1 + Self.varintBytes(UInt64(message)) + message)
        case .ack(let id):
            let ack = 1 + Self.varintBytes(id)
            return Self.grpcMessage(1 + 1 + ack)
        case .ping, .pong: return Self.ping
        case .goAway: return Self.goAway
        case .callCancelled: return Self.resetStream
        default: return 0
        }
    }

    /// One gRPC message in one DATA frame.
    static func grpcMessage(_ protobuf: Int) -> Int {
        frameHeader + messagePrefix + protobuf
    }

    static func varintBytes(_ value: UInt64) -> Int {
        max(1, (64 - value.leadingZeroBitCount + 6) / 7)
    }

    static func digits(_ value: UInt64) -> Int {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        return count
    }
}
