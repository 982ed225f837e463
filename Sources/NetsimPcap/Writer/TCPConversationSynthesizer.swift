import NetsimCore

/// What the proxy tells the capture about a connection, queued for the writer thread.
struct CaptureRecord {
    enum Kind {
        case open
        /// A chunk and where its first byte sits in its direction's stream.
        case data(Direction, [UInt8], streamOffset: Int, onAirStart: Double, onAirEnd: Double)
        /// How many bytes each direction carried in all, so the FIN or RST has the right
        /// sequence number even when data records were dropped.
        case close(reset: Bool, bytesUp: Int, bytesDown: Int)
        /// A UDP datagram (its record's connection is unused), on air from `onAir`.
        case datagram(Direction, [UInt8], onAir: Double)
    }

    var connection: ConnectionID
    var endpoints: CaptureEndpoints
    /// The run's clock when the proxy recorded it; open and close packets carry this time.
    var time: Double
    var kind: Kind

    /// What the record holds in the queue's byte budget.
    var queuedBytes: Int {
        switch kind {
        case .data(_, let bytes, _, _, _), .datagram(_, let bytes, _): bytes.count
        case .open, .close: 0
        }
    }
}

/// Turns the proxy's records into the TCP segments (and UDP datagrams) a real capture would
/// show, and hands them out in time order.
///
/// A chunk's segments come at a 1448-byte MSS with their times spread evenly over the chunk's
/// time on the emulated radio (first segment at its start, last at its end); the receiver
/// acknowledges every second segment and the last one, at once. Sequence numbers follow each
/// direction's stream offsets; acknowledgment numbers and TCP timestamps are filled in when a
/// segment is written, from what the other side had sent by then, so they stay consistent
/// even when chunks of the two directions overlap in time.
struct TCPConversationSynthesizer {
    private enum Side { case client, server }

    private enum SegmentKind {
        case syn, synAck, handshakeAck
        case data(ArraySlice<UInt8>, streamOffset: Int, push: Bool)
        case acknowledgment
        case fin(streamOffset: Int)
        /// The last ACK of a FIN exchange: the connection is done after it.
        case finalAcknowledgment
        case reset(streamOffset: Int)
        /// A UDP datagram: no TCP state.
        case datagram([UInt8])
    }

    private struct PlannedSegment {
        var time: Double
        var connection: ConnectionID
        var endpoints: CaptureEndpoints
        var sender: Side
        var kind: SegmentKind
    }

    /// Per connection, what each side has sent by the latest written segment.
    private struct WrittenState {
        var initialSequence: (client: UInt32, server: UInt32)
        /// Stream positions past the last thing sent (SYN and FIN count one each).
        var sentEnd: (client: Int, server: Int) = (0, 0)
        var latestTimestampValue: (client: UInt32, server: UInt32) = (0, 0)
        var ipIdentification: (client: UInt16, server: UInt16)

        init(connection: ConnectionID) {
            // Fixed per connection id, so the same run writes the same capture.
            let mixed = connection &* 0x9E37_79B9_7F4A_7C15
            initialSequence = (UInt32(truncatingIfNeeded: mixed >> 32), UInt32(truncatingIfNeeded: mixed))
            ipIdentification = (UInt16(truncatingIfNeeded: mixed >> 16), UInt16(truncatingIfNeeded: mixed >> 48))
        }
    }

    /// By time; segments with the same time keep their planning order.
    private var planned = EventQueue<PlannedSegment>()
    private var written: [ConnectionID: WrittenState] = [:]
    private var fields = TCPSegmentFields(
        source: CaptureEndpoints.deviceIPv4, sourcePort: 0, destination: CaptureEndpoints.deviceIPv4, destinationPort: 0,
        sequence: 0, acknowledgment: 0, flags: [], ipIdentification: 0, timestampValue: 0, timestampEcho: 0, payload: [],
        fromDevice: true)
    private var frame: [UInt8] = []
    /// The IP identification of the next UDP datagram.
    private var datagramIdentification: UInt16 = 1

    mutating func plan(_ record: CaptureRecord) {
        func add(_ time: Double, _ sender: Side, _ kind: SegmentKind) {
            planned.schedule(
                PlannedSegment(time: time, connection: record.connection, endpoints: record.endpoints, sender: sender, kind: kind),
                at: time)
        }
        switch record.kind {
        case .open:
            add(record.time, .client, .syn)
            add(record.time, .server, .synAck)
            add(record.time, .client, .handshakeAck)
        case .data(let direction, let bytes, let streamOffset, let onAirStart, let onAirEnd):
            let sender: Side = direction == .up ? .client : .server
            let receiver: Side = direction == .up ? .server : .client
            let segments = TCPSegmentation.segments(bytes.count)
            let span = max(0, onAirEnd - onAirStart)
            for index in 0..<segments {
                let time = segments == 1 ? onAirStart : onAirStart + span * Double(index) / Double(segments - 1)
                let start = index * TCPSegmentation.maximumSegmentSize
                let end = min(bytes.count, start + TCPSegmentation.maximumSegmentSize)
                let isLast = index == segments - 1
                add(time, sender, .data(bytes[start..<end], streamOffset: streamOffset + start, push: isLast))
                if isLast || index % 2 == 1 {
                    // A lone segment is acknowledged when its chunk has finished crossing the link.
                    add(segments == 1 ? max(onAirStart, onAirEnd) : time, receiver, .acknowledgment)
                }
            }
        case .close(let reset, let bytesUp, let bytesDown):
            if reset {
                add(record.time, .server, .reset(streamOffset: bytesDown))
            } else {
                add(record.time, .client, .fin(streamOffset: bytesUp))
                add(record.time, .server, .fin(streamOffset: bytesDown))
                add(record.time, .client, .finalAcknowledgment)
            }
        case .datagram(let direction, let bytes, let onAir):
            add(onAir, direction == .up ? .client : .server, .datagram(bytes))
        }
    }

    /// Writes, in time order, every planned segment at or before `time` (all of them for
    /// `.infinity`), and the oldest ones beyond `maximumPlanned` whatever their time.
    mutating func write(through time: Double, maximumPlanned: Int = .max, to sink: (_ frame: [UInt8], _ time: Double) -> Void) {
        while let due = planned.nextTime, due <= time || planned.count > maximumPlanned, let (_, next) = planned.next() {
            encode(next)
            sink(frame, next.time)
        }
    }

    private mutating func encode(_ segment: PlannedSegment) {
        if case .datagram(let payload) = segment.kind {
            let endpoints = segment.endpoints
            let fromDevice = segment.sender == .client
            FrameEncoder.encodeDatagram(
                from: fromDevice ? (endpoints.client, endpoints.clientPort) : (endpoints.server, endpoints.serverPort),
                to: fromDevice ? (endpoints.server, endpoints.serverPort) : (endpoints.client, endpoints.clientPort),
                payload: payload, ipIdentification: datagramIdentification, fromDevice: fromDevice, into: &frame)
            datagramIdentification &+= 1
            return
        }
        var state = written[segment.connection] ?? WrittenState(connection: segment.connection)
        let isClient = segment.sender == .client
        let ownInitial = isClient ? state.initialSequence.client : state.initialSequence.server
        let peerInitial = isClient ? state.initialSequence.server : state.initialSequence.client
        var ownEnd = isClient ? state.sentEnd.client : state.sentEnd.server
        let peerEnd = isClient ? state.sentEnd.server : state.sentEnd.client

        var flags = TCPFlags.ack
        var position = ownEnd
        var payload: ArraySlice<UInt8> = []
        var isDone = false
        switch segment.kind {
        case .syn:
            flags = .syn
            position = 0
        case .synAck:
            flags = [.syn, .ack]
            position = 0
        case .handshakeAck, .acknowledgment:
            break
        case .data(let bytes, let streamOffset, let push):
            position = 1 + streamOffset
            payload = bytes
            if push { flags.insert(.psh) }
        case .fin(let streamOffset):
            flags.insert(.fin)
            position = 1 + streamOffset
        case .finalAcknowledgment:
            isDone = true
        case .reset(let streamOffset):
            flags = [.rst, .ack]
            position = 1 + streamOffset
            isDone = true
        case .datagram:
            return
        }
        let consumed = payload.count + (flags.isDisjoint(with: [.syn, .fin]) ? 0 : 1)
        ownEnd = max(ownEnd, position + consumed)

        let timestampValue = UInt32(truncatingIfNeeded: Int64((max(0, segment.time) * 1000).rounded(.down))) &+ 1
        let endpoints = segment.endpoints
        fields.source = isClient ? endpoints.client : endpoints.server
        fields.sourcePort = isClient ? endpoints.clientPort : endpoints.serverPort
        fields.destination = isClient ? endpoints.server : endpoints.client
        fields.destinationPort = isClient ? endpoints.serverPort : endpoints.clientPort
        fields.sequence = ownInitial &+ UInt32(truncatingIfNeeded: position)
        fields.acknowledgment = flags.contains(.ack) ? peerInitial &+ UInt32(truncatingIfNeeded: peerEnd) : 0
        fields.flags = flags
        fields.timestampValue = timestampValue
        fields.timestampEcho = isClient ? state.latestTimestampValue.server : state.latestTimestampValue.client
        fields.payload = payload
        fields.fromDevice = isClient
        if isClient {
            fields.ipIdentification = state.ipIdentification.client
            state.ipIdentification.client &+= 1
            state.sentEnd.client = ownEnd
            state.latestTimestampValue.client = timestampValue
        } else {
            fields.ipIdentification = state.ipIdentification.server
            state.ipIdentification.server &+= 1
            state.sentEnd.server = ownEnd
            state.latestTimestampValue.server = timestampValue
        }
        written[segment.connection] = isDone ? nil : state
        FrameEncoder.encode(fields, into: &frame)
    }
}
