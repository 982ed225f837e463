#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// An IPv4 or IPv6 address as its network-order bytes (4 or 16). An IPv4-mapped IPv6 address
/// (`::ffff:10.0.0.1`, what a dual-stack socket reports for an IPv4 peer) is its IPv4 address.
public struct IPAddressBytes: Sendable, Hashable {
    public let bytes: [UInt8]

    public init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let all = withUnsafeBytes(of: &v6) { Array($0) }
        bytes = all[0..<12].elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]) ? Array(all[12...]) : all
    }

    public var isLoopback: Bool {
        bytes.count == 4 ? bytes[0] == 127 : bytes == [UInt8](repeating: 0, count: 15) + [1]
    }

    /// `0.0.0.0/8` or `::`: connecting to it reaches this host (Linux and macOS route it to
    /// loopback), so a destination there is a loopback destination.
    var isUnspecified: Bool {
        bytes.count == 4 ? bytes[0] == 0 : bytes.allSatisfy { $0 == 0 }
    }

    /// `169.254.0.0/16` or `fe80::/10`: a link's own addresses, where cloud metadata services
    /// and unconfigured devices answer.
    var isLinkLocal: Bool {
        bytes.count == 4 ? bytes[0] == 169 && bytes[1] == 254 : bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
    }

    /// Loopback, link-local or unspecified: what only this host or its own link should reach,
    /// and so what a front end that listens beyond loopback refuses by default.
    var isLocal: Bool { isLoopback || isUnspecified || isLinkLocal }
}

/// A CIDR block, `10.0.0.0/8` or `fd00::/8`; a bare address is a block of one.
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    public let address: IPAddressBytes
    public let prefixLength: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let address = IPAddressBytes(parts[0]) else { return nil }
        let bits = address.bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...bits).contains(length) else { return nil }
            // An IPv4-mapped block (`::ffff:10.0.0.0/104`) counts in IPv4 bits.
            prefixLength = parts[0].contains(":") && bits == 32 ? length - 96 : length
            guard prefixLength >= 0 else { return nil }
        } else {
            prefixLength = bits
        }
        self.address = address
    }

    public func contains(_ candidate: IPAddressBytes) -> Bool {
        guard candidate.bytes.count == address.bytes.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(address.bytes, candidate.bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            guard mine & mask == theirs & mask else { return false }
            remaining -= 8
        }
        return true
    }

    public var description: String {
        let separator = address.bytes.count == 4 ? "." : ":"
        let text =
            address.bytes.count == 4
            ? address.bytes.map { "\($0)" }.joined(separator: separator)
            : stride(from: 0, to: 16, by: 2).map { String(UInt16(address.bytes[$0]) << 8 | UInt16(address.bytes[$0 + 1]), radix: 16) }
                .joined(separator: separator)
        return "\(text)/\(prefixLength)"
    }
}

/// Where a front end's clients may go: `api.example.com`, `*.example.com` (any name under it,
/// not the name itself), an IP address or a CIDR block, each with an optional `:PORT` (an IPv6
/// address or block with a port in brackets: `[fd00::/8]:443`). A name pattern matches the name the client asked for; an
/// address pattern matches the address the destination resolved to.
public struct DestinationPattern: Sendable, Equatable, CustomStringConvertible {
    public enum Host: Sendable, Equatable {
        case name(String)
        case subdomains(of: String)
        case network(IPNetwork)
    }

    public let host: Host
    public let port: Int?
    public let description: String

    public init?(_ text: String) {
        description = text
        var hostText = text
        var portText: Substring?
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            hostText = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.lastIndex(of: ":") {
            hostText = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else { return nil }
            self.port = port
        } else {
            port = nil
        }
        if let network = IPNetwork(hostText) {
            host = .network(network)
        } else if hostText.hasPrefix("*."), let name = Self.hostName(String(hostText.dropFirst(2))) {
            host = .subdomains(of: name)
        } else if let name = Self.hostName(hostText) {
            host = .name(name)
        } else {
            return nil
        }
    }

    /// Whether the pattern allows `name` (as the client gave it; nil for an address) at
    /// `address` (nil before resolution) and `port`. An address pattern cannot match before
    /// resolution.
    func matches(name: String?, address: IPAddressBytes?, port: Int) -> Bool {
        if let allowedPort = self.port, allowedPort != port { return false }
        switch host {
        case .name(let allowed): return name.map(Self.normalized) == allowed
        case .subdomains(let parent): return name.map(Self.normalized)?.hasSuffix("." + parent) ?? false
        case .network(let network): return address.map(network.contains) ?? false
        }
    }

    /// Whether the pattern names this destination itself, as opening a local address takes:
    /// an address or block holding `address`, or exactly the name the client asked for.
    func names(name: String?, address: IPAddressBytes, port: Int) -> Bool {
        if let allowedPort = self.port, allowedPort != port { return false }
        switch host {
        case .name(let allowed): return name.map(Self.normalized) == allowed
        case .subdomains: return false
        case .network(let network): return network.contains(address)
        }
    }

    /// A lowercased name without a trailing dot, if it is a host name (`HostName`).
    private static func hostName(_ text: String) -> String? {
        HostName.isValid(text) ? normalized(text) : nil
    }

    static func normalized(_ name: String) -> String {
        let lowered = name.lowercased()
        return lowered.hasSuffix(".") ? String(lowered.dropLast()) : lowered
    }
}

/// Host names as RFC 1123 writes them: dot-separated labels of ASCII letters, digits and
/// hyphens (not first or last), each 1 to 63 characters, at most 253 in all, with an optional
/// trailing dot. A name
/// a client sends that is not one (a NUL, a space, a control character, a non-ASCII letter) is
/// refused before any rule or resolver sees it: `localhost\0.example.com` would match
/// `*.example.com` and then resolve as `localhost`.
public enum HostName {
    public static func isValid(_ text: String) -> Bool {
        let name = text.hasSuffix(".") ? text.utf8.dropLast() : text.utf8[...]
        guard !name.isEmpty, name.count <= 253 else { return false }
        return name.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.count) && label.allSatisfy(isLabelByte) && label.first != UInt8(ascii: "-")
                && label.last != UInt8(ascii: "-")
        }
    }

    private static func isLabelByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"):
            true
        default: false
        }
    }
}

/// One of netsim's own listening sockets (a forward rule, a front end, the admin API): never a
/// front end's destination, so that a proxy client cannot drive the admin API or loop the
/// proxy into itself.
public struct OwnListener: Sendable, Equatable {
    public var address: IPAddressBytes
    public var port: Int

    public init(address: IPAddressBytes, port: Int) {
        self.address = address
        self.port = port
    }
}

/// Who may use the proxy front ends and where they may go: the one place that decides it.
///
/// A destination is refused, whatever `allowTo` says, when it is one of netsim's own listeners
/// (`ownListeners`, at any of this host's addresses). When a front end listens beyond loopback
/// (`refusesLocalDestinations`), loopback, link-local and unspecified destinations are refused
/// too unless an `allowTo` pattern names them: an address or block that holds the address, or
/// the exact name the client asked for (a `*.DOMAIN` pattern does not, so that a name under it
/// that resolves to 127.0.0.1 stays refused). Everything is checked against the address
/// actually dialed, after resolution.
public struct AccessPolicy: Sendable, Equatable {
    /// Clients outside every block are closed at once; empty: loopback clients only.
    public var allowFrom: [IPNetwork]
    /// Destinations a front end may dial; empty: anywhere (but see `refusesLocalDestinations`).
    public var allowTo: [DestinationPattern]
    /// Refuse loopback, link-local and unspecified destinations that `allowTo` does not name.
    public var refusesLocalDestinations: Bool
    /// netsim's own listening sockets, added as they are bound.
    public var ownListeners: [OwnListener] = []
    /// This host's interface addresses: a destination at one of them reaches the host itself.
    public var hostAddresses: [IPAddressBytes] = []

    public init(allowFrom: [IPNetwork] = [], allowTo: [DestinationPattern] = [], refusesLocalDestinations: Bool = false) {
        self.allowFrom = allowFrom
        self.allowTo = allowTo
        self.refusesLocalDestinations = refusesLocalDestinations
    }

    /// Whether a client at `address` may connect: loopback always, others only inside an
    /// `allowFrom` block.
    public func admits(client address: IPAddressBytes) -> Bool {
        address.isLoopback || allowFrom.contains { $0.contains(address) }
    }

    /// Why a destination is refused.
    public enum Refusal: Sendable, Equatable, CustomStringConvertible {
        /// No `allowTo` pattern allows it.
        case notAllowed
        /// It is one of netsim's own listeners.
        case ownListener
        /// Loopback, link-local or unspecified, while a front end listens beyond loopback.
        case localDestination

        public var description: String {
            switch self {
            case .notAllowed: "not allowed by --allow-to"
            case .ownListener: "one of netsim's own listeners (a forward rule, a front end or the admin API)"
            case .localDestination:
                "a loopback or link-local address, refused while a front end listens beyond loopback unless --allow-to names it"
            }
        }
    }

    /// What the policy says of a destination.
    public enum Decision: Sendable, Equatable {
        case allowed
        case refused(Refusal)
        /// A name whose address is not known yet: ask again with the address it resolved to.
        case needsAddress
    }

    /// The decision for a destination the client named (`name` nil for an address given as
    /// one) at `address` (nil before a name is resolved) and `port`. Before resolution only a
    /// refusal is final: a name no `allowTo` pattern can allow is refused without a lookup.
    public func decision(name: String?, address: IPAddressBytes?, port: Int) -> Decision {
        guard let address else {
            let couldBeAllowed =
                allowTo.isEmpty
                || allowTo.contains {
                    if case .network = $0.host { return $0.port == nil || $0.port == port }
                    return $0.matches(name: name, address: nil, port: port)
                }
            return couldBeAllowed ? .needsAddress : .refused(.notAllowed)
        }
        if reachesOwnListener(address, port: port) { return .refused(.ownListener) }
        if refusesLocalDestinations, address.isLocal, !allowTo.contains(where: { $0.names(name: name, address: address, port: port) }) {
            return .refused(.localDestination)
        }
        if !allowTo.isEmpty, !allowTo.contains(where: { $0.matches(name: name, address: address, port: port) }) {
            return .refused(.notAllowed)
        }
        return .allowed
    }

    /// Whether dialing `address:port` could reach one of netsim's own listeners: the port is
    /// one of theirs and the address is this host (the listener's own address, loopback,
    /// unspecified, or any interface address, since a listener on `0.0.0.0` answers on all).
    private func reachesOwnListener(_ address: IPAddressBytes, port: Int) -> Bool {
        ownListeners.contains { listener in
            listener.port == port
                && (listener.address == address || address.isLoopback || address.isUnspecified || hostAddresses.contains(address))
        }
    }
}
