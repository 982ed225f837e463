import Foundation
import NetsimCore
import NetsimInput
import NetsimModel
import NetsimTestSupport
import Testing

@testable import NetsimTune

/// `netsim tune keepalive --transport quic`: PING intervals against idle timeouts behind UDP
/// NAT timeouts.
@Suite(.computes)
struct QUICKeepaliveTunerTests {
    static func sweep(nat: [Double?], times: [Double], idleTimeouts: [Double]) throws -> KeepaliveSweep {
        var sweep = try KeepaliveTunerTests.sweep(transport: .quic, nat: nat, times: times, timeouts: idleTimeouts, seeds: 2)
        sweep.horizon = 3600
        sweep.impairments = .none
        return sweep
    }

    /// A QUIC sweep made in Swift starts from QUIC's defaults, as `--transport quic` does: UDP
    /// NAT timeouts and idle timeouts, not TCP's NATs and gRPC's probe timeouts.
    @Test func aQUICSweepStartsFromUDPNATsAndIdleTimeouts() throws {
        let quic = KeepaliveSweep(profiles: [try ProfileCatalog.builtin(named: "lte-good")], transport: .quic)
        #expect(quic.natTimeouts == [30, 60, 120, 180, 300, nil] && quic.keepaliveTimeouts == [30, 60, 120, 300])
        #expect(quic.problem() == nil)
        let grpc = KeepaliveSweep(profiles: [try ProfileCatalog.builtin(named: "lte-good")])
        #expect(grpc.transport == .grpc && grpc.natTimeouts == [30, 60, 120, 350, 600, 1200, 1800, nil])
        #expect(grpc.keepaliveTimeouts == [5, 10, 20])
    }

    /// The grid pairs each PING interval with the idle timeouts at least twice as long (quic-go
    /// sends PINGs at half the idle timeout at most), and always has Chromium's and quic-go's
    /// defaults beside it.
    @Test func theGridPairsEachPingWithIdleTimeoutsTwiceAsLong() throws {
        let sweep = try Self.sweep(nat: [30], times: [10, 20, 45], idleTimeouts: [30, 120])
        #expect(
            sweep.keepalives == [
                .init(time: 10, timeout: 30), .init(time: 10, timeout: 120), .init(time: 20, timeout: 120), .init(time: 45, timeout: 120),
                .init(time: 15, timeout: 30),
            ])
        let lonely = try Self.sweep(nat: [30], times: [60], idleTimeouts: [30])
        #expect(lonely.problem()?.contains("a PING must come before half the idle timeout") == true)
    }

    /// Behind a 30 s UDP NAT with no outages: a PING every 45 s lets the mapping expire before
    /// each one (80 an hour, each a migration, the phone unreachable 15 s each time), so it is
    /// not viable; 20 s keeps it. The recommendation is the cheapest that keeps it, and its
    /// settings are pasted for each stack.
    @Test func aThirtySecondUDPNATRulesOutAPingEvery45Seconds() throws {
        let results = try Self.sweep(nat: [30], times: [10, 20, 45], idleTimeouts: [30, 120]).run()
        let slow = try #require(results.summary(for: .init(time: 45, timeout: 120)))
        #expect((78...80).contains(slow.metrics.natExpiriesPerHour), "\(slow.metrics.natExpiriesPerHour)")
        #expect(slow.metrics.migrationsPerHour == slow.metrics.natExpiriesPerHour)
        #expect(abs(slow.metrics.blackoutSecondsPerHour - 80 * 15.3) < 30, "\(slow.metrics.blackoutSecondsPerHour)")
        #expect(slow.disqualified.first?.contains("the NAT forgets the phone at 30 s") == true)
        let kept = try #require(results.summary(for: .init(time: 20, timeout: 120)))
        #expect(kept.metrics.natExpiriesPerHour == 0 && kept.viable)
        #expect(kept.metrics.reconnectsPerHour == 0 && kept.metrics.migrationsPerHour == 0)
        let pick = try #require(results.recommended)
        #expect(pick.keepalive == .init(time: 20, timeout: 120))
        #expect(pick.metrics.energyJoulesPerHour < slow.metrics.energyJoulesPerHour * 2.5)
        let markdown = KeepaliveRendering.markdown(results)
        #expect(markdown.contains("quic.Config{KeepAlivePeriod: 20 * time.Second, MaxIdleTimeout: 120 * time.Second}"))
        #expect(markdown.contains("idle_timeout=120"))
        #expect(markdown.contains("setIdleConnectionTimeoutSeconds(120)"))
        #expect(markdown.contains("quic.idleTimeout = 120000"))
        #expect(markdown.contains("| migrations / h |"))
        let json = try JSONSerialization.jsonObject(with: try KeepaliveReport(results).json()) as? [String: Any]
        let recommended = json?["recommended"] as? [String: Any]
        #expect((recommended?["metrics"] as? [String: Any])?["migrationsPerHour"] as? Double == 0)
    }

    /// A NAT expiry inside an outage is the outage's: no PING could have kept the mapping, so
    /// it does not count against the keepalive (it still makes the phone unreachable).
    @Test func anExpiryInAnOutageIsNotTheKeepalives() throws {
        var sweep = try Self.sweep(nat: [30], times: [10], idleTimeouts: [120])
        sweep.impairments = Impairments(name: "long outages", list: [.init(.outage(duration: 60, mode: .blackhole), perHour: 3)])
        let results = try sweep.run()
        let summary = try #require(results.summary(for: .init(time: 10, timeout: 120)))
        #expect(summary.metrics.natExpiriesPerHour == 0)
        #expect(summary.metrics.migrationsPerHour ?? 0 >= 1, "the mapping expired in the outage: the PING after it rebinds")
        #expect(summary.metrics.detectionSeconds.max >= 60, "unreachable for the outage")
    }
}
