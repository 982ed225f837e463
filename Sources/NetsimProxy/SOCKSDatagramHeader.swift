import NIOCore

/// The header of a datagram through a SOCKS5 UDP relay (RFC 1928 section 7): two reserved
/// bytes, a fragment number, then the destination (going to the relay) or the source (coming
/// back) as in a request: an address type, the address, the port. A value with no I/O.
struct SOCKSDatagramHeader: Equatable {
    /// Where the datagram goes, or where it came from.
    enum Address: Equatable {
        case ipv4([UInt8])
        case ipv6([UInt8])
        case domain(String)
    }

    var fragment: UInt8
    var address: Address
    var port: Int

    /// Why a datagram's header cannot be read.
    enum ParseError: Error, Equatable, CustomStringConvertible {
        case truncated
        case reservedBytesNotZero
        case unknownAddressType(UInt8)

        var description: String {
            switch self {
            case .truncated: "a header shorter than its address"
            case .reservedBytesNotZero: "reserved bytes that are not zero"
            case .unknownAddressType(let type): "address type \(type) (1, 3 and 4 are defined)"
            }
        }
    }

    /// Reads the header off the front of `buffer`, which is left holding the payload.
    static func read(from buffer: inout ByteBuffer) throws(ParseError) -> SOCKSDatagramHeader {
        guard let reserved = buffer.readInteger(as: UInt16.self), let fragment = buffer.readInteger(as: UInt8.self),
            let type = buffer.readInteger(as: UInt8.self)
        else { throw .truncated }
        guard reserved == 0 else { throw .reservedBytesNotZero }
        let address: Address
        switch type {
        case 1:
            guard let bytes = buffer.readBytes(length: 4) else { throw .truncated }
            address = .ipv4(bytes)
        case 3:
            guard let length = buffer.readInteger(as: UInt8.self), let name = buffer.readString(length: Int(length)) else {
                throw .truncated
            }
            address = .domain(name)
        case 4:
            guard let bytes = buffer.readBytes(length: 16) else { throw .truncated }
            address = .ipv6(bytes)
        default:
            throw .unknownAddressType(type)
        }
        guard let port = buffer.readInteger(as: UInt16.self) else { throw .truncated }
        return SOCKSDatagramHeader(fragment: fragment, address: address, port: Int(port))
    }

    /// The header of a datagram the relay sends back to the client from `source`.
    init?(source: SocketAddress) {
        guard let port = source.port else { return nil }
        switch source {
        case .v4(let address):
            var raw = address.address.sin_addr
            self.address = .ipv4(withUnsafeBytes(of: &raw) { Array($0) })
        case .v6(let address):
            var raw = address.address.sin6_addr
            self.address = .ipv6(withUnsafeBytes(of: &raw) { Array($0) })
        case .unixDomainSocket:
            return nil
        }
        self.fragment = 0
        self.port = port
    }

    init(fragment: UInt8, address: Address, port: Int) {
        self.fragment = fragment
        self.address = address
        self.port = port
    }

    func write(to buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt16(0))
        buffer.writeInteger(fragment)
        switch address {
        case .ipv4(let bytes):
            buffer.writeInteger(UInt8(1))
            buffer.writeBytes(bytes)
        case .domain(let name):
            buffer.writeInteger(UInt8(3))
            buffer.writeInteger(UInt8(truncatingIfNeeded: name.utf8.count))
            buffer.writeString(name)
        case .ipv6(let bytes):
            buffer.writeInteger(UInt8(4))
            buffer.writeBytes(bytes)
        }
        buffer.writeInteger(UInt16(truncatingIfNeeded: port))
    }

    /// The destination as the front ends name one: an address in its usual text, or the name.
    var destination: HostPort? {
        switch address {
        case .ipv4(let bytes), .ipv6(let bytes):
            let address = try? SocketAddress(packedIPAddress: ByteBuffer(bytes: bytes), port: port)
            return address?.ipAddress.flatMap { HostPort(validatingDestination: $0, port: port) }
        case .domain(let name):
            return HostPort(validatingDestination: name, port: port)
        }
    }
}
