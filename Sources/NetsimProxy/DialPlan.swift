/// What dialing a front end's destination takes, decided without I/O: the steps of
/// `EmulatedDevice.dial`, tested apart from its sockets and resolver.
///
/// A destination given as an address is decided on at once. A name is decided on twice: before
/// it is looked up (a name no `--allow-to` rule can allow is refused without a lookup, so a
/// refused client learns nothing from the resolver's timing), and on the address it resolved
/// to, which is what is dialed (a name that resolves to netsim's own listener, or to loopback
/// when the front end refuses local destinations, is refused then).
struct DialPlan {
    let destination: HostPort
    let access: AccessPolicy

    enum Step: Equatable {
        case refuse(DialRefusal)
        /// Dial this address.
        case connect(IPAddressBytes)
        /// Look the name up (across the emulated link, and for real), then `afterLookup`.
        case lookUp(name: String)
    }

    /// The first step.
    var first: Step {
        let literal = IPAddressBytes(destination.host)
        if case .refused(let why) = access.decision(name: literal == nil ? destination.host : nil, address: literal, port: destination.port)
        {
            return .refuse(.notAllowed(why))
        }
        guard let literal else { return .lookUp(name: destination.host) }
        return .connect(literal)
    }

    /// The step once the name was looked up: `resolved` is the address it resolved to, nil if
    /// it did not.
    func afterLookup(resolvedTo resolved: IPAddressBytes?) -> Step {
        guard let resolved else { return .refuse(.unresolvable) }
        if case .refused(let why) = access.decision(name: destination.host, address: resolved, port: destination.port) {
            return .refuse(.notAllowed(why))
        }
        return .connect(resolved)
    }
}

/// What a front end finds a destination's address for: a refusal's log line names it.
enum DialPurpose: String {
    case connection = "a connection"
    case datagrams = "datagrams"
}
