import NIOCore

/// Maps the wall clock onto the device model's seconds. The proxy is the only part of netsim
/// that reads the wall clock; the models only ever see the numbers this produces.
struct ProxyClock: Sendable {
    let origin: NIODeadline

    init(origin: NIODeadline = .now()) {
        self.origin = origin
    }

    /// Seconds since the run started.
    func now() -> Double {
        Double((NIODeadline.now() - origin).nanoseconds) / 1e9
    }

    func deadline(_ seconds: Double) -> NIODeadline {
        origin + .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
