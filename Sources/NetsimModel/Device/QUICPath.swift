import NetsimCore

/// What the model engine keeps of one QUIC connection besides its `ModelLink`: where the
/// server sends, the order its streams hand data over in, and the round-trip estimate its
/// loss recovery waits on. A value with time as input, tested on its own.
struct QUICPath: Sendable {
    /// The NAT mapping the server last heard the client from: it sends there.
    var serverMapping = 0
    /// When the client's first flight went out, for the round-trip sample the server's answer gives.
    let openedAt: Double
    /// When the client's last PING went out, for the sample its ACK gives.
    var pingSentAt: Double?
    private(set) var roundTrip = RoundTripEstimate()
    /// Stream data in order: the next sequence number to give a packet and to hand over, and
    /// the packets that arrived ahead of a lost one (by sequence, their keys), per direction.
    private var nextSequence = PerDirection(up: UInt64(0), down: UInt64(0))
    private var nextHandOver = PerDirection(up: UInt64(0), down: UInt64(0))
    private var ahead = PerDirection<[UInt64: UInt64]>(up: [:], down: [:])

    init(openedAt: Double) {
        self.openedAt = openedAt
    }

    /// The place in its direction's stream order of a packet that carries stream data.
    mutating func sequence(_ direction: Direction) -> UInt64 {
        defer { nextSequence[direction] += 1 }
        return nextSequence[direction]
    }

    /// The packet `key` with stream data `sequence` arrived: the keys of the packets the
    /// receiver hands over now, in order (none while an earlier one is missing; this one and
    /// those that waited behind it once it is not).
    mutating func arrived(sequence: UInt64, key: UInt64, _ direction: Direction) -> [UInt64] {
        guard sequence == nextHandOver[direction] else {
            ahead[direction][sequence] = key
            return []
        }
        var handedOver = [key]
        nextHandOver[direction] += 1
        while let next = ahead[direction].removeValue(forKey: nextHandOver[direction]) {
            handedOver.append(next)
            nextHandOver[direction] += 1
        }
        return handedOver
    }

    /// Packets that arrived and wait for an earlier one, both ways.
    var waiting: Int { ahead.up.count + ahead.down.count }

    mutating func sample(roundTrip seconds: Double) {
        roundTrip.add(seconds)
    }
}

/// RFC 9002's round-trip estimate (section 5.3) and probe timeout (section 6.2.1), with the
/// starting values aioquic and quic-go use: 100 ms before any sample, and a first probe timeout
/// of twice that.
struct RoundTripEstimate: Sendable, Equatable {
    static let initial = 0.1
    /// The peer's `max_ack_delay` when it sends none (RFC 9000 section 18.2).
    static let maxAckDelay = 0.025
    /// RFC 9002's kGranularity.
    static let granularity = 0.001

    private(set) var smoothed: Double?
    private(set) var variation = 0.0

    mutating func add(_ sample: Double) {
        guard let smoothed else {
            self.smoothed = sample
            variation = sample / 2
            return
        }
        variation = 0.75 * variation + 0.25 * abs(smoothed - sample)
        self.smoothed = 0.875 * smoothed + 0.125 * sample
    }

    /// How long a sender waits for an acknowledgement before it sends again; doubled for each
    /// probe in a row that went unanswered (`probes`).
    func probeTimeout(afterProbes probes: Int) -> Double {
        let base = smoothed.map { $0 + max(4 * variation, Self.granularity) + Self.maxAckDelay } ?? 2 * Self.initial
        return base * Double(1 << min(probes, 30))
    }
}
