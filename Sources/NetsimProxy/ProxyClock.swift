import NIOCore

/// Maps the event loop's clock onto the device model's seconds. The proxy is the only part of
/// netsim that reads a clock; the models only ever see the numbers this produces.
///
/// It reads the time of the loop the device runs on (`EventLoop.now`): the system's monotonic
/// clock on a real loop, virtual time on an `EmbeddedEventLoop`, where a test advances it and
/// plays seconds of a link in no time (ProxyVirtualTimeTests).
///
/// `timeScale` emulated seconds pass per wall-clock second: 1 in real use; tests raise it to
/// play a long timeline or a slow link quickly (every delay, rate and timer scales together).
struct ProxyClock: Sendable {
    let loop: any EventLoop
    let origin: NIODeadline
    let timeScale: Double

    /// A clock whose emulated time 0 is `origin` (now, if not given) on `loop`'s clock.
    init(loop: any EventLoop, origin: NIODeadline? = nil, timeScale: Double = 1) {
        precondition(timeScale > 0, "time must move forward")
        self.loop = loop
        self.origin = origin ?? loop.now
        self.timeScale = timeScale
    }

    /// The loop's time now, for its timers' deadlines.
    var loopNow: NIODeadline { loop.now }

    /// Emulated seconds since the run started.
    func now() -> Double {
        Double((loop.now - origin).nanoseconds) / 1e9 * timeScale
    }

    /// The emulated seconds from `start` to `end` on the loop's clock.
    func seconds(from start: NIODeadline, to end: NIODeadline) -> Double {
        Double((end - start).nanoseconds) / 1e9 * timeScale
    }

    /// The loop-clock deadline of an emulated time.
    ///
    /// Clamped to `latestOffset` after the origin (and to the origin before it): every value is
    /// range-checked where it is parsed, but sums of them (a delay on top of a long outage on top
    /// of a late timeline event) must still never trap converting to whole nanoseconds.
    func deadline(_ seconds: Double) -> NIODeadline {
        let nanoseconds = seconds / timeScale * 1e9
        guard nanoseconds < Self.latestOffset else { return origin + .nanoseconds(Int64(Self.latestOffset)) }
        return origin + .nanoseconds(Int64(max(0, nanoseconds).rounded()))
    }

    /// About 100 years in nanoseconds: later than any run, and far from `Int64.max`.
    static let latestOffset: Double = 100 * 365 * 86_400 * 1e9
}
