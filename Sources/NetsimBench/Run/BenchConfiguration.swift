import NetsimCore
import NetsimModel
import NetsimProxy

/// Everything one live bench run needs: the plan both engines take (`BenchPlan`, whose
/// settings read and write through this, as `configuration.devices`), and what only real
/// sockets need: the clock's scale and the captures.
@dynamicMemberLookup
public struct BenchConfiguration: Sendable {
    public var plan: BenchPlan
    /// Emulated seconds per wall-clock second for every timer of the proxies, the workload and
    /// the gRPC client and server (`BenchClock`). Only the gRPC transport scales its timers, so
    /// anything but 1 needs `transports == [.grpc]`.
    public var timeScale = 1.0
    /// What watches each device's link (a capture writer per device with `--pcap-dir`).
    public var linkObserver: (@Sendable (_ transport: BenchTransport, _ device: Int) -> (any LinkObserver)?)?

    public init(profile: Profile) {
        self.plan = BenchPlan(profile: profile)
    }

    public subscript<Value>(dynamicMember setting: WritableKeyPath<BenchPlan, Value>) -> Value {
        get { plan[keyPath: setting] }
        set { plan[keyPath: setting] = newValue }
    }

    public subscript<Value>(dynamicMember figure: KeyPath<BenchPlan, Value>) -> Value {
        plan[keyPath: figure]
    }

    /// Why this configuration cannot run live: nil when it can.
    public func problem() -> String? {
        if let refusal = BenchTransport.liveRefusal(plan.transports) { return refusal }
        if !(timeScale > 0) || !timeScale.isFinite { return "the time scale must be a positive number, got \(timeScale)" }
        if timeScale != 1, plan.transports != [.grpc] {
            return "only the gRPC transport scales its timers: a time scale needs the gRPC transport alone"
        }
        if let policy = plan.grpcServerPolicy, policy.maxPingStrikes != 2 {
            return "grpc-swift's server sends GOAWAY after exactly 2 ping strikes; the policy '\(policy.name)' "
                + "asks for \(policy.maxPingStrikes), which a live server cannot play"
        }
        return nil
    }
}
