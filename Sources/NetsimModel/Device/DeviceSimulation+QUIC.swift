import NetsimCore

extension DeviceSimulation {
    /// A QUIC packet on its way, or lost and waiting for its sender's probe timeout.
    struct Packet: Sendable {
        var write: Write
        /// Its place in the order of its direction (`Frame.travelsInOrder`); nil for control
        /// frames, which the receiver acts on as they arrive.
        var sequence: UInt64?
        /// How many times it was sent and lost.
        var losses = 0
        /// Going up: the NAT mapping it arrived by.
        var mapping = 0
        /// When it was last sent.
        var sentAt = 0.0
    }

    /// Writes a frame as QUIC packets: frames written back to back share a packet up to a
    /// datagram's size, and a frame larger than one is split over several.
    mutating func packetize(_ frame: Frame, _ direction: Direction, on id: ConnectionID) {
        let capacity = Self.packetCapacity
        if frame == .ping(fromClient: true) { quicPaths[id]?.pingSentAt = now }
        let sizes = wire.chunks(frame, at: now)
        for (index, size) in sizes.enumerated() {
            var left = size
            repeat {
                let piece = min(left, capacity)
                left -= piece
                let last = index == sizes.count - 1 && left == 0
                write(
                    piece, completing: last ? frame : nil, direction, on: id, separate: sizes.count > 1 || size > capacity,
                    capacity: capacity)
            } while left > 0
        }
    }

    /// A packet for `write`, with its place in the order of its direction if it carries
    /// frames that travel in order.
    mutating func newPacket(_ write: Write) -> UInt64 {
        packetKeys += 1
        let inOrder = write.frame?.travelsInOrder ?? true || (mergedFrames[write.more]?.contains { $0.travelsInOrder } ?? false)
        let sequence = inOrder ? quicPaths[write.connection]?.sequence(write.direction) : nil
        packets[packetKeys] = Packet(write: write, sequence: sequence)
        return packetKeys
    }

    /// Sends the packet's datagram: it arrives, or it is lost and its sender sends it again
    /// after its probe timeout, doubled for each loss in a row (RFC 9002 section 6.2), until
    /// the sender's idle timeout ends the connection.
    mutating func send(packet key: UInt64) {
        guard let packet = packets[key], let path = quicPaths[packet.write.connection] else {
            forget(packet: key)
            return
        }
        let write = packet.write
        let id = write.connection
        // A mapping the NAT forgot: the server cannot reach the phone since it went.
        if links[id]?.diedAt == nil, let expiredAt = device.udpMappingExpiry(of: id, at: now) {
            links[id]?.diedAt = expiredAt
            if !device.isDisconnected(at: expiredAt) { natExpiriesWithNetwork += 1 }
        }
        packets[key]?.sentAt = now
        let sentTo = write.direction == .down ? path.serverMapping : nil
        let size = write.bytes + WireFormat.quicPacketOverhead
        switch device.sendDatagram(size, write.direction, on: id, mapping: sentTo, at: now) {
        case .deliver(let delivery, let mapping):
            datagrams.count(size, write.direction, droppedBy: nil)
            packets[key]?.mapping = mapping
            queue.schedule(.packetArrival(key), at: delivery.at)
        case .drop(let cause):
            datagrams.count(size, write.direction, droppedBy: cause)
            guard frames(of: write, satisfy: \.isSentAgainWhenLost) else {
                forget(packet: key)
                return
            }
            packets[key]?.losses += 1
            queue.schedule(.packetLost(key), at: now + path.roundTrip.probeTimeout(afterProbes: packet.losses))
        }
    }

    /// Whether a write's frames satisfy a rule of QUIC's (sent again when lost, acknowledged):
    /// its one frame's answer; a write of several merged frames, or a piece of a split one,
    /// carries stream data, which does.
    private func frames(of write: Write, satisfy rule: (Frame) -> Bool) -> Bool {
        guard write.more == 0, let frame = write.frame else { return true }
        return rule(frame)
    }

    /// The frames one packet carries: a datagram of `WireFormat.quicMinimumDatagram`.
    private static var packetCapacity: Int { WireFormat.quicFrames(datagram: WireFormat.quicMinimumDatagram) }

    mutating func forget(packet key: UInt64) {
        guard let packet = packets.removeValue(forKey: key) else { return }
        dropMergedFrames(of: packet.write)
    }

    /// A packet's datagram arrived. At a server that forgot the connection it draws a stateless
    /// reset; from a new address of the phone it moves the connection there (the server's
    /// path validation follows); stream data is handed over in order.
    mutating func packetArrived(_ key: UInt64) {
        guard let packet = packets[key], let link = links[packet.write.connection] else {
            forget(packet: key)
            return
        }
        let id = packet.write.connection
        let direction = packet.write.direction
        bytes[direction] += packet.write.bytes + WireFormat.quicPacketOverhead
        if direction == .up {
            guard link.serverOpen else {
                forget(packet: key)
                quicPaths[id]?.serverMapping = packet.mapping
                write(wire.bytes(.statelessReset), completing: .statelessReset, .down, on: id, separate: true)
                return
            }
            // The phone is reachable again once a packet it sent after it became unreachable
            // (an outage, a handover, its NAT mapping gone) gets through.
            if let died = link.diedAt, packet.sentAt >= died {
                recordDetection(of: id)
                links[id]?.diedAt = nil
            }
            if packet.mapping != quicPaths[id]?.serverMapping {
                quicPaths[id]?.serverMapping = packet.mapping
                datagrams.remappings += 1
                tellServer(.migrated(id))
            }
        } else if !link.clientOpen {
            forget(packet: key)
            return
        }
        if frames(of: packet.write, satisfy: \.elicitsAcknowledgement) {
            write(
                wire.bytes(.packetAck), completing: .packetAck, direction == .up ? .down : .up, on: id, separate: false,
                capacity: Self.packetCapacity)
        }
        guard let sequence = packet.sequence else {
            handOver(key)
            return
        }
        for ready in quicPaths[id]?.arrived(sequence: sequence, key: key, direction) ?? [] { handOver(ready) }
    }

    /// The receiver acts on the packet's frames.
    private mutating func handOver(_ key: UInt64) {
        guard let packet = packets.removeValue(forKey: key) else { return }
        let write = packet.write
        let rest = write.more == 0 ? [] : mergedFrames.removeValue(forKey: write.more) ?? []
        for frame in (write.frame.map { [$0] } ?? []) + rest {
            sampleRoundTrip(frame, on: write.connection)
            arrive(frame, write.direction, on: write.connection)
        }
    }

    /// The client's round-trip samples: its first flight's answer, and the first ACK after each
    /// PING (the ACK of the PING when nothing else is in flight, as with a keepalive).
    private mutating func sampleRoundTrip(_ frame: Frame, on id: ConnectionID) {
        guard let path = quicPaths[id] else { return }
        switch frame {
        case .serverHello:
            quicPaths[id]?.sample(roundTrip: now - path.openedAt)
        case .packetAck:
            guard let sentAt = path.pingSentAt else { return }
            quicPaths[id]?.sample(roundTrip: now - sentAt)
            quicPaths[id]?.pingSentAt = nil
        default:
            break
        }
    }
}

extension Frame {
    /// Whether the receiver acknowledges a packet of it (RFC 9000 section 13.2.1): all but an
    /// ACK and a stateless reset. The model acknowledges each at once, where receivers wait up
    /// to `max_ack_delay` (25 ms) for a second packet: the same for traffic sparser than that,
    /// twice the ACKs for a burst.
    var elicitsAcknowledgement: Bool { self != .packetAck && self != .statelessReset }

    /// Whether QUIC sends it again when its packet is lost: not an ACK, a PATH_RESPONSE (RFC
    /// 9000 section 13.3) or a stateless reset.
    var isSentAgainWhenLost: Bool { elicitsAcknowledgement && self != .pathResponse }

    /// Whether QUIC hands the frame over in order: stream data, and the handshake's CRYPTO
    /// frames (so 0-RTT data is not acted on before the ClientHello it depends on). Control
    /// frames (PING, ACK, path validation, a stateless reset) are acted on as they arrive.
    var travelsInOrder: Bool {
        switch self {
        case .clientHello, .serverHello, .clientFinished, .open, .accepted, .event, .message, .ack: true
        default: false
        }
    }
}
