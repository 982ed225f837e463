/// The name a proxied connection's destination goes by in the run report: the server's name in
/// the client's first bytes (`ServerNameSniffer`: a TLS SNI, an HTTP Host, an HTTP/2
/// `:authority`), else the name a front end was asked for or the address dialed (`fallback`),
/// with the port. Keeps at most one TLS record of the client's first bytes, and only while they
/// may still name the server.
public struct DestinationNamer: Sendable {
    /// The name now: the fallback until the client's bytes name the server.
    public private(set) var name: String
    /// Whether the name is final: found, or the client's bytes cannot give one.
    public private(set) var isSettled = false
    private let port: Int
    private var prefix: [UInt8] = []

    /// - Parameters:
    ///   - fallback: `host:port` as the front end was asked for it, or as dialed.
    ///   - port: the destination's port, added to a sniffed name that has none.
    public init(fallback: String, port: Int) {
        self.name = fallback
        self.port = port
    }

    /// Looks at the next bytes the client sent, until they name the server or cannot.
    public mutating func look(at bytes: UnsafeRawBufferPointer) {
        guard !isSettled else { return }
        let sniff: ServerNameSniff
        if prefix.isEmpty {
            sniff = ServerNameSniffer.sniff(bytes)
            if sniff == .needsMoreData { prefix = Array(bytes.prefix(ServerNameSniffer.maximumPrefix)) }
        } else {
            prefix += bytes.prefix(ServerNameSniffer.maximumPrefix - prefix.count)
            sniff = prefix.withUnsafeBytes { ServerNameSniffer.sniff($0) }
        }
        switch sniff {
        case .found(let server):
            name = Self.hasPort(server) ? server : "\(server):\(port)"
            isSettled = true
        case .needsMoreData where prefix.count < ServerNameSniffer.maximumPrefix:
            return
        case .needsMoreData, .notFound:
            isSettled = true
        }
        prefix = []
    }

    /// `host:port` or `[v6]:port`, as a Host header may carry it.
    private static func hasPort(_ server: String) -> Bool {
        guard let colon = server.lastIndex(of: ":") else { return false }
        return !server[colon...].contains("]")
    }
}
