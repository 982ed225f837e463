import NetsimModel
import NetsimTestSupport
import Testing

/// The gRPC app's policy (`GRPCApp`), which the live bench plays over grpc-swift and the model
/// engine over its channel model: its call is its connection. Exact action lists, no sockets.
@Suite(.computes)
struct GRPCAppTests {
    /// 500 ms doubling to a 30 s cap, without jitter so the deadlines are exact.
    static func settings(callTimeLimit: Double? = nil) -> ClientSettings.GRPCClientSettings {
        var settings = ClientSettings.GRPCClientSettings()
        settings.backoff = Backoff(initial: 0.5, maximum: 30, multiplier: 2, jitter: 0)
        settings.callTimeLimit = callTimeLimit
        return settings
    }

    /// What ends with every call: its time limit's timer.
    static let ended: [TransportAction] = [.cancelTimer(.callDeadline)]

    static func opening(after: UInt64) -> [TransportAction] {
        [.connect, .send(.open(after: after, newConnection: false))]
    }

    @Test func startOpensACallFromTheBeginning() {
        var app = GRPCApp(settings: Self.settings(), seed: 1)
        var ledger = AppLedger(outboxLimit: 8)
        #expect(app.start(now: 0, ledger: &ledger) == Self.opening(after: 0))
        #expect(app.call == .opening)
        #expect(app.received(.accepted(newConnection: false), now: 0.1, ledger: &ledger).isEmpty)
        #expect(app.call == .open)
    }

    @Test func aLostCallIsReopenedAtOnceFromTheLastEventReceived() {
        var app = GRPCApp(settings: Self.settings(), seed: 1)
        var ledger = AppLedger(outboxLimit: 8)
        _ = app.start(now: 0, ledger: &ledger)
        _ = app.received(.accepted(newConnection: false), now: 0.1, ledger: &ledger)
        ledger.readOffNetwork(17)
        #expect(app.connectionEnded(.closedByPeer, now: 5, ledger: &ledger) == Self.ended + Self.opening(after: 17))
        #expect(ledger.record.failedAttempts == 1)
    }

    @Test func failedAttemptsBackOffExponentiallyUpToTheCap() {
        var app = GRPCApp(settings: Self.settings(), seed: 1)
        var ledger = AppLedger(outboxLimit: 8)
        _ = app.start(now: 0, ledger: &ledger)
        var now = 100.0
        var waits: [Double] = []
        for attempt in 1...9 {
            guard case .setTimer(.retry, let due) = app.connectionEnded(.reset, now: now, ledger: &ledger).last else {
                Issue.record("attempt \(attempt) did not back off")
                return
            }
            #expect(app.call == .backingOff)
            waits.append(due - now)
            now = due
            #expect(app.timerFired(.retry, now: now, ledger: &ledger) == Self.opening(after: 0))
        }
        #expect(waits == [0.5, 1, 2, 4, 8, 16, 30, 30, 30])
        #expect(ledger.record.failedAttempts == 9)
    }

    @Test func aCallThatOpensStartsTheBackoffOver() {
        var app = GRPCApp(settings: Self.settings(), seed: 1)
        var ledger = AppLedger(outboxLimit: 8)
        _ = app.start(now: 0, ledger: &ledger)
        _ = app.connectionEnded(.reset, now: 1, ledger: &ledger)
        _ = app.timerFired(.retry, now: 1.5, ledger: &ledger)
        _ = app.connectionEnded(.reset, now: 2, ledger: &ledger)
        _ = app.timerFired(.retry, now: 3, ledger: &ledger)
        _ = app.received(.accepted(newConnection: false), now: 3.1, ledger: &ledger)
        #expect(app.connectionEnded(.closedByPeer, now: 10, ledger: &ledger) == Self.ended + Self.opening(after: 0))
        #expect(app.connectionEnded(.reset, now: 11, ledger: &ledger) == Self.ended + [.setTimer(.retry, at: 11.5)])
    }

    @Test func noNetworkSuspendsUntilItReturns() {
        var app = GRPCApp(settings: Self.settings(), seed: 1)
        var ledger = AppLedger(outboxLimit: 8)
        _ = app.start(now: 0, ledger: &ledger)
        ledger.readOffNetwork(9)
        #expect(app.connectionEnded(.reset, now: 1, ledger: &ledger) == Self.ended + [.setTimer(.retry, at: 1.5)])
        #expect(app.networkChanged(available: false, now: 1.2, ledger: &ledger) == [.cancelTimer(.retry)])
        #expect(app.call == .suspended)
        #expect(app.timerFired(.retry, now: 60, ledger: &ledger).isEmpty)
        #expect(app.networkChanged(available: true, now: 61, ledger: &ledger) == Self.opening(after: 9))
        // The backoff started over with the network.
        #expect(app.connectionEnded(.reset, now: 62, ledger: &ledger) == Self.ended + [.setTimer(.retry, at: 62.5)])
    }

    @Test func aCallLostWhileOfflineWaitsForTheNetwork() {
        var app = GRPCApp(settings: Self.settings(), seed: 1)
        var ledger = AppLedger(outboxLimit: 8)
        _ = app.start(now: 0, ledger: &ledger)
        _ = app.received(.accepted(newConnection: false), now: 0.1, ledger: &ledger)
        // A stalled connection may live through an outage: going offline leaves the call alone.
        #expect(app.networkChanged(available: false, now: 1, ledger: &ledger).isEmpty)
        #expect(app.call == .open)
        ledger.readOffNetwork(4)
        // Lost while offline, it waits for the network instead of reopening.
        #expect(app.connectionEnded(.reset, now: 2, ledger: &ledger) == Self.ended)
        #expect(app.call == .suspended)
        #expect(app.networkChanged(available: true, now: 30, ledger: &ledger) == Self.opening(after: 4))
    }

    @Test func jitterSpreadsTheWaitWithinItsFraction() {
        var settings = Self.settings()
        settings.backoff = Backoff(initial: 1, maximum: 30, multiplier: 2, jitter: 0.2)
        for seed in UInt64(1)...20 {
            var app = GRPCApp(settings: settings, seed: seed)
            var ledger = AppLedger(outboxLimit: 8)
            _ = app.start(now: 0, ledger: &ledger)
            guard case .setTimer(.retry, let due) = app.connectionEnded(.reset, now: 100, ledger: &ledger).last else {
                Issue.record("no backoff")
                return
            }
            #expect(due >= 100.8 && due <= 101.2)
        }
    }

    @Test func aNaiveAppOpensEveryCallFromNowOnAFixedLoopAndIgnoresTheNetwork() {
        var app = GRPCApp(settings: Self.settings(), reconnect: .naive, seed: 1)
        var ledger = AppLedger(outboxLimit: 8)
        let fromNow = ClientSettings.Reconnect.fromNow
        #expect(app.start(now: 0, ledger: &ledger) == Self.opening(after: fromNow))
        #expect(app.networkChanged(available: false, now: 0.05, ledger: &ledger).isEmpty)
        #expect(app.connectionEnded(.reset, now: 1, ledger: &ledger) == Self.ended + [.setTimer(.retry, at: 1.1)])
        #expect(app.timerFired(.retry, now: 1.1, ledger: &ledger) == Self.opening(after: fromNow))
        _ = app.received(.accepted(newConnection: false), now: 1.2, ledger: &ledger)
        ledger.readOffNetwork(17)
        #expect(app.connectionEnded(.closedByPeer, now: 5, ledger: &ledger) == Self.ended + Self.opening(after: fromNow))
    }

    /// The time limit cancels the call (its RST_STREAM, the app's `.closeConnection`) and
    /// renews it at once from the last event received, with a new deadline.
    @Test func aCallAtItsTimeLimitIsCancelledAndRenewed() {
        var app = GRPCApp(settings: Self.settings(callTimeLimit: 60), seed: 1)
        var ledger = AppLedger(outboxLimit: 8)
        #expect(app.start(now: 0, ledger: &ledger) == Self.opening(after: 0) + [.setTimer(.callDeadline, at: 60)])
        _ = app.received(.accepted(newConnection: false), now: 0.1, ledger: &ledger)
        ledger.readOffNetwork(12)
        #expect(
            app.timerFired(.callDeadline, now: 60, ledger: &ledger)
                == [.closeConnection] + Self.opening(after: 12) + [.setTimer(.callDeadline, at: 120)])
        #expect(ledger.record.callRenewals == 1)
        #expect(ledger.record.failedAttempts == 0)
    }

    /// Messages go only on an open call, each once per call; a new call sends again what was
    /// not acknowledged.
    @Test func theOutboxGoesOnAnOpenCallAndAgainOnTheNext() {
        var app = GRPCApp(settings: Self.settings(), seed: 1)
        var ledger = AppLedger(outboxLimit: 8)
        _ = app.start(now: 0, ledger: &ledger)
        _ = ledger.produceMessage(at: 0.05)
        #expect(app.messageProduced(now: 0.05, ledger: &ledger).isEmpty)
        #expect(app.received(.accepted(newConnection: false), now: 0.1, ledger: &ledger) == [.send(.message(1))])
        _ = ledger.produceMessage(at: 1)
        #expect(app.messageProduced(now: 1, ledger: &ledger) == [.send(.message(2))])
        ledger.acknowledge(1)
        _ = app.connectionEnded(.closedByPeer, now: 2, ledger: &ledger)
        #expect(app.received(.accepted(newConnection: false), now: 2.1, ledger: &ledger) == [.send(.message(2))])
        #expect(app.delivers(.event(3)))
    }
}
