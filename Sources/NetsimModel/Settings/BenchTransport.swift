/// The three protocols a bench compares, by their keys in the JSON report and `--transports`.
public enum BenchTransport: String, CaseIterable, Sendable, Codable, Comparable {
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
