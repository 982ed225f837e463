import NetsimCore

/// The size, as TCP payload, of every frame the live bench's clients and servers write, so that
/// the model's bytes (and the segments, radio time and energy they cost) are the live bench's.
/// Read off `netsim bench --pcap-dir` captures of the live transports (tshark, each TCP
/// payload; docs/model-engine.md shows them): the fixed parts are constants here, the parts
/// that vary (decimal device numbers, sequence numbers and times, payloads, length prefixes)
/// are computed the way the encoders write them.
public struct WireFormat: Sendable, Equatable {
    /// How frames are encoded: one of the bench's transports, or a plain connection whose
    /// opening, heartbeat and answer are `probeBytes` each (2 for an application heartbeat, the
    /// size of MQTT's PINGREQ; 1 for a TCP keepalive probe, which carries at most one byte).
    public enum Encoding: Sendable, Equatable {
        case transport(BenchTransport)
        case plain(probeBytes: Int)

        /// Whether frames go as QUIC packets over UDP rather than over a TCP connection: QUIC v1
        /// with HTTP/3 (RFC 9000, 9114), each write the frames of one packet, and
        /// `quicPacketOverhead` more the UDP datagram.
        public var isQUIC: Bool { self == .transport(.quic) }
    }

    public var encoding: Encoding
    public var eventPayloadBytes: Int
    public var messagePayloadBytes: Int
    /// The device's index, written in decimal in REST and WebSocket URLs.
    public var device: Int

    public init(encoding: Encoding, eventPayloadBytes: Int, messagePayloadBytes: Int, device: Int = 0) {
        self.encoding = encoding
        self.eventPayloadBytes = eventPayloadBytes
        self.messagePayloadBytes = messagePayloadBytes
        self.device = device
    }

    /// The writes a frame takes, in bytes each: most frames are one write; gRPC's connection
    /// start is the preface with SETTINGS, the SETTINGS ACK and the call's HEADERS with its
    /// first message (57, 9 and 133 bytes in the captures), answered by SETTINGS, its ACK and
    /// the response HEADERS (27, 9, 23). `time` is when the frame is written: the times the
    /// JSON carries are about then, and their decimal length is part of the size.
    public func chunks(_ frame: Frame, at time: Double) -> FrameWrites {
        switch (encoding, frame) {
        case (.transport(.grpc), .open(let after, true)):
            return FrameWrites(
                Self.clientPreface, Self.settingsAck, Self.callHeaders + Self.grpcMessage(subscribe(after: after)))
        case (.transport(.grpc), .accepted(true)):
            return FrameWrites(Self.serverSettings, Self.settingsAck, Self.responseHeaders)
        case (.transport(.grpc), .preface):
            return FrameWrites(Self.clientPreface, Self.settingsAck)
        case (.transport(.grpc), .prefaceAccepted):
            return FrameWrites(Self.serverSettings, Self.settingsAck)
        case (.transport(.quic), .serverHello(false)):
            return FrameWrites(Self.quicFrames(datagram: Self.quicMinimumDatagram), Self.quicFrames(datagram: Self.quicMinimumDatagram))
        default:
            return FrameWrites(singleWrite(frame, at: time))
        }
    }

    /// The bytes of a frame written at `time`, all its writes together.
    public func bytes(_ frame: Frame, at time: Double = 0) -> Int {
        chunks(frame, at: time).reduce(0, +)
    }

    /// A frame that is one write.
    private func singleWrite(_ frame: Frame, at time: Double) -> Int {
        switch encoding {
        case .transport(.rest): restBytes(frame, at: time)
        case .transport(.ws): webSocketBytes(frame, at: time)
        case .transport(.grpc): grpcBytes(frame)
        case .plain(let probeBytes): probeBytes
        case .transport(.quic): quicBytes(frame, at: time)
        }
    }

    // MARK: QUIC (RFC 9000) and HTTP/3 (RFC 9114)

    /// A 1-RTT packet's own bytes: the short header's first byte, an 8-byte connection ID
    /// (aioquic's and quic-go's length), a 2-byte packet number, and the AEAD's 16-byte tag.
    public static let quicPacketOverhead = 27
    /// RFC 9000 section 14.1: a client's Initial datagram, and any datagram with a
    /// PATH_CHALLENGE or PATH_RESPONSE (section 8.2), is padded to at least 1,200 bytes; it is
    /// also the datagram size aioquic and quic-go send by default, so longer frames are split.
    public static let quicMinimumDatagram = 1200
    /// A resumed handshake's server flight: ServerHello with a pre-shared key, EncryptedExtensions
    /// and Finished, no certificate (an estimate from TLS 1.3's message sizes, RFC 8446).
    static let quicResumedServerFlight = 350
    /// The client's Handshake packet: Finished (36 bytes), an ACK and a long header.
    static let quicClientFinished = 92
    /// What the server sends once the handshake is confirmed on a new connection: HANDSHAKE_DONE,
    /// spare connection IDs (NEW_CONNECTION_ID) and the session ticket for 0-RTT next time (an
    /// estimate).
    static let quicNewConnectionExtras = 300
    /// HTTP/3's control and QPACK streams opened with a new connection (SETTINGS): an estimate.
    static let http3StreamSetup = 16
    /// The request's HEADERS with QPACK (`GET /events?device=D&after=SEQ`, :authority, the
    /// static table's :method and :scheme), less the digits of D and SEQ: an estimate.
    static let http3RequestHeaders = 48
    /// The response's HEADERS (`:status 200` from QPACK's static table).
    static let http3ResponseHeaders = 4
    /// A STREAM frame's type, stream ID and offset, and an HTTP/3 DATA frame's type and length.
    static let quicStreamFraming = 4 + 3
    /// PING is one byte; its answer is an ACK frame (type, largest, delay, range count, range).
    static let quicPing = 1
    static let quicAck = 5
    /// A stateless reset datagram (RFC 9000 section 10.3: at least 21 bytes; 43 as a
    /// short-header packet would be).
    static let quicStatelessReset = 43

    /// The frames of a packet that fills a datagram of `datagram` bytes.
    static func quicFrames(datagram: Int) -> Int {
        datagram - quicPacketOverhead
    }

    private func quicBytes(_ frame: Frame, at time: Double) -> Int {
        switch frame {
        case .clientHello: Self.quicFrames(datagram: Self.quicMinimumDatagram)
        case .serverHello: Self.quicFrames(datagram: Self.quicResumedServerFlight)
        case .clientFinished: Self.quicFrames(datagram: Self.quicClientFinished)
        case .open(let after, let newConnection):
            Self.quicStreamFraming + Self.http3RequestHeaders + Self.digits(UInt64(device)) + Self.cursorLength(after)
                + (newConnection ? Self.http3StreamSetup : 0)
        case .accepted(let newConnection):
            Self.quicStreamFraming + Self.http3ResponseHeaders + (newConnection ? Self.quicNewConnectionExtras : 0)
        // Newline-delimited JSON on the response stream and the request stream.
        case .event(let sequence): Self.quicStreamFraming + eventJSON(sequence, at: time) + 1
        case .message(let id): Self.quicStreamFraming + messageJSON(id, at: time) + 1
        case .ack(let id): Self.quicStreamFraming + 8 + Self.digits(id) + 1
        case .ping: Self.quicPing
        case .packetAck: Self.quicAck
        case .pathChallenge, .pathResponse: Self.quicFrames(datagram: Self.quicMinimumDatagram)
        case .statelessReset: Self.quicFrames(datagram: Self.quicStatelessReset)
        default: 0
        }
    }

    // MARK: REST (AsyncHTTPClient -> Hummingbird, HTTP/1.1, JSON)

    /// `GET /events?device=D&after=SEQ HTTP/1.1` and AsyncHTTPClient's `host: 127.0.0.1:PORT`
    /// (a five-digit port), less the digits of D and SEQ.
    static let pollRequestHeader = 62
    /// `HTTP/1.1 200 OK` with Hummingbird's Content-Type, Content-Length, Date and Server
    /// headers, less the Content-Length digits.
    static let responseHeader = 133
    /// `POST /messages?device=D HTTP/1.1` with Content-Type, host and Content-Length, less the
    /// digits of D and of the length.
    static let postRequestHeader = 108
    /// A batching client's `POST /messages/batch?device=D`: the path's "/batch" more.
    static let batchPostRequestHeader = postRequestHeader + 6

    private func restBytes(_ frame: Frame, at time: Double) -> Int {
        switch frame {
        case .pollRequest(let after):
            return Self.pollRequestHeader + Self.digits(UInt64(device)) + Self.cursorLength(after)
        case .pollResponse(let first, let last, let latest):
            var body = 13  // {"events":[]}
            if let latest { body += 10 + Self.digits(latest) }  // ,"latest":N
            if last >= first {
                for sequence in first...last { body += eventJSON(sequence, at: time) }
                body += Int(last - first)  // commas
            }
            return Self.responseHeader + Self.digits(UInt64(body)) + body
        case .postRequest(let id):
            let body = messageJSON(id, at: time)
            return Self.postRequestHeader + Self.digits(UInt64(device)) + Self.digits(UInt64(body)) + body
        case .postResponse(let ack):
            let body = 8 + Self.digits(ack)  // {"ack":N}
            return Self.responseHeader + Self.digits(UInt64(body)) + body
        case .messageBatch(let first, let last):
            let body = messageArrayJSON(first...last, at: time)
            return Self.batchPostRequestHeader + Self.digits(UInt64(device)) + Self.digits(UInt64(body)) + body
        case .acks(let first, let last):
            let body = Self.acksJSON(first...last)
            return Self.responseHeader + Self.digits(UInt64(body)) + body
        default:
            return 0
        }
    }

    /// A time on the bench clock as JSON writes it: whole seconds, a point and nine decimals
    /// (the clock reads nanoseconds; the shortest representation keeps them).
    static func jsonTimeLength(_ time: Double) -> Int {
        digits(UInt64(max(0, time))) + 10
    }

    /// `{"payload":"...","seq":N,"createdAt":T}`
    private func eventJSON(_ sequence: UInt64, at time: Double) -> Int {
        34 + Self.digits(sequence) + Self.jsonTimeLength(time) + eventPayloadBytes
    }

    /// `{"payload":"...","id":N,"createdAt":T}`
    private func messageJSON(_ id: UInt64, at time: Double) -> Int {
        33 + Self.digits(id) + Self.jsonTimeLength(time) + messagePayloadBytes
    }

    /// A batch: `[{message},{message},...]`. Its times are taken as `time`'s length (a message
    /// produced before a power of ten of seconds is a digit shorter).
    private func messageArrayJSON(_ ids: ClosedRange<UInt64>, at time: Double) -> Int {
        2 + ids.reduce(0) { $0 + messageJSON($1, at: time) } + ids.count - 1
    }

    /// A batch's acknowledgement: `{"acks":[N,N,...]}`.
    static func acksJSON(_ ids: ClosedRange<UInt64>) -> Int {
        11 + ids.reduce(0) { $0 + digits($1) } + ids.count - 1
    }

    // MARK: WebSocket (hummingbird-websocket, RFC 6455, JSON text frames)

    /// The upgrade request (`GET /ws?device=D&after=SEQ` with Host, Origin, Connection, Upgrade,
    /// Sec-WebSocket-Key and -Version), less the digits of D and SEQ.
    static let upgradeRequest = 195
    /// `HTTP/1.1 101 Switching Protocols` with its headers.
    static let upgradeResponse = 129
    /// Auto-ping payload: 16 random bytes (swift-websocket's `pingDataSize`).
    static let pingPayload = 16

    private func webSocketBytes(_ frame: Frame, at time: Double) -> Int {
        switch frame {
        case .open(let after, _): Self.upgradeRequest + Self.digits(UInt64(device)) + Self.cursorLength(after)
        case .accepted: Self.upgradeResponse
        case .event(let sequence): Self.webSocketFrame(payload: 10 + eventJSON(sequence, at: time) + 1, masked: false)  // {"event":{...}}
        case .ack(let id): Self.webSocketFrame(payload: 8 + Self.digits(id), masked: false)
        case .message(let id): Self.webSocketFrame(payload: messageJSON(id, at: time), masked: true)
        case .messageBatch(let first, let last): Self.webSocketFrame(payload: messageArrayJSON(first...last, at: time), masked: true)
        case .acks(let first, let last): Self.webSocketFrame(payload: Self.acksJSON(first...last), masked: false)
        case .ping(let fromClient): Self.webSocketFrame(payload: Self.pingPayload, masked: fromClient)
        case .pong(let toClient): Self.webSocketFrame(payload: Self.pingPayload, masked: !toClient)
        // A close frame: status code and "Ping timeout"; the model sends it from either side.
        case .close: Self.webSocketFrame(payload: 14, masked: false)
        default: 0
        }
    }

    /// RFC 6455 framing: 2 bytes, 2 more for 126-65535 bytes of payload (8 more beyond: a
    /// large batch), 4 of mask from a client.
    static func webSocketFrame(payload: Int, masked: Bool) -> Int {
        2 + (payload > 65535 ? 8 : payload >= 126 ? 2 : 0) + (masked ? 4 : 0) + payload
    }

    // MARK: gRPC (grpc-swift-2 over HTTP/2, protobuf)

    /// HTTP/2 frame header.
    static let frameHeader = 9
    /// The gRPC message prefix: compressed flag and length.
    static let messagePrefix = 5
    /// Client connection start: the preface (24) with SETTINGS, then the SETTINGS ACK.
    static let clientPreface = 57
    static let settingsAck = 9
    /// Server connection start: SETTINGS, then the ACK of the client's.
    static let serverSettings = 27
    /// The call's request HEADERS (HPACK; 133 bytes with the Subscribe message in the captures).
    /// A later call on the same connection finds its headers in HPACK's dynamic table: about
    /// 30 bytes (an estimate; renewals are rare).
    static let callHeaders = 117
    static let laterCallHeaders = 30
    /// The response HEADERS (`:status 200`, content-type), and a later call's (an estimate).
    static let responseHeaders = 23
    static let laterResponseHeaders = 10
    /// PING and its ACK: a 9-byte header and 8 bytes of opaque data.
    static let ping = 17
    /// GOAWAY with a short debug string ("too_many_pings", "keepalive_expired").
    static let goAway = 40
    /// RST_STREAM.
    static let resetStream = 13

    private func grpcBytes(_ frame: Frame) -> Int {
        switch frame {
        // A new connection's start is several writes (`chunks`); a later call's is one.
        case .open(let after, _):
            return Self.laterCallHeaders + Self.grpcMessage(subscribe(after: after))
        case .accepted:
            return Self.laterResponseHeaders
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

    /// ClientFrame{subscribe: Subscribe{device, resume_from}}; proto3 leaves out zero fields.
    func subscribe(after: UInt64) -> Int {
        let inner = (device > 0 ? 1 + Self.varintBytes(UInt64(device)) : 0) + (after > 0 ? 1 + Self.varintBytes(after) : 0)
        return 1 + Self.varintBytes(UInt64(inner)) + inner
    }

    /// One gRPC message in one DATA frame.
    static func grpcMessage(_ protobuf: Int) -> Int {
        frameHeader + messagePrefix + protobuf
    }

    static func varintBytes(_ value: UInt64) -> Int {
        max(1, (64 - value.leadingZeroBitCount + 6) / 7)
    }

    /// A URL's `after=` value: the cursor's digits, or `now` for `ClientSettings.Reconnect.fromNow`.
    static func cursorLength(_ after: UInt64) -> Int {
        after == ClientSettings.Reconnect.fromNow ? 3 : digits(after)
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

/// The sizes of the writes one frame takes, in order: one for most frames, two or three for a
/// gRPC connection's start. Held inline rather than in an array: the engine sizes every frame
/// it sends, and an array per frame was an allocation per write.
public struct FrameWrites: RandomAccessCollection, Sendable {
    private let sizes: (Int, Int, Int)
    public let count: Int

    init(_ only: Int) {
        sizes = (only, 0, 0)
        count = 1
    }

    init(_ first: Int, _ second: Int) {
        sizes = (first, second, 0)
        count = 2
    }

    init(_ first: Int, _ second: Int, _ third: Int) {
        sizes = (first, second, third)
        count = 3
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(index: Int) -> Int {
        precondition(index >= 0 && index < count, "index out of range")
        switch index {
        case 0: return sizes.0
        case 1: return sizes.1
        default: return sizes.2
        }
    }
}
