import NetsimCore
import NetsimInput
import NetsimModel
import NetsimTestSupport
import Testing

@testable import NetsimBench

/// Strategy 1: the naive client (at once, in a loop, from "now") against the
/// resilient one (backoff, network watching, resumption), and the accounting that tells them
/// apart.
@Suite(.serialized, .playsLive(.strategies)) struct ReconnectionStrategyTests {
    @Test func theClientFileChoosesTheStrategy() throws {
        #expect(try ClientSettings.load(yaml: "reconnect: naive", source: "c.yaml").reconnect == .naive)
        #expect(try ClientSettings.load(yaml: "grpc: {receiveBuffer: 8}", source: "c.yaml").reconnect == .resilient)
        #expect(try ClientSettings.load(yaml: SettingsFileTests.shipped("clients/naive.yaml"), source: "naive.yaml").reconnect == .naive)
        #expect {
            try ClientSettings.load(yaml: "reconnect: eager", source: "c.yaml")
        } throws: { error in
            "\(error)".hasPrefix("c.yaml:1:12: 'reconnect' must be one of resilient, naive")
        }
    }

    @Test func theNaiveClientRetriesOnAFixedShortLoop() {
        var naive = ClientSettings()
        naive.reconnect = .naive
        #expect(naive.backoff(Backoff()) == .naiveRetry)
        #expect((1...10).map { Backoff.naiveRetry.baseDelay(afterAttempt: $0) }.allSatisfy { $0 == 0.1 })
        #expect(ClientSettings().backoff(Backoff(initial: 2)) == Backoff(initial: 2))
    }

    /// Events missing up to where a subscription from now started are lost by skipping; one
    /// missing behind a received event after it was dropped; those after the last received are
    /// still in flight.
    @Test func skippedEventsAreLostAndCountedApartFromDrops() {
        let lost = { (delivered: [Bool], skippedThrough: UInt64) in
            DeliveryAccountingTests.ledger(delivered: delivered).record.events.unrecoverable(skippedThrough: skippedThrough)
        }
        #expect(lost([true, false, false, true, false, true, false], 3) == (2, 1))
        #expect(lost([true, false, false], 3) == (2, 0))
        #expect(lost([true, false, true, false], 0) == (0, 1))

        var device = DeliveryAccountingTests.device(delivered: [true, false, false, true, false], arrived: [])
        device.server.skippedThrough = 3
        let (report, _) = BenchAnalysis.summarize([device])
        #expect(report.events == BenchReport.Delivery(sent: 5, delivered: 2, lost: 2, inFlight: 1, duplicated: 0, outOfOrder: 0))
        #expect(report.resilience?.eventsLostBySkipping == 2)
    }

    /// The drain waits for what is still to come, not for events a naive client skipped.
    @Test func theDrainDoesNotWaitForSkippedEvents() {
        let ledger = DeliveryAccountingTests.ledger(delivered: [false, false, true])
        #expect(!ledger.isSettled(eventsCreated: 3))
        #expect(!ledger.isSettled(eventsCreated: 3, skippedThrough: 1))
        #expect(ledger.isSettled(eventsCreated: 3, skippedThrough: 2))
    }

    @Test func thePeakIsTheBusiestSecondAcrossTheFleet() {
        var first = DeliveryAccountingTests.device(delivered: [], arrived: [])
        first.app.attemptsBySecond = [0: 1, 32: 6, 33: 2]
        var second = DeliveryAccountingTests.device(delivered: [], arrived: [])
        second.app.attemptsBySecond = [0: 1, 32: 5, 40: 9]
        let (report, _) = BenchAnalysis.summarize([first, second])
        #expect(report.resilience?.connectionAttempts == BenchReport.Resilience.Attempts(total: 24, peakPerSecond: 11, peakSecond: 32))
    }

    /// The acceptance: across a reset outage the naive fleet loses events (produced
    /// while it was away, never delivered); the resilient one loses none. REST's requests time
    /// out after 0.5 s, so its naive poller fails during the outage and polls from now after it
    /// (a kept-alive REST connection that is reset between polls reconnects without a failure).
    @Test(.tags(.liveTiming)) func theNaiveClientLosesEventsAcrossAResetOutageAndTheResilientOneNone() async throws {
        let outage = TimelineEvent(at: 2, kind: .outage(duration: 1.5, mode: .reset))
        var configuration = BenchEndToEndTests.configuration(BenchEndToEndTests.profile(events: [outage]), duration: 6)
        configuration.client.rest.requestTimeout = 0.5
        // The two benches are independent and mostly wait: they run side by side.
        var naiveConfiguration = configuration
        naiveConfiguration.client.reconnect = .naive
        async let resilientRun = BenchRunner.run(configuration, logger: BenchEndToEndTests.logger) { _ in }
        async let naiveRun = BenchRunner.run(naiveConfiguration, logger: BenchEndToEndTests.logger) { _ in }
        let (resilient, naive) = try await (resilientRun, naiveRun)
        for transport in BenchTransport.comparedByDefault {
            let calm = try #require(resilient.report.transports[transport])
            let storm = try #require(naive.report.transports[transport])
            #expect(calm.events.lost == 0 && calm.resilience?.eventsLostBySkipping == 0, "\(transport) resilient: \(calm.events)")
            let skipped = storm.resilience?.eventsLostBySkipping ?? 0
            #expect(skipped > 0, "\(transport) naive lost \(skipped) by skipping")
            #expect(storm.events.lost == skipped, "\(transport) naive: \(storm.events)")
            #expect(storm.events.duplicated == 0 && storm.events.outOfOrder == 0)
        }
    }

    /// Across a blackhole outage with short request timeouts, the naive REST fleet tries again
    /// 100 ms after each timeout while the resilient one backs off: the naive fleet's busiest
    /// second has more attempts. (A connect made while the phone is offline waits for the
    /// network rather than failing, so only a timeout or a reset makes a client try again.)
    @Test(.tags(.liveTiming)) func theNaiveFleetKnocksHarderThanTheResilientOne() async throws {
        let outage = TimelineEvent(at: 2, kind: .outage(duration: 4, mode: .blackhole))
        var configuration = BenchEndToEndTests.configuration(BenchEndToEndTests.profile(events: [outage]), duration: 8)
        configuration.transports = [.rest]
        configuration.devices = 4
        configuration.client.rest.requestTimeout = 0.3
        var naiveConfiguration = configuration
        naiveConfiguration.client.reconnect = .naive
        async let resilientRun = BenchRunner.run(configuration, logger: BenchEndToEndTests.logger) { _ in }
        async let naiveRun = BenchRunner.run(naiveConfiguration, logger: BenchEndToEndTests.logger) { _ in }
        let (resilient, naive) = try await (resilientRun, naiveRun)
        let calm = try #require(resilient.report.transports[.rest]?.resilience?.connectionAttempts)
        let storm = try #require(naive.report.transports[.rest]?.resilience?.connectionAttempts)
        #expect(storm.peakPerSecond > calm.peakPerSecond, "naive \(storm), resilient \(calm)")
        #expect(storm.total > calm.total, "naive \(storm), resilient \(calm)")
    }
}
