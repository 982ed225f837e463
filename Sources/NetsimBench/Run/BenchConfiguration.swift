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
    /// The drain's grace: after the workload, the bench waits for events and messages still in
    /// flight until the profile's connectivity has settled (`Profile.connectivitySettles`: its
    /// last outage or gap over and TCP's retransmission after it landed) and this much longer,
    /// for clients to reconnect and resume. What has not arrived then is counted in flight.
    public var drainTimeout: Double = 30

    /// How long after the workload the drain lasts at most.
    public var drainLimit: Double {
        profile.connectivitySettles(forTrafficUntil: duration) - duration + drainTimeout
    }
    /// What watches each device's link (a capture writer per device with `--pcap-dir`).
    public var linkObserver: (@Sendable (_ transport: BenchTransport, _ device: Int) -> (any LinkObserver)?)?

    public init(profile: Profile) {
        self.profile = profile
    }
}
