import NetsimCore
import NetsimModel

/// `netsim tune keepalive --verify`: the recommended configuration and one baseline, each
/// played by the model and live (the real grpc-swift client and server through the real proxy,
/// every timer scaled together), and the two compared.
///
/// What is replayed: on every swept profile, the shortest NAT idle timeout of the sweep (where
/// a keepalive is most likely to lose its connection) with the sweep's first `replayedSeeds`
/// seeds, so that half the runs have a silent NAT and half a resetting one, each with the
/// sweep's impairments at the same times as in the sweep.
public struct KeepaliveVerification: Sendable {
    /// Model and live agree when each compared figure is within this fraction of the larger.
    public static let tolerance = 0.15
    /// Seeds replayed per profile and configuration. A detection time depends on where the
    /// keepalive's phase stands when a connection dies, which drifts apart live and in the
    /// model over hours; four seeds give each configuration a few dozen deaths to compare.
    public static let replayedSeeds = 4

    public enum Role: String, Sendable {
        case recommended, baseline
    }

    /// One scenario to play both ways.
    public struct Plan: Sendable {
        public var role: Role
        public var keepalive: KeepaliveSweep.Keepalive
        public var profileName: String
        public var natTimeoutSeconds: Double?
        /// The profile with the scenario's NAT and impairments.
        public var profile: Profile
        public var client: ClientSettings.GRPCClientSettings
        public var serverPolicy: GRPCServerPolicy
        public var workload: Workload
        public var horizon: Double
        /// The device's seed (jitter and loss draws), the same for the model and the proxy.
        public var deviceSeed: UInt64
    }

    /// What a live run measured, from the proxy's report and the app's record.
    public struct LiveMeasurement: Sendable {
        public var radio: RadioReport
        /// The proxy's events, on the same clock as `openCallEnds` and `end`.
        public var events: [DeviceEvent]
        /// When an open call ended: the app noticing its connection was gone.
        public var openCallEnds: [Double]
        /// When the proxy stopped.
        public var end: Double
        /// Every event by kind, including those past the event list's limit.
        public var eventCounts: [DeviceEvent.Kind: Int]
        public var bytes: PerDirection<Int>
        public var connectionsOpened: Int

        public init(
            radio: RadioReport, events: [DeviceEvent], openCallEnds: [Double], end: Double, eventCounts: [DeviceEvent.Kind: Int],
            bytes: PerDirection<Int>, connectionsOpened: Int
        ) {
            self.eventCounts = eventCounts
            self.radio = radio
            self.events = events
            self.openCallEnds = openCallEnds
            self.end = end
            self.bytes = bytes
            self.connectionsOpened = connectionsOpened
        }
    }

    public let sweep: KeepaliveSweep
    public let plans: [Plan]

    /// Why the results cannot be verified live, if they cannot.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// The plans for the results' recommendation and the first baseline that differs from it.
    public init(_ results: KeepaliveResults) throws(Refusal) {
        let sweep = results.sweep
        guard sweep.transport == .grpc else {
            throw Refusal(description: "--verify replays the gRPC transport only (the real grpc-swift client and server)")
        }
        guard let recommended = results.recommended?.keepalive else {
            throw Refusal(description: "no configuration is viable, so there is no recommendation to verify")
        }
        let baseline = KeepaliveSweep.baselines.first { $0 != recommended } ?? KeepaliveSweep.baselines[0]
        let natIndex =
            sweep.natTimeouts.indices.min { lhs, rhs in
                (sweep.natTimeouts[lhs] ?? .infinity) < (sweep.natTimeouts[rhs] ?? .infinity)
            } ?? 0
        var plans: [Plan] = []
        for (role, keepalive) in [(Role.recommended, recommended), (.baseline, baseline)] {
            for profile in sweep.profiles.indices {
                for seed in 0..<min(Self.replayedSeeds, sweep.seeds) {
                    let scenario = KeepaliveSweep.Scenario(keepalive: 0, profile: profile, nat: natIndex, seed: seed)
                    guard case .grpc(var client, let policy) = sweep.client(keepalive) else { continue }
                    // Live is grpc-swift 2's client: the model plays its reconnection, whatever
                    // the sweep's.
                    client.reconnection = .grpcSwift2
                    plans.append(
                        Plan(
                            role: role, keepalive: keepalive, profileName: sweep.profiles[profile].name,
                            natTimeoutSeconds: sweep.natTimeouts[natIndex], profile: sweep.scenarioProfile(scenario), client: client,
                            serverPolicy: policy, workload: sweep.workload, horizon: sweep.horizon,
                            deviceSeed: KeepaliveSweep.deviceSeed(scenario)))
                }
            }
        }
        self.sweep = sweep
        self.plans = plans
    }

    /// Each plan played by the model engine, with the client live plays.
    func modelMetrics() -> [ScenarioMetrics] {
        plans.map { plan in
            ScenarioMetrics(
                ModelEngine.playDevice(
                    profile: plan.profile, client: .grpc(plan.client, server: plan.serverPolicy), workload: plan.workload,
                    duration: plan.horizon, seed: plan.deviceSeed),
                horizon: plan.horizon)
        }
    }

    /// Compares the model with `live`, one measurement per plan in order, played `timeScale`
    /// times faster than the wall clock.
    public func compare(live: [LiveMeasurement], timeScale: Double) -> VerificationTable {
        precondition(live.count == plans.count, "one live measurement per plan")
        let model = modelMetrics()
        let measured = zip(plans, live).map { plan, live in ScenarioMetrics(live: live, horizon: plan.horizon) }
        var rows: [VerificationTable.Row] = []
        for role in [Role.recommended, .baseline] {
            let indices = plans.indices.filter { plans[$0].role == role }
            guard let first = indices.first else { continue }
            let modelMetrics = KeepaliveResults.combine(indices.map { model[$0] })
            let liveMetrics = KeepaliveResults.combine(indices.map { measured[$0] })
            rows.append(VerificationTable.Row(role: role, keepalive: plans[first].keepalive, model: modelMetrics, live: liveMetrics))
        }
        return VerificationTable(
            rows: rows, profiles: sweep.profiles.map(\.name), natTimeoutSeconds: plans.first?.natTimeoutSeconds,
            seeds: min(Self.replayedSeeds, sweep.seeds), horizon: sweep.horizon, timeScale: timeScale)
    }
}

/// Model against live for each verified configuration.
public struct VerificationTable: Sendable {
    public struct Row: Sendable {
        public var role: KeepaliveVerification.Role
        public var keepalive: KeepaliveSweep.Keepalive
        public var model: KeepaliveResults.Metrics
        public var live: KeepaliveResults.Metrics

        /// The compared figures: name, model, live. Detection is compared by its mean and p95,
        /// not its median: each detection depends on the keepalive's phase when the connection
        /// died, which drifts apart live and in the model over hours, and the median of a few
        /// dozen such draws swings by seconds where the mean averages them.
        public var figures: [(name: String, model: Double, live: Double)] {
            [
                ("energy J/h", model.energyJoulesPerHour, live.energyJoulesPerHour),
                ("wake s/h", model.wakeSecondsPerHour, live.wakeSecondsPerHour),
                ("promotions/h", model.promotionsPerHour, live.promotionsPerHour),
                ("NAT expiries/h", model.natExpiriesPerHour, live.natExpiriesPerHour),
                ("detection mean s", model.detectionSeconds.mean, live.detectionSeconds.mean),
                ("detection p95 s", model.detectionSeconds.p95, live.detectionSeconds.p95),
            ]
        }
    }

    public var rows: [Row]
    public var profiles: [String]
    public var natTimeoutSeconds: Double?
    public var seeds: Int
    public var horizon: Double
    public var timeScale: Double

    /// Whether `model` and `live` agree within the tolerance (both zero agrees).
    public static func agrees(_ model: Double, _ live: Double) -> Bool {
        let larger = max(abs(model), abs(live))
        return larger == 0 || abs(model - live) <= KeepaliveVerification.tolerance * larger
    }

    public var agrees: Bool {
        rows.allSatisfy { row in row.figures.allSatisfy { Self.agrees($0.model, $0.live) } }
    }

    /// The Markdown section: one row per configuration and figure.
    public func markdown() -> String {
        let nat = natTimeoutSeconds.map { "behind a \(KeepaliveRendering.natTimeout($0)) NAT" } ?? "with no NAT"
        var text = "### Verified live\n\n"
        text +=
            "The model against the real grpc-swift client and server through the real proxy, on "
            + "\(profiles.joined(separator: ", ")) \(nat), \(seeds) seed(s) of \(Quantity.formatDuration(horizon)) each "
            + "(with the sweep's impairments at the same times), played \(String(format: "%g", timeScale)) times faster than real time. Agreement: within \(Int(KeepaliveVerification.tolerance * 100))%.\n\n"
        text += "| configuration | figure | model | live | live/model | |\n|---|---|---|---|---|---|\n"
        for row in rows {
            for figure in row.figures {
                let ratio = figure.model > 0 ? String(format: "%.3f", figure.live / figure.model) : "–"
                text +=
                    "| \(row.role.rawValue): \(row.keepalive.label) | \(figure.name) | \(Self.number(figure.model)) | "
                    + "\(Self.number(figure.live)) | \(ratio) | \(Self.agrees(figure.model, figure.live) ? "ok" : "**differs**") |\n"
            }
        }
        text += "\n" + (agrees ? "Model and live agree.\n" : "**Model and live differ by more than the tolerance.**\n")
        return text
    }

    static func number(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }
}

extension ScenarioMetrics {
    /// A live run's figures, per hour of the proxy's run. The live run cannot see GOAWAYs or
    /// the server's pings: those stay zero.
    init(live: KeepaliveVerification.LiveMeasurement, horizon: Double) {
        let duration = max(live.radio.durationSeconds, horizon)
        let hours = duration / 3600
        energyJoulesPerHour = live.radio.energyJoules / hours
        wakeSecondsPerHour = live.radio.wakeSeconds / hours
        promotionsPerHour = Double(live.radio.promotions) / hours
        bytesPerHour = Double(live.bytes.up + live.bytes.down) / hours
        natExpiriesPerHour = Double(live.eventCounts[.natExpiry, default: 0]) / hours
        reconnectsPerHour = Double(max(0, live.connectionsOpened - 1)) / hours
        goaways = 0
        serverPingsPerSecond = 0
        detections = ConnectionDeaths.detectionDelays(events: live.events, noticed: live.openCallEnds, end: live.end)
        blackoutSecondsPerHour = detections.reduce(0, +) / hours
    }
}
