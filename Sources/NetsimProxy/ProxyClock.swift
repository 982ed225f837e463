import NIOCore

/// Maps the wall clock onto the device model's seconds. The proxy is the only part of netsim
/// that reads the wall clock; the models only ever see the numbers this produces.
///
/// `timeScale` emulated seconds pass per wall-clock second: 1 in real use; tests raise it to
/// play a long timeline or a slow link quickly (every delay, rate and timer scales together).
struct ProxyClock: Sendable {
    let origin: NIODeadline
    let timeScale: Double

    init(origin: NIODeadline = .now(), timeScale: Double = 1) {
        precondition(timeScale > 0, "time must move forward")
        self.origin = origin
        self.timeScale = timeScale
    }

    /// Emulated seconds since the run started.
    func now() -> Double {
        Double((NIODeadline.now() - origin).nanoseconds) / 1e9 * timeScale
    }

    /// The wall-clock deadline of an emulated time.
    func deadline(_ seconds: Double) -> NIODeadline {
        origin + .nanoseconds(Int64((seconds / timeScale * 1e9).rounded()))
    }
}
