#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// An IPv4 or IPv6 address as its network-order bytes (4 or 16). An IPv4-mapped IPv6 address
/// (`::ffff:10.0.0.1`, what a dual-stack socket reports for an IPv4 peer) is its IPv4 address.
public struct IPAddressBytes: Sendable, Equatable {
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

    /// A lowercased name without a trailing dot, if it is one: letters, digits, `-` and `.`.
    private static func hostName(_ text: String) -> String? {
        let name = normalized(text)
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }),
            !name.hasPrefix("."), !name.contains("..")
        else { return nil }
        return name
    }

    private static func normalized(_ name: String) -> String {
        let lowered = name.lowercased()
        return lowered.hasSuffix(".") ? String(lowered.dropLast()) : lowered
    }
}

/// Who may use the proxy front ends and where they may go.
public struct AccessPolicy: Sendable, Equatable {
    /// Clients outside every block are closed at once; empty: loopback clients only.
    public var allowFrom: [IPNetwork]
    /// Destinations a front end may dial; empty: anywhere.
    public var allowTo: [DestinationPattern]

    public init(allowFrom: [IPNetwork] = [], allowTo: [DestinationPattern] = []) {
        self.allowFrom = allowFrom
        self.allowTo = allowTo
    }

    /// Whether a client at `address` may connect: loopback always, others only inside an
    /// `allowFrom` block.
    public func admits(client address: IPAddressBytes) -> Bool {
        address.isLoopback || allowFrom.contains { $0.contains(address) }
    }

    /// What `allowTo` says before and after resolving a destination.
    public enum Decision: Sendable, Equatable {
        case allowed
        case refused
        /// Only an address pattern could allow it: ask again with the resolved address.
        case needsAddress
    }

    /// The decision for a destination the client named (`name` nil for an address given as
    /// one); `address` once known.
    public func decision(name: String?, address: IPAddressBytes?, port: Int) -> Decision {
        if allowTo.isEmpty || allowTo.contains(where: { $0.matches(name: name, address: address, port: port) }) {
            return .allowed
        }
        let addressPatternsApply = allowTo.contains {
            if case .network = $0.host { return $0.port == nil || $0.port == port }
            return false
        }
        return address == nil && addressPatternsApply ? .needsAddress : .refused
    }
}
