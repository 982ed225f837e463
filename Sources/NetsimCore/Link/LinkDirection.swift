/// Identifies one proxied connection within a device.
public typealias ConnectionID = UInt64

/// One direction of a device's link: the shared serializer (`LinkSchedule`), then what each
/// chunk waits on its way (one-way delay, jitter, the retransmission delay of a lost segment),
/// kept in order per connection.
public struct LinkDirection: Sendable {
    /// Linux's minimum RTO; a retransmission timeout is about the RTT plus this.
    public static let minimumRetransmissionTimeout = 0.2

    public private(set) var parameters: LinkParameters
    private var schedule: LinkSchedule
    private var random: SeededRandom
    private var inBadLossState = false
    private var lastDelivery = ConnectionTable<Double>()
    /// Chunks queued for serialization and not yet gone, oldest first, for the backlog.
    private var queued = BoundedFIFO()

    public init(_ parameters: LinkParameters, random: SeededRandom, start: Double = 0) {
        self.parameters = parameters
        self.schedule = LinkSchedule(parameters.capacity, start: start)
        self.random = random
    }

    /// Applies new parameters from `time` on (a `set` event or a handover). A new capacity
    /// starts after what is already queued.
    public mutating func update(_ newParameters: LinkParameters, at time: Double) {
        if newParameters.capacity != parameters.capacity {
            schedule = LinkSchedule(newParameters.capacity, start: max(time, schedule.freeAt))
        }
        parameters = newParameters
    }

    /// Serializes a chunk behind everything queued (see `LinkSchedule.transmit`). What has left
    /// by then is dropped from the queue here, not only when someone asks for the backlog, so
    /// the queue holds what is in flight and no more, however long the run.
    public mutating func serialize(
        _ bytes: Int, readyAt: Double, gaps: ConnectivityGaps, retransmissionTimeout: Double
    ) -> LinkSchedule.Transmission {
        let transmission = schedule.transmit(bytes, readyAt: readyAt, gaps: gaps, retransmissionTimeout: retransmissionTimeout)
        queued.removeDeparted(before: readyAt)
        queued.append(end: transmission.end, bytes: bytes)
        return transmission
    }

    /// One draw of the one-way delay with jitter, never negative.
    public mutating func propagationDelay() -> Double {
        guard let jitter = parameters.jitter, jitter.amount > 0 else { return parameters.delay }
        let extra: Double
        switch jitter.distribution {
        case .uniform:
            extra = (random.unitInterval() * 2 - 1) * jitter.amount
        case .normal:
            extra = random.standardNormal() * jitter.amount
        case .pareto:
            // Shape 3, shifted to start at 0: mean = scale / 2, so scale = 2 * amount.
            extra = 2 * jitter.amount * (pow(1 - random.unitInterval(), -1.0 / 3) - 1)
        }
        return max(0, parameters.delay + extra)
    }

    /// The delay TCP adds to recover the chunk's lost segments: a fast retransmit (about one
    /// RTT) for a segment with more behind it, a timeout (RTO) for the chunk's last segment,
    /// which has nothing behind it to trigger duplicate ACKs.
    public mutating func retransmissionDelay(_ bytes: Int, roundTrip: Double, retransmissionTimeout: Double) -> Double {
        let segments = TCPSegmentation.segments(bytes)
        var delay = 0.0
        for segment in 0..<segments where packetLost() {
            delay += segment == segments - 1 ? retransmissionTimeout : roundTrip
        }
        return delay
    }

    /// Whether a datagram of `bytes` is lost: it is if any of its IP fragments is (one draw a
    /// fragment, every fragment drawn, so the loss model's state moves as the packets do).
    public mutating func datagramLost(_ bytes: Int) -> Bool {
        var lost = false
        for _ in 0..<UDPDatagram.fragments(bytes) where packetLost() { lost = true }
        return lost
    }

    /// One packet's draw of the loss model: independent, or the Gilbert-Elliott chain stepped
    /// once. Draws nothing where loss is off.
    private mutating func packetLost() -> Bool {
        switch parameters.loss {
        case .none:
            return false
        case .independent(let probability):
            return probability > 0 && random.unitInterval() < probability
        case .gilbertElliott(let enterBad, let leaveBad, let lossInBad, let lossInGood):
            if inBadLossState {
                if random.unitInterval() < leaveBad { inBadLossState = false }
            } else if random.unitInterval() < enterBad {
                inBadLossState = true
            }
            return random.unitInterval() < (inBadLossState ? lossInBad : lossInGood)
        }
    }

    /// The delivery time on `connection`: never before the connection's previous delivery,
    /// so jitter and retransmissions delay bytes but never reorder them.
    public mutating func deliveryInOrder(on connection: ConnectionID, at time: Double) -> Double {
        // One lookup: the model engine sends millions of chunks, and hashing the id was a tenth
        // of its time.
        return lastDelivery[connection, default: -.infinity].raise(to: time)
    }

    /// Bytes queued and not yet serialized at `time`.
    public mutating func backlog(at time: Double) -> Int {
        queued.removeDeparted(before: time)
        return queued.bytes
    }

    /// When the backlog is first under `limit` bytes, from `time` on (`time` itself if it
    /// already is), as what is queued now departs.
    public mutating func timeBacklogBelow(_ limit: Int, at time: Double) -> Double {
        queued.removeDeparted(before: time)
        return queued.departureTime(leavingBelow: limit) ?? time
    }

    public mutating func forget(_ connection: ConnectionID) {
        lastDelivery[connection] = nil
    }
}

/// A first-in first-out list of (departure time, bytes), trimmed as chunks depart. It holds
/// only what is queued on the link, which the proxy's backpressure keeps bounded.
struct BoundedFIFO: Sendable {
    private var entries: [(end: Double, bytes: Int)] = []
    private var head = 0
    private(set) var bytes = 0

    mutating func append(end: Double, bytes count: Int) {
        entries.append((end, count))
        bytes += count
    }

    /// When the bytes still queued fall under `limit` as entries depart in order; nil if they
    /// already are.
    func departureTime(leavingBelow limit: Int) -> Double? {
        var remaining = bytes
        for entry in entries[head...] {
            if remaining < limit { return nil }
            remaining -= entry.bytes
            if remaining < limit { return entry.end }
        }
        return nil
    }

    mutating func removeDeparted(before time: Double) {
        while head < entries.count, entries[head].end <= time {
            bytes -= entries[head].bytes
            head += 1
        }
        if head > 1024, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

extension Double {
    /// Becomes `value` if that is later, and returns what it is then.
    mutating func raise(to value: Double) -> Double {
        self = Swift.max(self, value)
        return self
    }
}
