import Foundation
import NetsimCore
import NetsimInput
import NetsimModel
import NetsimTestSupport
import Testing

@testable import NetsimTune

/// The tuner's acceptance: hand-checked figures on small sweeps.
@Suite(.computes)
struct KeepaliveTunerTests {
    static func sweep(
        _ profile: String = "lte-good", transport: KeepaliveSweep.Transport = .grpc, nat: [Double?], times: [Double],
        timeouts: [Double] = [10], seeds: Int = 4
    ) throws -> KeepaliveSweep {
        var sweep = KeepaliveSweep(profiles: [try ProfileCatalog.builtin(named: profile)], transport: transport)
        sweep.natTimeouts = nat
        sweep.keepaliveTimes = times
        sweep.keepaliveTimeouts = timeouts
        sweep.seeds = seeds
        sweep.horizon = 2 * 3600
        return sweep
    }

    /// SIGTERM during a long sweep exited 143 with no report. Stopped between
    /// seeds, the sweep reports the seeds played, for every configuration, marked partial.
    @Test func aStoppedSweepReportsTheSeedsPlayedMarkedPartial() throws {
        let sweep = try Self.sweep(nat: [30, nil], times: [20, 60], seeds: 3)
        var asked = 0
        let results = try sweep.run(shouldStop: {
            asked += 1
            return asked == 2
        })
        #expect(results.seedsPlayed == 2 && results.isPartial)
        let finished = try sweep.run()
        #expect(finished.seedsPlayed == 3 && !finished.isPartial)
        #expect(results.rows.count == finished.rows.count)
        let report = try JSONSerialization.jsonObject(with: try KeepaliveReport(results).json()) as? [String: Any]
        #expect(report?["partial"] as? Bool == true && report?["seedsPlayed"] as? Int == 2)
        let finishedReport = try JSONSerialization.jsonObject(with: try KeepaliveReport(finished).json()) as? [String: Any]
        #expect(finishedReport?["partial"] == nil)
        let line = "Partial: the sweep was stopped (SIGINT or SIGTERM) after 2 of 3 seeds"
        #expect(KeepaliveRendering.markdown(results).contains("**" + line))
        #expect(KeepaliveRendering.html(results).contains("<p><strong>" + line))
        #expect(!KeepaliveRendering.markdown(finished).contains("Partial"))
    }

    /// The C-core baseline (only `grpc.keepalive_time_ms` = 30 s: `max_pings_without_data` 2)
    /// pings once a minute after its first two on an idle stream, so behind a 45 s NAT it loses
    /// its connection every 2 min or 2 min 20 s (about 28 an hour); the 30 s client with no limit
    /// keeps it. Priced as it behaves: NAT expiries, reconnects and a slower p95 detection.
    @Test func theCCoreBaselineIsPricedAsItBehaves() throws {
        var sweep = try Self.sweep(nat: [45], times: [20], timeouts: [10], seeds: 2)
        sweep.horizon = 3600
        sweep.impairments = .none
        let results = try sweep.run()
        let plain = try #require(results.summary(for: .init(time: 30, timeout: 10)))
        let core = try #require(results.summary(for: .init(time: 30, timeout: 20, maxPingsWithoutData: 2)))
        #expect(plain.metrics.natExpiriesPerHour == 0, "\(plain.metrics)")
        #expect(core.metrics.natExpiriesPerHour > 20, "\(core.metrics)")
        #expect(core.ruledOutBy.contains(.natExpiry) && !plain.ruledOutBy.contains(.natExpiry))
        #expect(core.keepalive.label == "30s / 20s, C-core max_pings_without_data 2")
        let report = try JSONSerialization.jsonObject(with: try KeepaliveReport(results).json()) as? [String: Any]
        let comparisons = try #require(report?["comparisons"] as? [[String: Any]])
        #expect(
            comparisons.contains { ($0["name"] as? String)?.hasPrefix("a gRPC C-core client given only grpc.keepalive_time_ms") == true })
    }

    /// On lte-good without a NAT or impairments, a 60 s keepalive costs one isolated wake-up a
    /// minute (about 2.64 J each on its verizon-lte radio: the promotion, the inactivity timer
    /// and 9.8 s of DRX at a 320 ms cycle) plus idle. Over whole keepalive periods a period is
    /// the 60 s plus the ping's round trip (the timer restarts at the ACK), so a little under 60
    /// wake-ups an hour.
    @Test func aSixtySecondKeepaliveCostsOneWakeUpAMinute() throws {
        var sweep = try Self.sweep(nat: [nil], times: [60], seeds: 2)
        sweep.horizon = 3600
        sweep.impairments = .none
        let results = try sweep.run()
        let summary = try #require(results.summary(for: .init(time: 60, timeout: 10)))
        #expect((59.5..<60).contains(summary.metrics.promotionsPerHour), "\(summary.metrics.promotionsPerHour)")
        // Idle power is taken off the whole hour, so each wake-up's 10.2 s awake shows without
        // the 19.955 mW it would have spent idle: 2.64 - 0.2 J.
        let perWakeUp = (summary.metrics.energyJoulesPerHour - 0.019955 * 3600) / summary.metrics.promotionsPerHour
        #expect(abs(perWakeUp - (2.64 - 0.019955 * 10.2)) < 0.1, "\(perWakeUp) J a wake-up")
    }

    /// Item 10: one recommendation per NAT timeout, and the NAT that decides the overall one.
    /// Behind a 30 s NAT only pings under 30 s keep the connection (15 s and 20 s; the cheaper
    /// of two is taken); behind 350 s or none, 60 s and 4 min keep it too and cost less. The
    /// overall choice is the 30 s NAT's, and that NAT is named as deciding it.
    @Test func eachNATHasItsRecommendationAndTheDecidingNATIsNamed() throws {
        var sweep = try Self.sweep(nat: [30, 350, nil], times: [15, 20, 60, 240], seeds: 2)
        sweep.detectWithin = 900
        let results = try sweep.run()
        let perNAT = results.perNAT.map { $0.recommended?.keepalive.time }
        #expect(perNAT[0] == 20, "\(perNAT)")
        #expect(perNAT[1].map { $0 > 20 } == true && perNAT[2].map { $0 > 20 } == true, "\(perNAT)")
        #expect(results.recommended?.keepalive.time == 20)
        let driving = try #require(results.drivingNAT)
        #expect(driving.natTimeoutSeconds == 30 && driving.instead.keepalive.time > 20)
        #expect(driving.instead.disqualified.contains { $0.contains("NAT expiry at 30 s") })
        let markdown = KeepaliveRendering.markdown(results)
        #expect(markdown.contains("The 30 s NAT decides the overall choice: without it, "))
        #expect(markdown.contains("| 30 s | 20s / 10s |"))
        let report = try JSONSerialization.jsonObject(with: KeepaliveReport(results).json()) as? [String: Any]
        let rows = try #require(report?["perNAT"] as? [[String: Any]])
        #expect(rows.count == 3 && rows[2]["natTimeoutSeconds"] is NSNull)
        #expect((report?["drivingNAT"] as? [String: Any])?["natTimeoutSeconds"] as? Double == 30)
        #expect(KeepaliveRendering.html(results).contains("<h2>Per NAT timeout</h2>"))
    }

    /// With a 30 s NAT timeout a 60 s keepalive loses its connections to the NAT and is never
    /// recommended; 20 s keeps them.
    @Test func aThirtySecondNATRulesOutAMinuteButNotTwentySeconds() throws {
        let results = try Self.sweep(nat: [30], times: [20, 60]).run()
        let minute = try #require(results.summary(for: .init(time: 60, timeout: 10)))
        let twenty = try #require(results.summary(for: .init(time: 20, timeout: 10)))
        #expect(minute.metrics.natExpiriesPerHour > 0)
        #expect(!minute.viable)
        #expect(twenty.metrics.natExpiriesPerHour == 0)
        #expect(twenty.viable, "\(twenty.disqualified)")
        #expect(results.recommended?.keepalive.time != 60)
        #expect(results.recommended?.keepalive == twenty.keepalive)
    }

    /// grpc-swift 2 leaves an idle second connection after some reconnections
    /// (`GRPCClientModel`), and nothing pings it: behind a 30 s NAT a 20 s keepalive keeps the
    /// call's connection but loses that one; with pings without calls it keeps both, so that is
    /// recommended. A client that reconnects with one connection loses nothing with 20 s.
    @Test func grpcSwift2sIdleConnectionNeedsPingsWithoutCalls() throws {
        var sweep = try Self.sweep(nat: [30], times: [20], seeds: 2)
        sweep.permitWithoutCalls = [false, true]
        sweep.grpcReconnection = .grpcSwift2
        let results = try sweep.run()
        let plain = try #require(results.summary(for: .init(time: 20, timeout: 10)))
        let permitted = try #require(results.summary(for: .init(time: 20, timeout: 10, permitWithoutCalls: true)))
        #expect(plain.metrics.natExpiriesPerHour > 0 && plain.ruledOutBy.contains(.natExpiry), "\(plain.metrics)")
        #expect(permitted.metrics.natExpiriesPerHour == 0 && permitted.viable, "\(permitted.disqualified)")
        #expect(results.recommended?.keepalive == permitted.keepalive)
        #expect(
            KeepaliveRendering.markdown(results).hasPrefix("## netsim tune keepalive: grpc (grpc-swift-2 reconnection), server policy none")
        )
        let json = try JSONSerialization.jsonObject(with: KeepaliveReport(results).json()) as? [String: Any]
        #expect(json?["grpcReconnection"] as? String == "grpc-swift-2")

        sweep.grpcReconnection = .oneConnection
        let one = try #require(try sweep.run().summary(for: .init(time: 20, timeout: 10)))
        #expect(one.metrics.natExpiriesPerHour == 0, "\(one.metrics)")
    }

    /// A gRPC core server accepts a ping every 5 minutes: a 20 s keepalive on an idle stream
    /// collects strikes and is sent away with GOAWAY too_many_pings; 5 minutes is not.
    @Test func grpcCoreSendsATwentySecondKeepaliveAway() throws {
        var sweep = try Self.sweep(nat: [nil], times: [20, 300], seeds: 2)
        sweep.serverPolicy = .grpcCore
        let results = try sweep.run()
        let twenty = try #require(results.summary(for: .init(time: 20, timeout: 10)))
        let five = try #require(results.summary(for: .init(time: 300, timeout: 10)))
        #expect(twenty.metrics.goaways > 0)
        #expect(twenty.disqualified.contains { $0.contains("GOAWAY") })
        #expect(five.metrics.goaways == 0)
    }

    @Test func theKneeAndTheFront() {
        func summary(_ time: Double, energy: Double, detection: Double) -> KeepaliveResults.Summary {
            let metrics = KeepaliveResults.Metrics(
                energyJoulesPerHour: energy, wakeSecondsPerHour: 0, promotionsPerHour: 0, bytesPerHour: 0, natExpiriesPerHour: 0,
                detectionSeconds: .init(p50: detection, p95: detection, max: detection, mean: detection, count: 1),
                blackoutSecondsPerHour: 0,
                reconnectsPerHour: 0, goaways: 0, serverPingsPerSecondPerMillionClients: 0)
            return .init(keepalive: .init(time: time, timeout: 5), metrics: metrics, disqualified: [])
        }
        let points = [
            summary(10, energy: 3000, detection: 10), summary(20, energy: 1500, detection: 22), summary(30, energy: 1000, detection: 60),
            summary(45, energy: 1600, detection: 40),
        ]
        let front = KeepaliveResults.front(points)
        #expect(front.map(\.keepalive.time) == [30, 20, 10], "45 s is beaten by 20 s on both")
        #expect(KeepaliveResults.knee(front)?.keepalive.time == 20)
    }

    @Test func badInputIsRefusedBeforeAnyWork() throws {
        var sweep = try Self.sweep(nat: [30], times: [10], timeouts: [20])
        #expect(sweep.problem()?.contains("below its interval") == true)
        sweep = try Self.sweep(nat: [30], times: [60, 600])
        sweep.horizon = 1799
        #expect(sweep.problem()?.contains("holds fewer than 3 periods of the longest keepalive time (10m)") == true)
        #expect(sweep.problem()?.contains("give --horizon 30m or more") == true)
        sweep.horizon = 1800
        #expect(sweep.problem() == nil)
        sweep = try Self.sweep(nat: [], times: [60])
        #expect(sweep.problem() != nil)
        sweep = try Self.sweep(nat: [30], times: [])
        #expect(sweep.problem() != nil)
    }

    @Test func theJSONReportHasItsSchemaKeys() throws {
        let results = try Self.sweep(nat: [30, nil], times: [20, 60], seeds: 2).run()
        let json = try #require(try JSONSerialization.jsonObject(with: KeepaliveReport(results).json()) as? [String: Any])
        for key in ["transport", "serverPolicy", "horizonSeconds", "seeds", "configs", "pareto", "recommended"] {
            #expect(json[key] != nil, "missing \(key)")
        }
        let config = try #require((json["configs"] as? [[String: Any]])?.first)
        #expect(config["natTimeoutSeconds"] != nil)
        // No NAT is null, not a missing key.
        #expect((json["configs"] as? [[String: Any]])?.contains { $0["natTimeoutSeconds"] is NSNull } == true)
        let keepalive = try #require(config["keepalive"] as? [String: Any])
        #expect(Set(keepalive.keys).isSuperset(of: ["time", "timeout", "permitWithoutCalls"]))
        let metrics = try #require(config["metrics"] as? [String: Any])
        for key in [
            "energyJoulesPerHour", "wakeSecondsPerHour", "promotionsPerHour", "bytesPerHour", "natExpiriesPerHour",
            "detectionSeconds", "blackoutSecondsPerHour", "reconnectsPerHour", "goaways", "serverPingsPerSecondPerMillionClients",
        ] {
            #expect(metrics[key] != nil, "missing metric \(key)")
        }
        let html = KeepaliveRendering.html(results)
        #expect(html.contains("<svg") && html.contains("</html>"))
    }

    /// A heat map for every swept profile, not only the first; and a logarithmic
    /// detection axis, on which 20 s and 60 s are apart though the axis reaches 30 minutes.
    @Test func everyProfileHasItsHeatMapAndDetectionIsOnALogAxis() throws {
        var sweep = try Self.sweep(nat: [30], times: [20, 60], seeds: 1)
        sweep.profiles.append(try ProfileCatalog.builtin(named: "nr-sa"))
        sweep.horizon = 3600
        let html = KeepaliveRendering.html(try sweep.run())
        #expect(html.contains("NAT timeout (lte-good)</h2>") && html.contains("NAT timeout (nr-sa)</h2>"))
        #expect(html.contains("p95 detection (log scale)"))
        #expect(html.contains("text-anchor=\"end\">10 s<") && !html.contains("text-anchor=\"end\">10.0 s<"), "one format on the axis")
        let axis = DetectionAxis([8.6, 17.9, 1817])
        #expect(axis.low == 1 && axis.high == 10_000)
        #expect(axis.ticks == [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000])
        #expect(abs(axis.position(20) - 0.325) < 0.001 && abs(axis.position(60) - 0.445) < 0.001)
        #expect(axis.position(0) == 0 && axis.position(1817) < 1)
    }

    /// An adaptive heartbeat lengthens its interval while answers come, so it spends less than
    /// its starting interval would, and is compared with the fixed ones.
    @Test func theAdaptiveHeartbeatIsComparedWithTheFixedOnes() throws {
        var sweep = try Self.sweep(transport: .heartbeat, nat: [nil], times: [210, 600], seeds: 2)
        sweep.adaptive = true
        sweep.horizon = 4 * 3600
        let results = try sweep.run()
        let adaptive = try #require(results.summaries.first { $0.keepalive.adaptive })
        let start = try #require(results.summary(for: .init(time: 210, timeout: 10)))
        #expect(adaptive.metrics.energyJoulesPerHour < start.metrics.energyJoulesPerHour)
        #expect(results.comparisons.contains { $0.0.contains("adaptive") })
    }
}
