#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// An IPv4 or IPv6 address as a small value (two words, no allocation), so the analyzer can key
/// flows and count endpoints per packet cheaply. IPv4 addresses are kept IPv4-mapped
/// (`::ffff:a.b.c.d`), which gives both families one representation and one ordering.
public struct IPAddress: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The address's 16 bytes, big-endian, as two words.
    public let high: UInt64
    public let low: UInt64

    private static let ipv4MappedHigh: UInt64 = 0
    private static let ipv4MappedLowPrefix: UInt64 = 0x0000_FFFF_0000_0000

    public init(ipv4 value: UInt32) {
        high = Self.ipv4MappedHigh
        low = Self.ipv4MappedLowPrefix | UInt64(value)
    }

    public init(ipv6High high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses dotted-quad IPv4 or textual IPv6; nil for anything else.
    public init?(_ text: String) {
        var ipv4 = in_addr()
        if inet_pton(AF_INET, text, &ipv4) == 1 {
            self.init(ipv4: UInt32(bigEndian: ipv4.s_addr))
            return
        }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, text, &ipv6) == 1 else { return nil }
        let (high, low) = withUnsafeBytes(of: &ipv6) { ($0.uint64(at: 0) ?? 0, $0.uint64(at: 8) ?? 0) }
        self.init(ipv6High: high, low: low)
    }

    public var isIPv4: Bool { high == Self.ipv4MappedHigh && low >> 32 == Self.ipv4MappedLowPrefix >> 32 }

    /// The IPv4 address as a 32-bit number, if this is one.
    public var ipv4Value: UInt32? { isIPv4 ? UInt32(truncatingIfNeeded: low) : nil }

    /// An address a phone gets behind a NAT or on a local network, rather than a server's:
    /// RFC 1918, carrier-grade NAT (100.64.0.0/10), IPv4 and IPv6 link-local, IPv6 unique local.
    /// Device inference prefers these when packet counts tie.
    public var isPrivate: Bool {
        if let value = ipv4Value {
            return value >> 24 == 10 || value >> 20 == 0xAC1 || value >> 16 == 0xC0A8
                || value >> 22 == 0x191 || value >> 16 == 0xA9FE
        }
        let firstByte = high >> 56
        let firstTenBits = high >> 54
        return firstByte & 0xFE == 0xFC || firstTenBits == 0x3FA
    }

    public var description: String {
        if let value = ipv4Value {
            return "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
        }
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { raw in
            for index in 0..<8 {
                raw[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
                raw[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
            }
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(nulTerminated: text)
    }

    /// An address and port as people write them: `10.0.0.2:443`, `[2001:db8::1]:443`.
    public func description(port: UInt16) -> String {
        isIPv4 ? "\(self):\(port)" : "[\(self)]:\(port)"
    }

    public static func < (lhs: IPAddress, rhs: IPAddress) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}
