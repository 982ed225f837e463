/// A direction of travel, seen from the device: `up` is phone -> server, `down` server -> phone.
public enum Direction: String, Sendable, CaseIterable, Equatable, Hashable, Codable {
    case up, down
}

/// What one direction of an emulated link does to the bytes that cross it.
public struct LinkParameters: Sendable, Equatable, Codable {
    /// When bytes may leave: unlimited, a fixed rate, or a trace's delivery opportunities.
    public var capacity: LinkCapacity = .unlimited
    /// One-way delay added to every byte.
    public var delay: Double = 0
    public var jitter: Jitter?
    public var loss: LossModel = .none
    /// The most bytes that may wait for the link before the sender is paused (backpressure).
    /// Nil: the proxy's own per-connection buffer limit is the only bound.
    public var queueLimit: Int?

    public init(
        capacity: LinkCapacity = .unlimited, delay: Double = 0, jitter: Jitter? = nil,
        loss: LossModel = .none, queueLimit: Int? = nil
    ) {
        self.capacity = capacity
        self.delay = delay
        self.jitter = jitter
        self.loss = loss
        self.queueLimit = queueLimit
    }
}

extension LinkParameters {
    /// Whether datagrams keep their order across this link (`Jitter.reordersDatagrams`).
    /// Without jitter nothing overtakes anything: the delay is the same for every datagram.
    public var keepsDatagramsInOrder: Bool { !(jitter?.reordersDatagrams ?? true) }
}

public enum LinkCapacity: Sendable, Equatable, Codable {
    case unlimited
    /// Serialization at this many bits per second.
    case rate(bitsPerSecond: Double)
    /// Delivery opportunities read from a mahimahi-format trace.
    case trace(DeliveryTrace)
}

/// Random extra delay on top of the one-way delay. It never reorders the bytes of one
/// connection: a delivery time is never earlier than the one before it on the same connection.
public struct Jitter: Sendable, Equatable, Codable {
    public enum Distribution: String, Sendable, CaseIterable, Equatable, Codable {
        /// Uniform in [-amount, +amount] around the delay (netem's default).
        case uniform
        /// Normal with standard deviation `amount`.
        case normal
        /// Heavy-tailed, never negative: Pareto with shape 3 shifted to start at 0 and scaled so
        /// its mean is `amount` (the occasional long stall users ask toxiproxy for, #556).
        case pareto
    }

    public var amount: Double
    public var distribution: Distribution
    /// Whether UDP datagrams may overtake one another, each drawing its own delay, as netem's
    /// jitter lets them. False (the default) keeps each direction's datagrams in the order they
    /// were sent, a datagram waiting for the one before it, as a cellular link's in-order
    /// delivery does (LTE's RLC acknowledged mode, NR's PDCP reordering): real cellular links
    /// delay datagrams without reordering them, and a QUIC stack reads reordering as loss. A
    /// profile asks for reordering with `reorder: true`. A connection's bytes are never
    /// reordered either way.
    public var reordersDatagrams: Bool

    public init(amount: Double, distribution: Distribution = .uniform, reordersDatagrams: Bool = false) {
        self.amount = amount
        self.distribution = distribution
        self.reordersDatagrams = reordersDatagrams
    }

    private enum CodingKeys: String, CodingKey {
        case amount, distribution, reordersDatagrams
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        amount = try container.decode(Double.self, forKey: .amount)
        distribution = try container.decode(Distribution.self, forKey: .distribution)
        reordersDatagrams = try container.decodeIfPresent(Bool.self, forKey: .reordersDatagrams) ?? false
    }

    /// Written only when datagrams may be reordered, the exception.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(amount, forKey: .amount)
        try container.encode(distribution, forKey: .distribution)
        if reordersDatagrams { try container.encode(true, forKey: .reordersDatagrams) }
    }
}

/// Segment loss on a link. A TCP proxy cannot drop a segment, so a loss becomes the delay TCP
/// would add to recover it (see `RetransmissionPenalty`).
public enum LossModel: Sendable, Equatable, Codable {
    case none
    /// Each 1448-byte segment is lost independently with this probability.
    case independent(probability: Double)
    /// Gilbert-Elliott burst loss: a two-state Markov chain stepped once per segment.
    /// `enterBad` is P(good -> bad), `leaveBad` is P(bad -> good); each state loses segments
    /// with its own probability (netem's `loss gemodel p r 1-h 1-k`).
    case gilbertElliott(enterBad: Double, leaveBad: Double, lossInBad: Double, lossInGood: Double)
}
