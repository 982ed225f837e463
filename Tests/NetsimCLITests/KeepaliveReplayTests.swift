import Logging
import NetsimCore
import NetsimInput
import NetsimModel
import NetsimTestSupport
import NetsimTune
import Testing

@testable import NetsimCLI

/// `netsim tune keepalive --verify` end to end: the recommendation and a baseline played live
/// (the bench's grpc-swift client and server through the proxy, 60 times faster than real
/// time) against the model. 20 minutes of emulated time take 20 s.
@Suite(.serialized, .tags(.liveTiming), .playsLive(.commands)) struct KeepaliveReplayTests {
    static let logger: Logger = {
        var logger = Logger(label: "netsim.replay")
        logger.logLevel = .error
        return logger
    }()

    @Test func liveAndModelAgreeOnTheRecommendationsRadioCost() async throws {
        var sweep = KeepaliveSweep(profiles: [try ProfileCatalog.builtin(named: "lte-good")])
        sweep.natTimeouts = [30]
        sweep.keepaliveTimes = [20, 60]
        sweep.keepaliveTimeouts = [10]
        sweep.seeds = 2
        sweep.horizon = 1200
        let results = try sweep.run()
        let verification = try KeepaliveVerification(results)
        #expect(verification.plans.count == 4)  // two seeds, two configurations
        let live = try await verification.playLive(timeScale: 60, logger: Self.logger)
        #expect(live.count == 4)
        let table = verification.compare(live: live, timeScale: 60)
        let recommended = try #require(table.rows.first { $0.role == .recommended })
        #expect(recommended.keepalive == .init(time: 20, timeout: 10))
        // Twenty minutes of a 20 s keepalive: a wake-up for nearly every ping, none lost to the NAT.
        #expect(recommended.live.promotionsPerHour > 60, "\(recommended.live)")
        // The model loses none. Live, grpc-swift has once (one fresh-clone CI run in ten
        // local ones) lost one connection in the 40 minutes: an idle connection whose mapping
        // the NAT had dropped, found when bytes crossed it after an outage had passed over it
        // (a connection the NAT forgot dies of the NAT, not of the outage). The model's client
        // never writes on its idle spare connection again; that one is allowed, no more.
        #expect(recommended.model.natExpiriesPerHour == 0)
        #expect(recommended.live.natExpiriesPerHour <= 1.5, "\(recommended.live)")
        for figure in recommended.figures.prefix(3) {
            #expect(VerificationTable.agrees(figure.model, figure.live), "\(figure.name): model \(figure.model), live \(figure.live)")
        }
        // The 60 s baseline loses its connections to the 30 s NAT, live as in the model.
        let baseline = try #require(table.rows.first { $0.role == .baseline })
        #expect(baseline.live.natExpiriesPerHour > 10 && baseline.model.natExpiriesPerHour > 10, "\(baseline.live) \(baseline.model)")
        #expect(table.markdown().contains("### Verified live"))
    }
}
