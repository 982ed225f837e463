import NetsimCore
import NetsimProxy

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

/// Everything one bench run needs.
public struct BenchConfiguration: Sendable {
    public var profile: Profile
    public var transports: [BenchTransport] = BenchTransport.allCases
    /// Emulated phones per transport, each with its own proxy (radio and links).
    public var devices = 10
    /// How long the workload runs, in seconds.
    public var duration: Double = 120
    public var seed: UInt64 = 1
    public var workload = Workload()
    public var client = ClientSettings()
    /// After the duration, how long to wait at most for events and messages still in flight
    /// before counting them lost.
    public var drainTimeout: Double = 30
    /// What watches each device's link (a capture writer per device with `--pcap-dir`).
    public var linkObserver: (@Sendable (_ transport: BenchTransport, _ device: Int) -> (any LinkObserver)?)?

    public init(profile: Profile) {
        self.profile = profile
    }
}
