import NetsimCore
import NetsimModel
import NetsimProxy

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
    /// The gRPC server's keepalive policy. Nil: the bench's own, which accepts what its
    /// clients are configured to send (`GRPCServerPolicy.matching`).
    public var grpcServerPolicy: GRPCServerPolicy?
    /// Emulated seconds per wall-clock second for every timer of the proxies, the workload and
    /// the gRPC client and server (`BenchClock`). Only the gRPC transport scales its timers, so
    /// anything but 1 needs `transports == [.grpc]`.
    public var timeScale = 1.0
    /// The part of the fleet to play (`--shard`): devices `shard.index`, `shard.index +
    /// shard.count`, ... with the seeds they have in the whole bench.
    public var shard = Shard.whole

    /// How long after the workload the drain lasts at most.
    public var drainLimit: Double {
        profile.connectivitySettles(forTrafficUntil: duration) - duration + drainTimeout
    }
    /// What watches each device's link (a capture writer per device with `--pcap-dir`).
    public var linkObserver: (@Sendable (_ transport: BenchTransport, _ device: Int) -> (any LinkObserver)?)?

    public init(profile: Profile) {
        self.profile = profile
    }

    /// Why this configuration cannot run live: nil when it can.
    public func problem() -> String? {
        if !(timeScale > 0) || !timeScale.isFinite { return "the time scale must be a positive number, got \(timeScale)" }
        if timeScale != 1, transports != [.grpc] {
            return "only the gRPC transport scales its timers: a time scale needs the gRPC transport alone"
        }
        if let policy = grpcServerPolicy, policy.maxPingStrikes != 2 {
            return "grpc-swift's server sends GOAWAY after exactly 2 ping strikes; the policy '\(policy.name)' "
                + "asks for \(policy.maxPingStrikes), which a live server cannot play"
        }
        return nil
    }
}
