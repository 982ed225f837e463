import NIOCore
import NIOEmbedded
import NetsimTestSupport
import Testing

@testable import NetsimProxy

@Suite("Proxy clock", .computes)
struct ProxyClockTests {
    @Test(
        "a deadline never traps, however far, negative or undefined the emulated time",
        arguments: [1e10, 1e20, .greatestFiniteMagnitude, .infinity, .nan, -1, -.infinity])
    func clampedDeadlines(seconds: Double) {
        let clock = ProxyClock(loop: EmbeddedEventLoop(), origin: .uptimeNanoseconds(1_000_000_000), timeScale: 0.001)
        let deadline = clock.deadline(seconds)
        #expect(deadline >= clock.origin)
        #expect(deadline <= clock.origin + .nanoseconds(Int64(ProxyClock.latestOffset)))
    }

    @Test("ordinary times map exactly")
    func ordinaryTimes() {
        let clock = ProxyClock(loop: EmbeddedEventLoop(), origin: .uptimeNanoseconds(5), timeScale: 2)
        #expect(clock.deadline(1) == .uptimeNanoseconds(500_000_005))
    }
}
