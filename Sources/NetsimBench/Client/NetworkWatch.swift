/// The app's view of whether the phone has a network, as a mobile OS's reachability callback
/// gives it: the gRPC client always watches it (unless naive), REST and WebSocket with
/// `watchNetwork: true`. A client that watches makes no attempt while the phone is offline and
/// tries again at once when it is back.
struct NetworkWatch: Sendable {
    /// Whether the phone has a network now (the emulated device's connectivity).
    let isUp: @Sendable () async -> Bool
    /// How often the app asks: a quarter of a second of emulated time, as a reachability
    /// callback would be that quick, but at most 200 times a wall-clock second when time runs
    /// faster.
    let pollInterval: Duration

    init(clock: BenchClock, isUp: @escaping @Sendable () async -> Bool) {
        self.isUp = isUp
        self.pollInterval = max(clock.wallDuration(0.25), .milliseconds(5))
    }

    /// Tells `changed` each time the phone's network goes or comes back (from `up`), asking
    /// every `pollInterval`, until the task is cancelled: what an `AppDriver` hands its machine,
    /// and the gRPC client its reconnection machine.
    func watch(from up: Bool, _ changed: (Bool) -> Void) async {
        var up = up
        while !Task.isCancelled {
            let now = await isUp()
            if now != up {
                up = now
                changed(now)
            }
            try? await Task.sleep(for: pollInterval)
        }
    }
}
