import Foundation
import NetsimCore
import NetsimModel
import NetsimReport

/// The tuner's JSON report (schema in docs/tune.md).
public struct KeepaliveReport: Sendable, Codable {
    public var netsimVersion: String
    public var transport: String
    public var serverPolicy: String
    /// gRPC: how the client reconnects after an unclean close (`GRPCReconnection`); absent for
    /// the other transports.
    public var grpcReconnection: String?
    public var horizonSeconds: Double
    public var seeds: Int
    /// True when SIGINT or SIGTERM stopped the sweep before every seed had played: every
    /// figure covers `seedsPlayed` seeds. Absent from a finished sweep.
    public var partial: Bool?
    public var seedsPlayed: Int?
    public var detectWithinSeconds: Double
    public var profiles: [String]
    public var natTimeoutsSeconds: [Double?]
    /// What every scenario met besides the NAT, per hour (`--impairments`).
    public var impairments: Impairments
    /// Each keepalive on each profile behind each NAT timeout, averaged over the seeds.
    public var configs: [Config]
    /// Each keepalive over every profile and NAT timeout, with why it is not viable.
    public var summaries: [Summary]
    /// The viable configurations on the front of energy per hour against p95 detection.
    public var pareto: [Summary]
    public var recommended: Summary?
    /// When no configuration is viable: the best the server's ping policy allows, marked a
    /// compromise (absent otherwise). `disqualified` says what it fails.
    public var compromise: Summary?
    /// How many configurations each constraint ruled out (`serverPolicy`, `natExpiry`,
    /// `detection`; a configuration may fail several).
    public var ruledOut: [String: Int]
    /// The recommendation behind each NAT timeout alone, in the sweep's order.
    public var perNAT: [NATRecommendation]
    /// The NAT timeout that decides `recommended`, and what would be recommended without it;
    /// null when no single NAT decides.
    @ExplicitNull public var drivingNAT: DrivingNAT?
    /// The configurations users bring, measured beside the grid, against the recommendation.
    public var comparisons: [Comparison]
    /// With `--verify`: the recommendation and a baseline played by the model and live.
    public var verification: Verification?
    /// The gates the sweep was given (`--fail-if`, `--baseline`) and how each came out; absent
    /// when it had none.
    public var gates: [GateOutcome]?

    public struct Verification: Sendable, Codable {
        public var profiles: [String]
        /// No NAT is `null`, not a missing key.
        @ExplicitNull public var natTimeoutSeconds: Double?
        public var seeds: Int
        public var horizonSeconds: Double
        public var timeScale: Double
        /// The fraction within which each figure must agree.
        public var tolerance: Double
        public var agrees: Bool
        public var configs: [Config]

        public struct Config: Sendable, Codable {
            /// `recommended` or `baseline`.
            public var role: String
            public var keepalive: Keepalive
            /// The live run cannot see GOAWAYs or the server's pings: those are zero in `live`.
            public var model: KeepaliveResults.Metrics
            public var live: KeepaliveResults.Metrics
        }
    }

    public struct Keepalive: Sendable, Codable, Equatable {
        public var time: Double
        public var timeout: Double
        public var permitWithoutCalls: Bool
        public var adaptive: Bool
        /// gRPC C-core's `max_pings_without_data` as the client leaves it; absent: no limit.
        public var maxPingsWithoutData: Int?
    }

    public struct Config: Sendable, Codable {
        public var keepalive: Keepalive
        public var profile: String
        /// No NAT is `null`, not a missing key.
        @ExplicitNull public var natTimeoutSeconds: Double?
        public var metrics: KeepaliveResults.Metrics
    }

    public struct Summary: Sendable, Codable {
        public var keepalive: Keepalive
        public var metrics: KeepaliveResults.Metrics
        public var disqualified: [String]
    }

    public struct NATRecommendation: Sendable, Codable {
        /// No NAT is `null`, not a missing key.
        @ExplicitNull public var natTimeoutSeconds: Double?
        /// `null` when no configuration is viable behind this NAT.
        @ExplicitNull public var recommended: Summary?
    }

    public struct DrivingNAT: Sendable, Codable {
        @ExplicitNull public var natTimeoutSeconds: Double?
        /// What would be recommended without that NAT, with its figures over the whole grid.
        public var instead: Summary
    }

    public struct Comparison: Sendable, Codable {
        public var name: String
        public var keepalive: Keepalive
        public var energyJoulesPerHour: Double
        public var detectionP95Seconds: Double
        public var natExpiriesPerHour: Double
        /// How much less radio energy per hour the recommendation spends (percent; negative:
        /// more).
        public var recommendationSavesPercent: Double?
    }

    public init(_ results: KeepaliveResults, verification table: VerificationTable? = nil) {
        let sweep = results.sweep
        netsimVersion = NetsimVersion.current
        transport = sweep.transport.rawValue
        serverPolicy = sweep.serverPolicy.name
        grpcReconnection = sweep.transport == .grpc ? sweep.grpcReconnection.rawValue : nil
        horizonSeconds = sweep.horizon
        seeds = sweep.seeds
        if results.isPartial {
            partial = true
            seedsPlayed = results.seedsPlayed
        }
        detectWithinSeconds = sweep.detectWithin
        profiles = sweep.profiles.map(\.name)
        natTimeoutsSeconds = sweep.natTimeouts
        impairments = sweep.impairments
        configs = results.rows.map {
            Config(keepalive: Keepalive($0.keepalive), profile: $0.profile, natTimeoutSeconds: $0.natTimeoutSeconds, metrics: $0.metrics)
        }
        summaries = results.summaries.map(Summary.init)
        pareto = results.pareto.map(Summary.init)
        recommended = results.recommended.map(Summary.init)
        compromise = results.compromise.map(Summary.init)
        ruledOut = Dictionary(uniqueKeysWithValues: results.ruledOut.map { ($0.constraint.rawValue, $0.count) })
        perNAT = results.perNAT.map {
            NATRecommendation(natTimeoutSeconds: $0.natTimeoutSeconds, recommended: $0.recommended.map(Summary.init))
        }
        drivingNAT = results.drivingNAT.map { DrivingNAT(natTimeoutSeconds: $0.natTimeoutSeconds, instead: Summary($0.instead)) }
        comparisons = results.comparisons.map { name, summary in
            let saving = results.recommended.map { recommended in
                100 * (1 - recommended.metrics.energyJoulesPerHour / max(summary.metrics.energyJoulesPerHour, 1e-9))
            }
            return Comparison(
                name: name, keepalive: Keepalive(summary.keepalive), energyJoulesPerHour: summary.metrics.energyJoulesPerHour,
                detectionP95Seconds: summary.metrics.detectionSeconds.p95, natExpiriesPerHour: summary.metrics.natExpiriesPerHour,
                recommendationSavesPercent: saving)
        }
        verification = table.map { table in
            Verification(
                profiles: table.profiles, natTimeoutSeconds: table.natTimeoutSeconds, seeds: table.seeds, horizonSeconds: table.horizon,
                timeScale: table.timeScale, tolerance: KeepaliveVerification.tolerance, agrees: table.agrees,
                configs: table.rows.map { row in
                    Verification.Config(role: row.role.rawValue, keepalive: Keepalive(row.keepalive), model: row.model, live: row.live)
                })
        }
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}

extension KeepaliveReport.Keepalive {
    init(_ keepalive: KeepaliveSweep.Keepalive) {
        self.init(
            time: keepalive.time, timeout: keepalive.timeout, permitWithoutCalls: keepalive.permitWithoutCalls,
            adaptive: keepalive.adaptive,
            maxPingsWithoutData: keepalive.maxPingsWithoutData)
    }
}

extension KeepaliveReport.Summary {
    init(_ summary: KeepaliveResults.Summary) {
        self.init(keepalive: KeepaliveReport.Keepalive(summary.keepalive), metrics: summary.metrics, disqualified: summary.disqualified)
    }
}

extension KeepaliveResults {
    /// The baselines users bring (and the best fixed heartbeat against the adaptive one), by name.
    var comparisons: [(String, Summary)] {
        var named: [(String, Summary)] = []
        let names = [
            "gRPC mobile guidance (60 s / 10 s, no pings without calls)", "a 30 s / 10 s client",
            "a gRPC C-core client given only grpc.keepalive_time_ms = 30000 (max_pings_without_data 2: a ping a minute)",
        ]
        if sweep.transport == .grpc {
            for (name, baseline) in zip(names, KeepaliveSweep.baselines) {
                if let summary = summary(for: baseline) { named.append((name, summary)) }
            }
        }
        if sweep.transport == .quic {
            let quicNames = ["Chromium / Cronet (PING 15 s, idle 30 s)", "quic-go's HTTP/3 client (PING 10 s, idle 30 s)"]
            for (name, baseline) in zip(quicNames, KeepaliveSweep.quicBaselines) {
                if let summary = summary(for: baseline) { named.append((name, summary)) }
            }
        }
        if let adaptive = summaries.first(where: \.keepalive.adaptive) { named.append(("adaptive heartbeat (Mars)", adaptive)) }
        return named
    }
}
