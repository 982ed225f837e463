import NetsimCore

/// What one `netsim bench` plays, whichever engine plays it: the profile, the fleet, the
/// workload, the clients and the gRPC server's policy. The live bench (`BenchConfiguration`,
/// which adds what only real sockets need) and the model engine (`ModelEngine.run`) take this
/// one plan, so that a setting cannot reach one engine and not the other.
public struct BenchPlan: Sendable {
    public var profile: Profile
    public var transports: [BenchTransport] = BenchTransport.comparedByDefault
    /// Emulated phones per transport.
    public var devices = 10
    /// How long the workload runs, in seconds.
    public var duration: Double = 120
    public var seed: UInt64 = 1
    public var workload = Workload()
    public var client = ClientSettings()
    /// The drain's grace: after the workload, events and messages still in flight are waited
    /// for until the profile's connectivity has settled (`Profile.connectivitySettles`: its last
    /// outage or gap over and TCP's retransmission after it landed) and this much longer, for
    /// clients to reconnect and resume. What has not arrived then is counted in flight.
    public var drainTimeout: Double = 30
    /// The gRPC server's keepalive policy. Nil: the bench's own, which accepts what its
    /// clients are configured to send (`GRPCServerPolicy.matching`).
    public var grpcServerPolicy: GRPCServerPolicy?
    /// The part of the fleet to play (`--shard`): devices `shard.index`, `shard.index +
    /// shard.count`, ... with the seeds they have in the whole bench.
    public var shard = Shard.whole
    /// Devices per transport whose radio state timeline the model engine keeps for the charts
    /// (the live bench's fleets are small, and keep every device's).
    public var chartedDevices = 10

    public init(profile: Profile) {
        self.profile = profile
    }

    /// How long after the workload the drain lasts at most.
    public var drainLimit: Double {
        profile.connectivitySettles(forTrafficUntil: duration) - duration + drainTimeout
    }
}
