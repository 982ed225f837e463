import NetsimModel
import Testing

@testable import NetsimBench

/// The gRPC client's reconnection state machine, driven by a mock clock: no sockets, no sleeps.
struct ReconnectionStateMachineTests {
    typealias Machine = ReconnectionStateMachine<MockClock>

    /// 500 ms doubling to a 30 s cap, without jitter so the deadlines are exact.
    func machine() -> Machine {
        Machine(backoff: Backoff(initial: 0.5, maximum: 30, multiplier: 2, jitter: 0), seed: 1)
    }

    let start = MockClock.Instant(offset: .seconds(100))

    @Test func startOpensACallFromTheBeginning() {
        var machine = machine()
        #expect(machine.start() == .openCall(resumeFrom: 0))
        #expect(machine.state == .reconnecting(lastOffset: 0) && machine.reconnection.failures == 0)
        #expect(machine.callOpened() == .doNothing)
        #expect(machine.state == .connected(lastOffset: 0))
    }

    @Test func aLostCallIsReopenedAtOnceFromTheLastOffset() {
        var machine = machine()
        _ = machine.start()
        _ = machine.callOpened()
        #expect(machine.callEnded(lastOffset: 17, now: start) == .openCall(resumeFrom: 17))
        #expect(machine.state == .reconnecting(lastOffset: 17) && machine.reconnection.failures == 0)
    }

    @Test func failedAttemptsBackOffExponentiallyUpToTheCap() {
        var machine = machine()
        _ = machine.start()
        var now = start
        var waits: [Duration] = []
        for attempt in 1...9 {
            guard case .scheduleRetry(let deadline) = machine.callEnded(lastOffset: 5, now: now) else {
                Issue.record("attempt \(attempt) did not back off")
                return
            }
            waits.append(now.duration(to: deadline))
            // A timer that fires early is armed again for the rest of the wait.
            #expect(machine.retryDue(now: now.advanced(by: .milliseconds(1))) == .scheduleRetry(at: deadline))
            now = deadline
            #expect(machine.retryDue(now: now) == .openCall(resumeFrom: 5))
            #expect(machine.state == .reconnecting(lastOffset: 5) && machine.reconnection.failures == attempt)
        }
        #expect(waits == [0.5, 1, 2, 4, 8, 16, 30, 30, 30].map { Duration.milliseconds(Int64($0 * 1000)) })
    }

    @Test func aCallThatOpensResetsTheBackoff() {
        var machine = machine()
        _ = machine.start()
        guard case .scheduleRetry(let first) = machine.callEnded(lastOffset: 0, now: start) else {
            Issue.record("no backoff")
            return
        }
        _ = machine.retryDue(now: first)
        _ = machine.callOpened()
        _ = machine.callEnded(lastOffset: 3, now: first)
        #expect(machine.callEnded(lastOffset: 3, now: first) == .scheduleRetry(at: first.advanced(by: .milliseconds(500))))
    }

    @Test func noNetworkSuspendsUntilItReturns() {
        var machine = machine()
        _ = machine.start()
        guard case .scheduleRetry = machine.callEnded(lastOffset: 9, now: start) else {
            Issue.record("no backoff")
            return
        }
        #expect(machine.networkChanged(available: false) == .cancelRetry)
        #expect(machine.state == .suspended(lastOffset: 9))
        #expect(machine.retryDue(now: start.advanced(by: .seconds(60))) == .doNothing)
        #expect(machine.networkChanged(available: true) == .openCall(resumeFrom: 9))
        #expect(machine.state == .reconnecting(lastOffset: 9) && machine.reconnection.failures == 0)
    }

    @Test func aCallLostWhileOfflineWaitsForTheNetwork() {
        var machine = machine()
        _ = machine.start()
        _ = machine.callOpened()
        // A stalled connection may live through an outage: going offline leaves it alone.
        #expect(machine.networkChanged(available: false) == .doNothing)
        #expect(machine.state == .connected(lastOffset: 0))
        #expect(machine.callEnded(lastOffset: 4, now: start) == .doNothing)
        #expect(machine.state == .suspended(lastOffset: 4))
        #expect(machine.networkChanged(available: true) == .openCall(resumeFrom: 4))
    }

    @Test func jitterSpreadsTheWaitWithinItsFraction() {
        var machine = Machine(backoff: Backoff(initial: 1, maximum: 30, multiplier: 2, jitter: 0.2), seed: 7)
        _ = machine.start()
        guard case .scheduleRetry(let deadline) = machine.callEnded(lastOffset: 0, now: start) else {
            Issue.record("no backoff")
            return
        }
        let wait = start.duration(to: deadline)
        #expect(wait >= .milliseconds(800) && wait <= .milliseconds(1200))
    }

    @Test func stopCancelsTheRetryAndIgnoresLaterInputs() {
        var machine = machine()
        _ = machine.start()
        _ = machine.callEnded(lastOffset: 0, now: start)
        #expect(machine.stop() == .cancelRetry)
        #expect(machine.retryDue(now: start.advanced(by: .seconds(5))) == .doNothing)
        #expect(machine.networkChanged(available: true) == .doNothing)
    }
}

/// A clock whose instants are plain offsets: the state machine never reads it, tests build
/// instants directly.
struct MockClock: Clock {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    var now: Instant { Instant(offset: .zero) }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
}
