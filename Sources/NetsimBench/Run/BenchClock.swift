/// Seconds since the bench started. Servers, clients and the workload run in one process on
/// this one monotonic clock, so a creation time the server stamps and a delivery time the
/// client reads compare directly.
///
/// `timeScale` emulated seconds pass per wall-clock second: 1 for the bench; the keepalive
/// replay (`netsim tune keepalive --verify`) raises it together with the proxies' and the gRPC
/// client's and server's timers, so hours of an idle connection play in minutes.
public struct BenchClock: Sendable {
    public let origin: ContinuousClock.Instant
    public let timeScale: Double

    public init(origin: ContinuousClock.Instant = .now, timeScale: Double = 1) {
        precondition(timeScale > 0, "time must move forward")
        self.origin = origin
        self.timeScale = timeScale
    }

    public func now() -> Double {
        (ContinuousClock.now - origin).seconds * timeScale
    }

    /// Sleeps until `seconds` after the origin (at once if that has passed).
    public func sleep(until seconds: Double) async throws {
        try await Task.sleep(until: origin + wallDuration(seconds), clock: .continuous)
    }

    /// How long `seconds` of emulated time last on the wall clock.
    public func wallDuration(_ seconds: Double) -> Duration {
        .seconds(seconds / timeScale)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
