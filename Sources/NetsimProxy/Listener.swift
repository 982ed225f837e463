/// One of a run's listeners as it was bound: the address it listens on and what it serves
/// there. The proxy lists its listeners in one list of these, so a caller that says where each
/// one listens reads the rule beside its address instead of pairing lists by position.
public struct Listener: Sendable, Equatable {
    /// What a listener serves: the rule it was bound for.
    public enum Role: Sendable, Equatable {
        /// A TCP forward rule: every connection goes to its upstream.
        case forward(ForwardRule)
        /// A front end: each client names its own destination in the front end's protocol.
        case frontEnd(FrontEndRule)
        /// A UDP forward rule: every flow goes to its upstream.
        case datagramForward(ForwardRule)

        /// The address the rule asks for (its port may be 0: any free one).
        public var listen: HostPort {
            switch self {
            case .forward(let rule), .datagramForward(let rule): rule.listen
            case .frontEnd(let rule): rule.listen
            }
        }
    }

    /// The address actually bound: the rule's host, and the port the system chose where the
    /// rule asked for port 0.
    public var address: HostPort
    public var role: Role

    public init(address: HostPort, role: Role) {
        self.address = address
        self.role = role
    }

    /// `role`'s listener bound on `boundPort` (the channel's local port; nil if it names none,
    /// when the rule's own port stands).
    init(_ role: Role, boundPort: Int?) {
        self.init(address: HostPort(host: role.listen.host, port: boundPort ?? role.listen.port), role: role)
    }
}
