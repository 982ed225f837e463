import NetsimCore
import NetsimInput
import NetsimModel
import NetsimTestSupport
import Testing

@testable import NetsimTune

/// `--verify`'s pure parts: which runs it replays, how a live run's detection times are read
/// off its events and call ends, and when model and live agree.
@Suite(.computes)
struct KeepaliveVerificationTests {
    static func outage(at time: Double, mode: DeviceEvent.Mode, affected: Int) -> DeviceEvent {
        DeviceEvent(at: time, kind: .outage, network: "lte", mode: mode, durationSeconds: 30, affectedConnections: affected)
    }

    /// Deaths at 100 s (blackhole) and 350 s (a NAT mapping that expired then, found by a ping
    /// at 370 s); a stall and an outage that met no connection kill nothing. The app noticed at
    /// 125 s and 380 s; a second blackhole at 110 s hit the connection already dead since 100 s.
    @Test func detectionsPairEachDeathWithTheNextCallEnd() {
        let events = [
            Self.outage(at: 100, mode: .blackhole, affected: 1),
            Self.outage(at: 110, mode: .blackhole, affected: 1),
            Self.outage(at: 200, mode: .stall, affected: 0),
            Self.outage(at: 250, mode: .blackhole, affected: 0),
            DeviceEvent(at: 370, kind: .natExpiry, network: "lte", mode: .silent, affectedConnections: 1, expiredAt: 350),
            DeviceEvent(at: 500, kind: .handover, network: "lte", mode: .reset, durationSeconds: 2, affectedConnections: 1),
        ]
        let detections = ConnectionDeaths.detectionDelays(events: events, noticed: [380, 125, 500.05], end: 600)
        #expect(detections.count == 3)
        #expect(abs(detections[0] - 25) < 1e-9)
        #expect(abs(detections[1] - 30) < 1e-9)
        #expect(abs(detections[2] - 0.05) < 1e-9)
    }

    /// A live grpc-swift baseline (60 s / 10 s behind a 30 s NAT), traced: after a keepalive
    /// timeout both racing connections were ready at 618 s, and the load balancer rolled over,
    /// leaving the call on c14 and c15 idle. Both mappings expired near 648.5 s. c14's ping found
    /// its gone at 677.8 s and its keepalive timed out at 687.7 s; the app reopened its call, which
    /// went on c15, whose mapping its HEADERS found gone at 688.05 s, and c15's own keepalive timed
    /// out at 748.6 s. Two waits on a dead connection: 39.1 s, then 60.55 s from the reopened call
    /// (not one of 39.2 s, as when the first notice swallowed both deaths).
    @Test func aMappingThatExpiredIdleCountsFromTheCallThatMovedOntoIt() {
        let events = [
            DeviceEvent(at: 677.8, kind: .natExpiry, network: "lte", mode: .silent, affectedConnections: 1, expiredAt: 648.6),
            DeviceEvent(at: 688.05, kind: .natExpiry, network: "lte", mode: .silent, affectedConnections: 1, expiredAt: 648.5),
        ]
        let detections = ConnectionDeaths.detectionDelays(events: events, noticed: [748.6, 687.7], end: 900)
        #expect(detections.count == 2)
        #expect(abs(detections[0] - 39.1) < 1e-9)
        #expect(abs(detections[1] - 60.55) < 1e-9)
    }

    /// A death nobody noticed by the end counts with the time it had been dead, as the model's.
    @Test func aDeathStillUnnoticedAtTheEndCountsItsTimeSoFar() {
        let events = [Self.outage(at: 100, mode: .blackhole, affected: 1), Self.outage(at: 900, mode: .reset, affected: 1)]
        let detections = ConnectionDeaths.detectionDelays(events: events, noticed: [130], end: 1000)
        #expect(detections == [30, 100])
    }

    @Test func theRecommendationAndABaselineOnEveryProfileAtTheShortestNATWithTheFirstSeeds() throws {
        var sweep = KeepaliveSweep(profiles: [try ProfileCatalog.builtin(named: "lte-good"), try ProfileCatalog.builtin(named: "nr-sa")])
        sweep.natTimeouts = [nil, 120, 30]
        sweep.keepaliveTimes = [20, 60]
        sweep.keepaliveTimeouts = [10]
        sweep.seeds = 3
        sweep.horizon = 3600
        let results = try sweep.run()
        let recommended = try #require(results.recommended?.keepalive)
        #expect(recommended == .init(time: 20, timeout: 10))
        let verification = try KeepaliveVerification(results)
        // Two configurations on two profiles, with the sweep's three seeds (at most four).
        #expect(verification.plans.count == 2 * 2 * 3)
        #expect(verification.plans.allSatisfy { $0.natTimeoutSeconds == 30 && $0.horizon == 3600 })
        #expect(verification.plans.filter { $0.role == .recommended }.allSatisfy { $0.keepalive == recommended })
        #expect(verification.plans.filter { $0.role == .baseline }.allSatisfy { $0.keepalive == KeepaliveSweep.baselines[0] })
        // The same impairments as the sweep's seeds: the NAT silent on even ones, resetting on odd.
        #expect(verification.plans.map(\.profile.nat?.mode) == Array(repeating: [.silent, .reset, .silent], count: 4).flatMap { $0 })
        #expect(Set(verification.plans.map(\.deviceSeed)) == [1, 2, 3])
        #expect(verification.plans.allSatisfy { $0.client.keepaliveTime == $0.keepalive.time && $0.client.callTimeLimit == nil })
        // The sweep played one-connection clients; live is grpc-swift 2, and so is the model
        // it is compared with: two connections after each unclean close, not one.
        #expect(verification.plans.allSatisfy { $0.client.reconnection == .grpcSwift2 })
        let model = verification.modelMetrics()
        let playedAsSwept = verification.plans.map { plan in
            ScenarioMetrics(
                ModelEngine.playDevice(
                    profile: plan.profile, client: sweep.client(plan.keepalive), workload: plan.workload, duration: plan.horizon,
                    seed: plan.deviceSeed),
                horizon: plan.horizon)
        }
        #expect(zip(model, playedAsSwept).contains { $0.reconnectsPerHour > $1.reconnectsPerHour })
    }

    @Test func onlyGRPCWithARecommendationCanBeVerified() throws {
        func sweep(_ transport: KeepaliveSweep.Transport, nat: Double?, horizon: Double) throws -> KeepaliveSweep {
            var sweep = KeepaliveSweep(profiles: [try ProfileCatalog.builtin(named: "lte-good")], transport: transport)
            sweep.natTimeouts = [nat]
            sweep.keepaliveTimes = [60]
            sweep.seeds = 1
            sweep.horizon = horizon
            return sweep
        }
        #expect(throws: KeepaliveVerification.Refusal.self) { try KeepaliveVerification(sweep(.ws, nat: nil, horizon: 600).run()) }

        // A 60 s keepalive behind a 30 s NAT is never viable: nothing to verify.
        #expect(throws: KeepaliveVerification.Refusal.self) { try KeepaliveVerification(sweep(.grpc, nat: 30, horizon: 3600).run()) }
    }

    @Test func agreementIsWithinFifteenPercentOfTheLarger() {
        #expect(VerificationTable.agrees(100, 115))
        #expect(VerificationTable.agrees(100, 87))
        #expect(!VerificationTable.agrees(100, 84))
        #expect(!VerificationTable.agrees(0, 1))
        #expect(VerificationTable.agrees(0, 0))
    }
}
