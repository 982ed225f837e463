/// The three protocols a bench compares, by their keys in the JSON report and `--transports`.
/// In code the WebSocket transport is `ws` everywhere (cases, settings), as in its key; types
/// and titles spell it `WebSocket`, and the client file's section is `websocket`. A
/// `CodingKeyRepresentable` key, so a dictionary keyed by transport encodes as `{"rest": ...}`.
public enum BenchTransport: String, CaseIterable, Sendable, Codable, CodingKeyRepresentable, Comparable {
    case rest
    case ws
    case grpc

    public var title: String {
        switch self {
        case .rest: "REST polling"
        case .ws: "WebSocket"
        case .grpc: "gRPC bidi"
        }
    }

    public static func < (lhs: BenchTransport, rhs: BenchTransport) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
