/// What became of a run's UDP datagrams (`netsim run --udp-forward`): the report's
/// `datagrams`, absent from a run that carried none.
public struct DatagramFigures: Sendable, Codable, Equatable {
    /// UDP flows opened (a client address and port each).
    public var flows = 0
    /// Times a flow's next datagram left on a new NAT mapping (the server saw a new source
    /// port): after the NAT forgot the old one, or after a handover changed the phone's address.
    public var remappings = 0
    /// Each direction's datagrams, encoded as `up` and `down` beside `flows`.
    public var counts = PerDirection(up: DatagramCounts(), down: DatagramCounts())

    public init() {}

    private enum CodingKeys: String, CodingKey {
        case flows, remappings, up, down
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        flows = try container.decode(Int.self, forKey: .flows)
        remappings = try container.decode(Int.self, forKey: .remappings)
        counts = PerDirection(
            up: try container.decode(DatagramCounts.self, forKey: .up), down: try container.decode(DatagramCounts.self, forKey: .down))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(flows, forKey: .flows)
        try container.encode(remappings, forKey: .remappings)
        try container.encode(counts.up, forKey: .up)
        try container.encode(counts.down, forKey: .down)
    }

    /// Counts one datagram's fate.
    public mutating func count(_ bytes: Int, _ direction: Direction, droppedBy drop: DatagramDrop?) {
        counts[direction].sent += 1
        if let drop {
            counts[direction].dropped[drop, default: 0] += 1
        } else {
            counts[direction].delivered += 1
            counts[direction].bytesDelivered += bytes
        }
    }
}

/// One direction's datagrams.
public struct DatagramCounts: Sendable, Codable, Equatable {
    /// Datagrams read from the sender.
    public var sent = 0
    /// Datagrams delivered to the other side, and their payload bytes.
    public var delivered = 0
    public var bytesDelivered = 0
    /// Datagrams that never arrived, by why.
    public var dropped: [DatagramDrop: Int] = [:]

    public init() {}
}
