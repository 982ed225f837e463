import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimModel

/// Every client's reconnection rule: the waits grow with the failures in a row, and start over.
@Suite(.computes) struct ReconnectionTests {
    static let unjittered = Backoff(initial: 0.5, maximum: 4, multiplier: 2, jitter: 0)

    @Test func failuresInARowWaitLongerUpToTheMaximum() {
        var reconnection = Reconnection(Self.unjittered)
        var random = SeededRandom(seed: 1)
        let waits = (1...6).map { _ in reconnection.failed(random: &random) }
        #expect(waits == [0.5, 1, 2, 4, 4, 4])
        #expect(reconnection.failures == 6)
    }

    @Test func startingOverMakesTheNextWaitTheShortest() {
        var reconnection = Reconnection(Self.unjittered)
        var random = SeededRandom(seed: 1)
        for _ in 1...3 { _ = reconnection.failed(random: &random) }
        reconnection.startOver()
        #expect(reconnection.failures == 0)
        let next = reconnection.failed(random: &random)
        #expect(next == 0.5)
    }

    /// The jitter is the backoff's, drawn once per failure from the client's own random source,
    /// so a seeded client waits exactly what `Backoff.delay` says.
    @Test func eachWaitIsTheBackoffsJitteredDelayForItsCount() {
        let backoff = Backoff(initial: 1, maximum: 30, multiplier: 2, jitter: 0.2)
        var reconnection = Reconnection(backoff)
        var random = SeededRandom(seed: 7)
        var expected = SeededRandom(seed: 7)
        for attempt in 1...5 {
            let wait = reconnection.failed(random: &random)
            #expect(wait == backoff.delay(afterAttempt: attempt, random: &expected))
            #expect(abs(wait - backoff.baseDelay(afterAttempt: attempt)) <= 0.2 * backoff.baseDelay(afterAttempt: attempt) + 1e-12)
        }
    }
}
