/// One emulated device's network over time: the networks it can be on, where it starts, the
/// carrier NAT in front of it, and a timeline of scripted events. See profiles/README.md.
public struct Profile: Sendable, Equatable, Codable {
    public var name: String
    public var description: String
    /// The networks in the order the profile lists them; names are unique.
    public var networks: [Network]
    /// The name of the network the device starts on.
    public var start: String
    public var nat: NATPolicy?
    public var timeline: Timeline

    public init(
        name: String, description: String, networks: [Network], start: String,
        nat: NATPolicy? = nil, timeline: Timeline = Timeline()
    ) {
        self.name = name
        self.description = description
        self.networks = networks
        self.start = start
        self.nat = nat
        self.timeline = timeline
    }

    public func network(named name: String) -> Network? {
        networks.first { $0.name == name }
    }

    /// A profile with no shaping at all: the proxy as a plain relay.
    public static let passThrough = Profile(
        name: "pass-through", description: "No radio, no shaping: a plain relay.",
        networks: [Network(name: "wire", radio: .none, up: LinkParameters(), down: LinkParameters())],
        start: "wire")
}

/// A network the device can be attached to: its radio and one link per direction.
public struct Network: Sendable, Equatable, Codable {
    public var name: String
    public var radio: RadioParameters
    public var up: LinkParameters
    public var down: LinkParameters

    public init(name: String, radio: RadioParameters, up: LinkParameters, down: LinkParameters) {
        self.name = name
        self.radio = radio
        self.up = up
        self.down = down
    }

    public func link(_ direction: Direction) -> LinkParameters {
        direction == .up ? up : down
    }
}

/// A carrier NAT that forgets idle mappings: TCP connections after `idleTimeout`, UDP flows
/// after `udpIdleTimeout` (carriers forget UDP far sooner: 30 s to a few minutes, RFC 4787
/// REQ-5 asks for at least 2 min; ../shared/reference/keepalive.md).
public struct NATPolicy: Sendable, Equatable, Codable {
    public enum ExpiryMode: String, Sendable, CaseIterable, Equatable, Codable {
        /// Later bytes from either side go nowhere and nobody is told (most carrier NATs).
        case silent
        /// Later bytes are answered with a RST (some middleboxes).
        case reset
    }

    /// A TCP connection with no bytes either way for longer than this loses its mapping; nil:
    /// TCP mappings are kept.
    public var idleTimeout: Double?
    /// What a TCP connection whose mapping expired sees.
    public var mode: ExpiryMode
    /// A UDP flow with no datagram either way for longer than this loses its mapping: the
    /// server's datagrams are dropped, and the phone's next one gets a new mapping, which the
    /// server sees as a new source port. nil: UDP mappings are kept.
    public var udpIdleTimeout: Double?

    public init(idleTimeout: Double?, mode: ExpiryMode = .silent, udpIdleTimeout: Double? = nil) {
        self.idleTimeout = idleTimeout
        self.udpIdleTimeout = udpIdleTimeout
        self.mode = mode
    }
}

extension NATPolicy {
    /// One line for `netsim profiles list`: the TCP timeout and mode, then the UDP timeout.
    public var summary: String {
        var parts: [String] = []
        if let idleTimeout { parts.append("\(Quantity.formatDuration(idleTimeout)) \(mode.rawValue)") }
        if let udpIdleTimeout { parts.append("udp \(Quantity.formatDuration(udpIdleTimeout))") }
        return parts.joined(separator: ", ")
    }
}
