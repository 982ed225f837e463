import Logging
import NetsimCore
import NetsimModel
import NetsimTestSupport
import Testing

@testable import NetsimBench

/// Every transport through the proxy on short profiles: everything delivered exactly once,
/// also across an outage that resets every connection. Serialized: the runs share two cores.
@Suite(.serialized, .tags(.liveTiming), .playsLive(.benches)) struct BenchEndToEndTests {
    static let logger: Logger = {
        var logger = Logger(label: "netsim.bench.test")
        logger.logLevel = .error
        return logger
    }()

    /// A 20 ms link each way at 5 Mbit/s, no radio: fast, so the runs stay short.
    static func profile(events: [TimelineEvent] = []) -> Profile {
        let link = LinkParameters(capacity: .rate(bitsPerSecond: 5e6), delay: 0.02)
        return Profile(
            name: "short", description: "a short test profile",
            networks: [Network(name: "net", radio: .none, up: link, down: link)], start: "net",
            timeline: Timeline(events: events))
    }

    /// A busy workload, so a few seconds carry enough events and messages.
    static func configuration(_ profile: Profile, duration: Double) -> BenchConfiguration {
        var configuration = BenchConfiguration(profile: profile)
        configuration.devices = 2
        configuration.duration = duration
        configuration.drainTimeout = 15
        configuration.workload.eventMeanGap = 0.3
        configuration.workload.messageInterval = 0.7
        configuration.client.rest.pollInterval = 0.2
        configuration.client.rest.backoff = Backoff(initial: 0.2, maximum: 1, multiplier: 2, jitter: 0)
        configuration.client.ws.backoff = Backoff(initial: 0.2, maximum: 1, multiplier: 2, jitter: 0)
        configuration.client.grpc.backoff = Backoff(initial: 0.2, maximum: 1, multiplier: 2, jitter: 0)
        return configuration
    }

    static func expectEverythingDeliveredOnce(_ result: BenchResult) {
        for (transport, report) in result.report.orderedTransports {
            #expect(report.events.sent > 10, "\(transport): \(report.events.sent) events sent")
            #expect(report.events.lost == 0, "\(transport): \(report.events.lost) events lost")
            #expect(report.events.duplicated == 0, "\(transport): \(report.events.duplicated) events duplicated")
            #expect(report.events.outOfOrder == 0, "\(transport): \(report.events.outOfOrder) events out of order")
            #expect(report.messages.sent > 4, "\(transport): \(report.messages.sent) messages sent")
            #expect(report.messages.lost == 0, "\(transport): \(report.messages.lost) messages lost")
            #expect(report.latencyMs.count == report.events.delivered)
            #expect(report.bytes.up > 0 && report.bytes.down > 0)
            #expect(report.bytes.wire.up > report.bytes.up && report.bytes.wire.down > report.bytes.down)
        }
    }

    @Test func everyTransportDeliversEverythingExactlyOnce() async throws {
        let result = try await BenchRunner.run(Self.configuration(Self.profile(), duration: 5), logger: Self.logger) { _ in }
        #expect(Set(result.report.transports.keys) == [.rest, .ws, .grpc])
        Self.expectEverythingDeliveredOnce(result)
        for (transport, report) in result.report.orderedTransports {
            #expect(report.reconnects == 0, "\(transport) reconnected \(report.reconnects) times")
            // Events arrive within a poll interval (REST) or a one-way trip (push), plus the link;
            // the bounds leave room for a busy machine.
            #expect(report.latencyMs.p50 < (transport == .rest ? 500 : 200), "\(transport) p50 \(report.latencyMs.p50) ms")
        }
    }

    @Test func aResetOutageLosesAndDuplicatesNothing() async throws {
        let outage = TimelineEvent(at: 2, kind: .outage(duration: 1.5, mode: .reset))
        let result = try await BenchRunner.run(
            Self.configuration(Self.profile(events: [outage]), duration: 6), logger: Self.logger
        ) { _ in }
        Self.expectEverythingDeliveredOnce(result)
        for (transport, report) in result.report.orderedTransports {
            #expect(report.reconnects >= 2, "\(transport): each of 2 devices reconnects (\(report.reconnects))")
            #expect(report.recoverySeconds.count >= 1, "\(transport): the outage held something up")
            #expect(report.recoverySeconds.max < 5, "\(transport): recovered in \(report.recoverySeconds.max) s")
        }
    }

    @Test func aGRPCCallReachingItsDeadlineIsRenewedWithoutLossOrDuplicate() async throws {
        var configuration = Self.configuration(Self.profile(), duration: 4)
        configuration.transports = [.grpc]
        configuration.client.grpc.callTimeLimit = 1
        let result = try await BenchRunner.run(configuration, logger: Self.logger) { _ in }
        Self.expectEverythingDeliveredOnce(result)
        let grpc = try #require(result.report.transports[.grpc])
        #expect(grpc.client.callRenewals >= 2 * 3, "each of 2 devices renews about every second: \(grpc.client.callRenewals)")
        #expect(grpc.reconnects == 0, "a renewal is a new call on the same connection")
    }
}
