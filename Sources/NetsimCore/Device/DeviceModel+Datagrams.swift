/// Identifies one UDP flow of a device: one client address and port talking to one upstream.
public typealias DatagramFlowID = UInt64

/// The device's UDP flows and the carrier NAT's mapping of each. A mapping is numbered: it
/// changes (the server sees a new source port) when the NAT forgot the old one
/// (`NATPolicy.udpIdleTimeout`) or the phone's address changed (a `reset` or `blackhole`
/// handover).
struct DatagramFlows: Sendable {
    struct Mapping: Sendable {
        /// When a datagram last passed the NAT either way (RFC 4787 REQ-6: outbound refreshes;
        /// carriers commonly let inbound refresh too, as the TCP model does).
        var lastActivity: Double
        /// Which mapping this is, from 0: each new one is the next number.
        var number = 0
        /// Whether the expiry of this mapping was recorded (once, by whichever side found it).
        var expiryRecorded = false
    }

    private var mappings: [DatagramFlowID: Mapping] = [:]
    private var nextFlow: DatagramFlowID = 1
    /// The latest delivery so far each way of a link that keeps datagrams in order
    /// (`Jitter.reordersDatagrams` false), which it delivers none before. Only such a link's
    /// deliveries count: after a handover from one that reorders, its late datagrams are its own.
    private var latestDelivery = PerDirection(up: 0.0, down: 0.0)

    mutating func open(at time: Double) -> DatagramFlowID {
        defer { nextFlow += 1 }
        mappings[nextFlow] = Mapping(lastActivity: time)
        return nextFlow
    }

    mutating func close(_ flow: DatagramFlowID) { mappings[flow] = nil }

    subscript(flow: DatagramFlowID) -> Mapping? {
        get { mappings[flow] }
        set { mappings[flow] = newValue }
    }

    var count: Int { mappings.count }

    /// When a datagram that would arrive at `time` is delivered: then, or after the one
    /// before it going `direction` if the link keeps datagrams in order.
    mutating func delivery(_ time: Double, _ direction: Direction, keepingOrder: Bool) -> Double {
        guard keepingOrder else { return time }
        let delivery = max(time, latestDelivery[direction])
        latestDelivery[direction] = delivery
        return delivery
    }

    /// The phone's address changes so far (handovers that rebind every flow).
    private(set) var addressChanges = 0

    /// The phone's address changed: every flow's next datagram goes out on a new mapping.
    mutating func rebindAll() {
        addressChanges += 1
        for flow in mappings.keys {
            mappings[flow]?.number += 1
            mappings[flow]?.expiryRecorded = false
        }
    }
}

/// What happens to one UDP datagram.
public enum DatagramVerdict: Sendable, Equatable {
    /// It reaches the other side at `delivery.at`. Going up, `mapping` is the NAT mapping it
    /// leaves on: when that differs from the flow's last one, the server sees a new source port.
    case deliver(Delivery, mapping: Int)
    /// It never arrives.
    case drop(DatagramDrop)
}

/// Why a datagram never arrived.
public enum DatagramDrop: String, Sendable, Equatable, Codable, CodingKeyRepresentable, CaseIterable, Comparable {
    /// The link's loss model took it.
    case loss
    /// The link's queue was at its limit (`queueLimit`): tail drop.
    case queueFull = "queue-full"
    /// Sent into an outage or handover gap that drops datagrams (`blackhole`, `reset`).
    case outage
    /// The server sent it to a NAT mapping that had expired (`nat.udpIdleTimeout`).
    case natExpired = "nat-expired"
    /// The server sent it to the phone's address before a handover or a new NAT mapping.
    case oldAddress = "old-address"
    /// More datagram bytes were in flight than the proxy holds (`ProxyOptions.bufferLimit`),
    /// or the socket it was to leave by had no room.
    case overflow
    /// Larger than a UDP datagram over IPv4 carries (`UDPDatagram.maximumPayload`), or a
    /// SOCKS5 datagram with a fragment number (RFC 1928's fragmentation is not supported).
    case unsupported

    public static func < (lhs: DatagramDrop, rhs: DatagramDrop) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

extension DeviceModel {
    /// A new UDP flow of the device, with a fresh NAT mapping.
    public mutating func openDatagramFlow(at time: Double) -> DatagramFlowID {
        datagramFlows.open(at: time)
    }

    public mutating func closeDatagramFlow(_ flow: DatagramFlowID) {
        datagramFlows.close(flow)
    }

    /// The handovers so far that changed the phone's address (and every flow's mapping).
    public var addressChanges: Int { datagramFlows.addressChanges }

    /// When the NAT forgot the flow's mapping, if it has by `time` (`NATPolicy.udpIdleTimeout`
    /// after the last datagram either way).
    public func udpMappingExpiry(of flow: DatagramFlowID, at time: Double) -> Double? {
        guard let mapping = datagramFlows[flow], udpMappingExpired(mapping, at: time), let timeout = profile.nat?.udpIdleTimeout
        else { return nil }
        return mapping.lastActivity + timeout
    }

    /// The flow's current NAT mapping's number.
    public func datagramMapping(of flow: DatagramFlowID) -> Int? {
        datagramFlows[flow]?.number
    }

    /// What happens to a UDP datagram of `bytes` payload read at `time` on `flow`, going
    /// `direction`; a datagram going down says which NAT mapping (`mapping`) it was sent to.
    ///
    /// Unlike a TCP chunk, a datagram is never retransmitted or held behind another:
    /// - the loss model drops it (every IP fragment drawn, `LinkDirection.datagramLost`), after
    ///   it has taken its time on the link and the radio;
    /// - jitter delays it, drawn per datagram (on the downlink, the base delay is before the
    ///   radio's queue and the jitter after it, so that the queue stays first in, first out),
    ///   and a datagram is delivered no earlier than the one before it, as a cellular link
    ///   delivers in order; only a link whose jitter says `reorder: true` lets it overtake;
    /// - the rate or trace serializes it behind what is queued, and a full queue
    ///   (`queueLimit`) drops it (tail drop);
    /// - a gap that holds datagrams (`stall`, `keep`) holds it until the link is back, within
    ///   the queue limit; one that does not (`blackhole`, `reset`) drops it;
    /// - the radio admits it as it does a chunk (promotion, paging, DRX), counting its payload;
    /// - the NAT forgets an idle mapping after `udpIdleTimeout`: the server's datagrams to it
    ///   are dropped, and the phone's next datagram opens a new one (recorded as a
    ///   `nat-expiry` event either way, once a mapping).
    public mutating func sendDatagram(
        _ bytes: Int, _ direction: Direction, on flow: DatagramFlowID, mapping sentTo: Int? = nil, at time: Double
    ) -> DatagramVerdict {
        guard var state = datagramFlows[flow] else { return .drop(.oldAddress) }
        settle(through: time)
        defer { datagramFlows[flow] = state }
        switch direction {
        case .up:
            if udpMappingExpired(state, at: time) {
                recordUDPExpiry(&state, foundAt: time)
                state.number += 1
                state.expiryRecorded = false
            }
            guard let ready = gaps.datagramPassage(at: time) else { return .drop(.outage) }
            if let limit = uplink.parameters.queueLimit, uplink.backlog(at: time) + bytes > limit { return .drop(.queueFull) }
            let (admission, transmission) = putOnAir(bytes, .up, readyAt: ready, at: time, retransmissionTimeout: 0)
            let propagated = transmission.end + uplink.propagationDelay()
            if uplink.datagramLost(bytes) { return .drop(.loss) }
            let arrival = datagramFlows.delivery(propagated, .up, keepingOrder: uplink.parameters.keepsDatagramsInOrder)
            state.lastActivity = max(state.lastActivity, arrival)
            return .deliver(delivered(.up, readAt: time, at: arrival, admission, transmission, outage: ready - time), mapping: state.number)
        case .down:
            if let sentTo, sentTo != state.number { return .drop(.oldAddress) }
            if udpMappingExpired(state, at: time) {
                recordUDPExpiry(&state, foundAt: time)
                return .drop(.natExpired)
            }
            state.lastActivity = max(state.lastActivity, time)
            let propagation = downlink.propagationDelay()
            let baseDelay = downlink.parameters.delay
            let atRadio = time + min(baseDelay, propagation)
            guard let ready = gaps.datagramPassage(at: atRadio) else { return .drop(.outage) }
            if let limit = downlink.parameters.queueLimit, downlink.backlog(ahead: atRadio) + bytes > limit { return .drop(.queueFull) }
            let (admission, transmission) = putOnAir(bytes, .down, readyAt: ready, at: time, retransmissionTimeout: 0)
            if downlink.datagramLost(bytes) { return .drop(.loss) }
            let delivery = datagramFlows.delivery(
                transmission.end + max(0, propagation - baseDelay), .down, keepingOrder: downlink.parameters.keepsDatagramsInOrder)
            return .deliver(
                delivered(.down, readAt: time, at: delivery, admission, transmission, outage: ready - atRadio), mapping: state.number)
        }
    }

    private func udpMappingExpired(_ mapping: DatagramFlows.Mapping, at time: Double) -> Bool {
        guard let timeout = profile.nat?.udpIdleTimeout else { return false }
        return time - mapping.lastActivity > timeout
    }

    /// Records a UDP mapping's expiry as the TCP one is: at `time`, when a datagram found it
    /// gone, with when it went.
    private mutating func recordUDPExpiry(_ mapping: inout DatagramFlows.Mapping, foundAt time: Double) {
        guard !mapping.expiryRecorded, let timeout = profile.nat?.udpIdleTimeout else { return }
        mapping.expiryRecorded = true
        record(
            DeviceEvent(
                at: time, kind: .natExpiry, network: network.name, mode: .silent, affectedFlows: 1,
                expiredAt: mapping.lastActivity + timeout))
    }
}
