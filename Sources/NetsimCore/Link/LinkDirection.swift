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
    /// Chunks queued for serialization and not yet gone, oldest first: the backlog, and what
    /// a link change or a reset puts on the link again.
    private var queued = LinkQueue()

    public init(_ parameters: LinkParameters, random: SeededRandom, start: Double = 0) {
        self.parameters = parameters
        self.schedule = LinkSchedule(parameters.capacity, start: start)
        self.random = random
    }

    /// Applies new parameters from `time` on (a `set` event, its undo, a handover). A new
    /// capacity applies to the bytes already queued too, as a real link's would: what has not
    /// left by `time` leaves at the new rate from then, in the same order (`requeue`). Returns
    /// the deliveries that moved.
    public mutating func update(
        _ newParameters: LinkParameters, at time: Double, gaps: ConnectivityGaps, retransmissionTimeout: Double
    ) -> [RetimedChunk] {
        let capacityChanged = newParameters.capacity != parameters.capacity
        parameters = newParameters
        guard capacityChanged else { return [] }
        schedule = LinkSchedule(newParameters.capacity, start: time)
        return requeue(at: time, gaps: gaps, retransmissionTimeout: retransmissionTimeout) { _ in true }
    }

    /// Takes the bytes of `connections` (reset or silenced: they will never be delivered) out
    /// of the queue at `time`, so that they no longer hold up the other connections' bytes,
    /// which leave from then as if the dead ones had never been queued. Returns the deliveries
    /// that moved.
    public mutating func dropQueued(
        of connections: Set<ConnectionID>, at time: Double, gaps: ConnectivityGaps, retransmissionTimeout: Double
    ) -> [RetimedChunk] {
        queued.removeDeparted(before: time)
        guard queued.holds(any: connections) else { return [] }
        schedule.rewind(to: time)
        return requeue(at: time, gaps: gaps, retransmissionTimeout: retransmissionTimeout) { chunk in
            chunk.connection.map(connections.contains) != true
        }
    }

    /// Puts the chunks still queued at `time` that `keeps` on the link again, oldest first, on
    /// `schedule` as it is from `time`: a chunk partly gone by then has only its rest to send.
    /// Each connection's moved deliveries stay in order, behind its chunks already gone and on
    /// their way too (each chunk's `floor`), and later chunks queue behind them.
    private mutating func requeue(
        at time: Double, gaps: ConnectivityGaps, retransmissionTimeout: Double, keeping keeps: (LinkQueue.Chunk) -> Bool
    ) -> [RetimedChunk] {
        queued.removeDeparted(before: time)
        var retimed: [RetimedChunk] = []
        var latest: [ConnectionID: Double] = [:]
        for var chunk in queued.removeAll() where keeps(chunk) {
            var rest = chunk.bytes
            if chunk.start < time, chunk.end > chunk.start {
                rest = Int((Double(chunk.bytes) * (chunk.end - time) / (chunk.end - chunk.start)).rounded(.up))
            }
            let transmission = schedule.transmit(
                rest, readyAt: max(time, chunk.ready), gaps: gaps, retransmissionTimeout: retransmissionTimeout)
            chunk.start = min(chunk.start, transmission.start)
            chunk.end = transmission.end
            if let connection = chunk.connection {
                // The previous chunk's delivery: moved in this loop if it was queued too, as it
                // was otherwise.
                chunk.floor = latest[connection] ?? chunk.floor
                let arrival = max(chunk.end + chunk.delayAfterEnd, chunk.floor)
                latest[connection] = arrival
                lastDelivery[connection] = arrival
                retimed.append(RetimedChunk(connection: connection, deliveredAt: arrival))
            }
            queued.append(chunk)
        }
        return retimed
    }

    /// When a chunk ready at `readyAt` would start to leave (see `LinkSchedule.departure`).
    public func departure(readyAt: Double, gaps: ConnectivityGaps, retransmissionTimeout: Double) -> Double {
        schedule.departure(readyAt: readyAt, gaps: gaps, retransmissionTimeout: retransmissionTimeout)
    }

    /// Serializes a chunk behind everything queued (see `LinkSchedule.transmit`). What has left
    /// by `time`, the model's clock, is dropped from the queue here, not only when someone asks
    /// for the backlog, so the queue holds what is in flight and no more, however long the run.
    /// Not by `readyAt`, which may be well after the call (a promotion, an outage's
    /// retransmission, a wake for a queue an outage stalled): the chunks ahead of it are still
    /// queued until then, and a link change in between must move them.
    public mutating func serialize(
        _ bytes: Int, readyAt: Double, at time: Double, gaps: ConnectivityGaps, retransmissionTimeout: Double
    ) -> LinkSchedule.Transmission {
        let transmission = schedule.transmit(bytes, readyAt: readyAt, gaps: gaps, retransmissionTimeout: retransmissionTimeout)
        queued.removeDeparted(before: time)
        queued.append(.init(ready: readyAt, start: transmission.start, end: transmission.end, bytes: bytes))
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

    /// When the chunk serialized last, on `connection`, is delivered if on its own it would
    /// arrive at `arrival`: never before the connection's previous delivery, so jitter and
    /// retransmissions delay bytes but never reorder them. The chunk keeps both, so that a
    /// later `update` or `dropQueued` can move its delivery and still keep it in order.
    public mutating func deliverLastChunkInOrder(on connection: ConnectionID, arrivingAt arrival: Double) -> Double {
        // One lookup: the model engine sends millions of chunks, and hashing the id was a tenth
        // of its time.
        var previous = -Double.infinity
        let delivery = lastDelivery[connection, default: -.infinity].raise(to: arrival, from: &previous)
        queued.lastBelongs(to: connection, arrivingAt: arrival, after: previous)
        return delivery
    }

    /// Bytes queued and not yet serialized at `time`, the model's clock.
    public mutating func backlog(at time: Double) -> Int {
        queued.removeDeparted(before: time)
        return queued.bytes
    }

    /// Bytes still queued at `time`, a moment ahead of the model's clock (where a datagram
    /// reaches the queue after its one-way delay), forgetting nothing: a link change before
    /// `time` must still find what departs by then.
    public func backlog(ahead time: Double) -> Int {
        queued.bytes(departingAfter: time)
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

/// A connection's chunk whose delivery a link change or a reset moved: it now arrives at
/// `deliveredAt`.
public struct RetimedChunk: Sendable, Equatable {
    public var connection: ConnectionID
    public var deliveredAt: Double
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

extension Double {
    /// Becomes `value` if that is later, and returns what it is then; `before` gets what it
    /// was.
    mutating func raise(to value: Double, from before: inout Double) -> Double {
        before = self
        self = Swift.max(self, value)
        return self
    }
}
