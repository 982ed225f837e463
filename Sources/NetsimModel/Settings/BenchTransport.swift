/// The three protocols a bench compares, by their keys in the JSON report and `--transports`.
/// In code the WebSocket transport is `ws` everywhere (cases, settings), as in its key; types
/// and titles spell it `WebSocket`, and the client file's section is `websocket`. A
/// `CodingKeyRepresentable` key, so a dictionary keyed by transport encodes as `{"rest": ...}`.
public enum BenchTransport: String, CaseIterable, Sendable, Codable, CodingKeyRepresentable, Comparable {
    case rest
    case ws
    case grpc
    /// An HTTP/3 push stream over QUIC: the model engine only (the live bench has no QUIC
    /// client), and not compared unless named (`comparedByDefault`).
    case quic

    public var title: String {
        switch self {
        case .rest: "REST polling"
        case .ws: "WebSocket"
        case .grpc: "gRPC bidi"
        case .quic: "QUIC (HTTP/3)"
        }
    }

    /// What `netsim bench` compares when `--transports` is not given: the three the live bench
    /// plays too.
    public static let comparedByDefault: [BenchTransport] = [.rest, .ws, .grpc]

    /// Whether the live bench has a client and a server for it.
    public var playsLive: Bool { self != .quic }

    /// Why the live bench cannot play `transports`: nil when it can. One message for the
    /// command line's check and the live runner's.
    public static func liveRefusal(_ transports: [BenchTransport]) -> String? {
        guard let modelOnly = transports.first(where: { !$0.playsLive }) else { return nil }
        return "--transports \(modelOnly.rawValue): the live bench has no \(modelOnly.title) client or server; use --engine model"
    }

    public static func < (lhs: BenchTransport, rhs: BenchTransport) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
