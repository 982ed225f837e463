/// Seconds since the bench started. Servers, clients and the workload run in one process on
/// this one monotonic clock, so a creation time the server stamps and a delivery time the
/// client reads compare directly.
public struct BenchClock: Sendable {
    public let origin: ContinuousClock.Instant

    public init(origin: ContinuousClock.Instant = .now) {
        self.origin = origin
    }

    public func now() -> Double {
        (ContinuousClock.now - origin).seconds
    }

    /// Sleeps until `seconds` after the origin (at once if that has passed).
    public func sleep(until seconds: Double) async throws {
        try await Task.sleep(until: origin + .seconds(seconds), clock: .continuous)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
