/// When bytes may leave one direction of a link: the serializer shared by every connection of
/// the device, first in, first out. It knows nothing of which bytes wait or how long they take
/// to propagate (mahimahi keeps "when" apart from "which" the same way).
public struct LinkSchedule: Sendable {
    /// The span during which a chunk was on the link.
    public struct Transmission: Sendable, Equatable {
        public var start: Double
        public var end: Double

        public init(start: Double, end: Double) {
            self.start = start
            self.end = end
        }
    }

    private enum Kind: Sendable {
        case unlimited
        case rate(bytesPerSecond: Double)
        case trace(TraceCursor)
    }

    private var kind: Kind
    /// When the last queued byte leaves.
    public private(set) var freeAt: Double

    /// - Parameter start: when the schedule starts (a trace's time zero).
    public init(_ capacity: LinkCapacity, start: Double = 0) {
        freeAt = start
        switch capacity {
        case .unlimited: kind = .unlimited
        case .rate(let bitsPerSecond): kind = .rate(bytesPerSecond: bitsPerSecond / 8)
        case .trace(let trace): kind = .trace(TraceCursor(trace, start: start))
        }
    }

    /// Forgets what was queued from `time` on: the link is free then (a trace keeps its
    /// opportunities, the first one used being the first at or after `time`). The queue puts
    /// the bytes that still wait on it again (`LinkDirection.dropQueued`).
    public mutating func rewind(to time: Double) {
        freeAt = min(freeAt, time)
        if case .trace(var cursor) = kind {
            cursor.rewind(to: time)
            kind = .trace(cursor)
        }
    }

    /// When bytes ready at `readyAt` would start to leave: behind everything queued, and after
    /// any connectivity gap then, as TCP's retransmission gets through (a trace may give them
    /// its next opportunity a moment later).
    public func departure(readyAt: Double, gaps: ConnectivityGaps, retransmissionTimeout: Double) -> Double {
        gaps.deliverableTime(max(readyAt, freeAt), retransmissionTimeout: retransmissionTimeout)
    }

    /// Puts `bytes` that are ready at `readyAt` on the link behind everything queued before them.
    /// No byte leaves during a connectivity gap: what was due then waits for the gap's end as
    /// TCP's retransmissions would deliver it.
    public mutating func transmit(_ bytes: Int, readyAt: Double, gaps: ConnectivityGaps, retransmissionTimeout: Double) -> Transmission {
        var start = departure(readyAt: readyAt, gaps: gaps, retransmissionTimeout: retransmissionTimeout)
        switch kind {
        case .unlimited:
            freeAt = start
            return Transmission(start: start, end: start)
        case .rate(let bytesPerSecond):
            let first = start
            var remaining = Double(bytes) / bytesPerSecond
            while true {
                let end = start + remaining
                guard let gapStart = gaps.nextGapStart(after: start), gapStart < end else {
                    freeAt = end
                    return Transmission(start: first, end: end)
                }
                remaining -= gapStart - start
                start = gaps.deliverableTime(gapStart, retransmissionTimeout: retransmissionTimeout)
            }
        case .trace(var cursor):
            let transmission = cursor.transmit(bytes, readyAt: start, gaps: gaps, retransmissionTimeout: retransmissionTimeout)
            kind = .trace(cursor)
            freeAt = transmission.end
            return transmission
        }
    }
}

/// Walks a delivery trace's opportunities, repeating it forever. Each opportunity carries up to
/// 1500 bytes on the wire of whatever is queued, headers included, so a full segment's 1448
/// bytes of payload fill one (mahimahi counts whole packets against its slots); an opportunity
/// with nothing queued is wasted, and one left partly used may carry the next chunk's first
/// bytes if that chunk was ready in time.
struct TraceCursor: Sendable {
    private let opportunities: [UInt32]
    private let periodMs: Double
    private let origin: Double
    /// The next unused opportunity, counted across repetitions.
    private var nextIndex = 0
    /// The opportunity last used and the bytes it has left.
    private var partialTime = -Double.infinity
    private var partialBytes = 0

    init(_ trace: DeliveryTrace, start: Double) {
        opportunities = trace.opportunitiesMs
        periodMs = Double(trace.opportunitiesMs.last!)
        origin = start
    }

    private func time(ofOpportunity index: Int) -> Double {
        let (cycle, offset) = index.quotientAndRemainder(dividingBy: opportunities.count)
        return origin + (Double(cycle) * periodMs + Double(opportunities[offset])) / 1000
    }

    /// The first opportunity at or after `time`, no earlier than `nextIndex`.
    private func firstOpportunity(atOrAfter time: Double) -> Int {
        if self.time(ofOpportunity: nextIndex) >= time { return nextIndex }
        let milliseconds = (time - origin) * 1000
        let cycle = max(0, Int((milliseconds / periodMs).rounded(.down)))
        let target = milliseconds - Double(cycle) * periodMs
        // Binary search for the first offset in the cycle at or after the target.
        var low = 0
        var high = opportunities.count
        while low < high {
            let middle = (low + high) / 2
            if Double(opportunities[middle]) < target { low = middle + 1 } else { high = middle }
        }
        var index = cycle * opportunities.count + low
        while self.time(ofOpportunity: index) < time { index += 1 }
        return max(index, nextIndex)
    }

    /// Frees the opportunities from `time` on: the next chunk may use the first at or after it.
    mutating func rewind(to time: Double) {
        partialBytes = 0
        partialTime = -Double.infinity
        nextIndex = 0
        nextIndex = firstOpportunity(atOrAfter: time)
    }

    mutating func transmit(
        _ bytes: Int, readyAt: Double, gaps: ConnectivityGaps, retransmissionTimeout: Double
    ) -> LinkSchedule.Transmission {
        var remaining = TCPSegmentation.wireBytes(bytes)
        var start: Double?
        var end = readyAt
        if partialBytes > 0, partialTime >= readyAt {
            let taken = min(partialBytes, remaining)
            partialBytes -= taken
            remaining -= taken
            start = partialTime
            end = partialTime
        }
        var earliest = readyAt
        while remaining > 0 {
            let index = firstOpportunity(atOrAfter: earliest)
            let at = time(ofOpportunity: index)
            if gaps.gap(containing: at) != nil {
                // The link is down: skip to when the bytes get through after the gap.
                earliest = gaps.deliverableTime(at, retransmissionTimeout: retransmissionTimeout)
                nextIndex = index
                continue
            }
            let taken = min(DeliveryTrace.bytesPerOpportunity, remaining)
            remaining -= taken
            if start == nil { start = at }
            end = at
            nextIndex = index + 1
            partialTime = at
            partialBytes = DeliveryTrace.bytesPerOpportunity - taken
        }
        return LinkSchedule.Transmission(start: start ?? readyAt, end: end)
    }
}
