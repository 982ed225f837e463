import NetsimCore

/// A host and port as users write them: `127.0.0.1:8080`, `localhost:80`, `[::1]:443`, or
/// `:8080` (loopback).
public struct HostPort: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host.isEmpty ? "127.0.0.1" : host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether the host is `localhost` or a loopback address: a listener there serves this
    /// host only.
    public var isLoopback: Bool {
        host.lowercased() == "localhost" || IPAddressBytes(host)?.isLoopback == true
    }
}

/// One listening address and the upstream its connections are forwarded to.
public struct ForwardRule: Sendable, Equatable {
    public var listen: HostPort
    public var upstream: HostPort
    /// The phone whose connections these are, in a run of several (`@phone-K`); nil: the phone
    /// each client's source address gets (`PhoneAssignment`).
    public var phone: Int?

    public init(listen: HostPort, upstream: HostPort, phone: Int? = nil) {
        self.listen = listen
        self.upstream = upstream
        self.phone = phone
    }
}
