import Dispatch
import Foundation
import NetsimCore
import NetsimModel

/// What `netsim tune keepalive` sweeps, and against what. Every default carries its source in
/// docs/tune.md and the command's help.
public struct KeepaliveSweep: Sendable, Codable, Equatable {
    /// How the client keeps its connection alive.
    public enum Transport: String, Sendable, CaseIterable, Codable {
        /// gRPC keepalive (gRFC A8) on an open bidi stream, against a server policy.
        case grpc
        /// WebSocket pings (the ping interval; a pong missing by the next ping closes).
        case ws
        /// The kernel's TCP keepalive (TCP_KEEPIDLE = time, TCP_KEEPINTVL = timeout, 9 probes).
        case tcp
        /// An application heartbeat answered by the server (fixed, or `--adaptive`).
        case heartbeat
        /// QUIC PINGs (the time: quic-go's `KeepAlivePeriod`) against the connection's idle
        /// timeout (the timeout: `max_idle_timeout`), behind UDP NAT mappings; the connection
        /// migrates when a mapping changed instead of dying.
        case quic

        /// The NAT timeouts a sweep of this transport meets unless told: UDP ones for QUIC.
        public var defaultNATTimeouts: [Double?] {
            self == .quic ? KeepaliveSweep.defaultUDPNATTimeouts : KeepaliveSweep.defaultNATTimeouts
        }

        /// The keepalive timeouts a sweep tries unless told: QUIC's idle timeouts, or the probes'.
        public var defaultKeepaliveTimeouts: [Double] {
            self == .quic ? KeepaliveSweep.defaultIdleTimeouts : KeepaliveSweep.defaultProbeTimeouts
        }
    }

    /// One point of the grid.
    public struct Keepalive: Sendable, Hashable, Codable {
        public var time: Double
        public var timeout: Double
        public var permitWithoutCalls: Bool
        /// An adaptive heartbeat (then `time` is where it starts).
        public var adaptive: Bool
        /// gRPC: C-core's `grpc.http2.max_pings_without_data` as the client leaves it (nil: no
        /// limit, as every snippet sets it); a baseline plays C-core's default 2.
        public var maxPingsWithoutData: Int?

        public init(
            time: Double, timeout: Double, permitWithoutCalls: Bool = false, adaptive: Bool = false, maxPingsWithoutData: Int? = nil
        ) {
            self.time = time
            self.timeout = timeout
            self.permitWithoutCalls = permitWithoutCalls
            self.adaptive = adaptive
            self.maxPingsWithoutData = maxPingsWithoutData
        }

        public var label: String {
            if adaptive { return "adaptive from \(Quantity.formatDuration(time))" }
            return "\(Quantity.formatDuration(time)) / \(Quantity.formatDuration(timeout))"
                + (permitWithoutCalls ? ", without calls" : "")
                + (maxPingsWithoutData.map { ", C-core max_pings_without_data \($0)" } ?? "")
        }
    }

    /// Fixed at creation: the NAT timeouts and keepalive timeouts a sweep starts with are its
    /// transport's (UDP ones and idle timeouts for QUIC).
    public let transport: Transport
    public var profiles: [Profile]
    /// NAT idle timeouts in seconds; nil is no NAT.
    public var natTimeouts: [Double?]
    public var keepaliveTimes: [Double] = Self.defaultKeepaliveTimes
    public var keepaliveTimeouts: [Double]
    /// How long a probe may go unanswered (`--keepalive-timeouts`): gRPC core's 20 s and common
    /// mobile values.
    public static let defaultProbeTimeouts: [Double] = [5, 10, 20]
    /// QUIC's idle timeouts (`--keepalive-timeouts` with `--transport quic`): Chromium's and
    /// quic-go's 30 s, aioquic's 60 s, and longer ones a server may grant.
    public static let defaultIdleTimeouts: [Double] = [30, 60, 120, 300]
    /// UDP NAT timeouts (`--nat-timeouts` with `--transport quic`): Hätönen et al. (IMC 2010)
    /// and Google Cloud NAT's 30 s, the 30-180 s operators report (Eronen, 2008), RFC 4787
    /// REQ-5's 2 min minimum and its recommended 5 min; and none.
    public static let defaultUDPNATTimeouts: [Double?] = [30, 60, 120, 180, 300, nil]
    public var permitWithoutCalls: [Bool] = [false]
    /// gRPC: how the client reconnects after an unclean close. One connection, as grpc-java,
    /// grpc-go, C-core and grpc-swift 1.x do; grpc-swift 2 leaves an idle second connection a
    /// short NAT forgets (`GRPCReconnection`).
    public var grpcReconnection = GRPCReconnection.oneConnection
    public var serverPolicy = GRPCServerPolicy.none
    public var workload = KeepaliveSweep.idleWorkload
    public var horizon: Double = 6 * 3600
    public var seeds = 20
    public var detectWithin: Double = 60
    /// Compare an adaptive heartbeat (Mars' figures) with the fixed intervals.
    public var adaptive = false
    /// What every scenario meets besides the NAT, per hour (`--impairments`).
    public var impairments = Impairments.standard

    /// RFC 4787 / RFC 5382 minimums, Hätönen et al. (IMC 2010) and operators' 30 s, AWS NLB's
    /// 350 s, Google Cloud's 600 s and 1200 s, Nokia's 30-60 min TCP; and none.
    public static let defaultNATTimeouts: [Double?] = [30, 60, 120, 350, 600, 1200, 1800, nil]

    /// 10 s (gRFC A8's floor) to 30 min, log-spaced, with the values clients ship: 20 s, 30 s,
    /// 45 s, 60 s, 2, 4, 4.5 (just under AWS's 350 s), 5, 10, 20 and 28 min (FCM on mobile data).
    public static let defaultKeepaliveTimes: [Double] = [10, 15, 20, 30, 45, 60, 90, 120, 180, 240, 270, 300, 600, 900, 1200, 1680, 1800]

    /// An open stream and no application traffic: keepalive is all that flows.
    public static let idleWorkload: Workload = {
        var workload = Workload()
        workload.eventMeanGap = 1e15
        workload.messageInterval = 1e15
        return workload
    }()

    /// The configurations users bring (gRPC's mobile guidance, a common 30 s client, and a gRPC
    /// C-core client given only `grpc.keepalive_time_ms` = 30 s: timeout 20 s and
    /// `max_pings_without_data` 2, C-core's defaults, so one ping a minute on an idle stream),
    /// always measured beside the grid.
    public static let baselines = [
        Keepalive(time: 60, timeout: 10, permitWithoutCalls: false), Keepalive(time: 30, timeout: 10, permitWithoutCalls: false),
        Keepalive(time: 30, timeout: 20, maxPingsWithoutData: 2),
    ]

    /// What QUIC stacks do out of the box, always measured beside the grid: Chromium's (Cronet's)
    /// PING every 15 s while a stream is open with a 30 s idle timeout, and quic-go's HTTP/3
    /// client's 10 s with 30 s (docs/tune.md, QUIC settings).
    public static let quicBaselines = [Keepalive(time: 15, timeout: 30), Keepalive(time: 10, timeout: 30)]

    /// A sweep of `transport` with its defaults: `transport.defaultNATTimeouts` and
    /// `transport.defaultKeepaliveTimeouts`.
    public init(profiles: [Profile], transport: Transport = .grpc) {
        self.profiles = profiles
        self.transport = transport
        natTimeouts = transport.defaultNATTimeouts
        keepaliveTimeouts = transport.defaultKeepaliveTimeouts
    }

    /// The grid: every time with every timeout below it, and every permit-without-calls choice;
    /// then the baselines, and the adaptive heartbeat when asked.
    public var keepalives: [Keepalive] {
        var grid: [Keepalive] = []
        if transport == .quic {
            // A PING interval beyond half the idle timeout is sent at half of it (quic-go):
            // such pairs would repeat the one at half.
            for time in keepaliveTimes.sorted() {
                for timeout in keepaliveTimeouts.sorted() where time <= timeout / 2 { grid.append(Keepalive(time: time, timeout: timeout)) }
            }
            for baseline in Self.quicBaselines where !grid.contains(baseline) { grid.append(baseline) }
            return grid
        }
        for time in keepaliveTimes.sorted() {
            for timeout in keepaliveTimeouts.sorted() where timeout < time || transport == .ws {
                for permit in permitWithoutCalls {
                    grid.append(Keepalive(time: time, timeout: transport == .ws ? time : timeout, permitWithoutCalls: permit))
                }
                if transport == .ws { break }
            }
        }
        if transport == .grpc {
            for baseline in Self.baselines where !grid.contains(baseline) { grid.append(baseline) }
        }
        if adaptive {
            grid.append(Keepalive(time: HeartbeatSettings.Adaptive.mars.initial, timeout: keepaliveTimeouts.max() ?? 10, adaptive: true))
        }
        return grid
    }

    /// Keepalive periods of the longest time swept that the horizon must hold. Figures an hour
    /// are counted over a scenario's whole keepalive periods, from its first timer to its last
    /// (`ScenarioMetrics`), so that neither the first connection's set-up nor a period the
    /// horizon cuts moves them. That takes two timers, and the first fires a period after the
    /// connection is up (later after an outage), so three periods leave room for both. With
    /// fewer, a 30-minute keepalive in a 1-hour horizon fired once and was counted over the
    /// horizon: 0.79 NAT expiries an hour against 1.48 in 6 hours.
    public static let periodsInHorizon = 3

    /// Why the sweep cannot run, before any work: nil when it can.
    public func problem() -> String? {
        if profiles.isEmpty { return "no profiles to sweep" }
        if keepaliveTimes.isEmpty { return "--keepalive-times is empty" }
        if keepaliveTimeouts.isEmpty && transport != .ws { return "--keepalive-timeouts is empty" }
        if natTimeouts.isEmpty { return "--nat-timeouts is empty" }
        if let bad = keepaliveTimes.first(where: { !($0 > 0) || !$0.isFinite }) {
            return "keepalive time \(bad) s is not a positive duration"
        }
        if transport == .quic, !keepaliveTimes.contains(where: { time in keepaliveTimeouts.contains { time <= $0 / 2 } }) {
            return "no keepalive time is at most half an idle timeout (times \(keepaliveTimes.map(Quantity.formatDuration)), "
                + "idle timeouts \(keepaliveTimeouts.map(Quantity.formatDuration))): a PING must come before half the idle timeout"
        }
        if transport != .ws, transport != .quic, !keepaliveTimes.contains(where: { time in keepaliveTimeouts.contains { $0 < time } }) {
            return "no keepalive timeout is below its interval (times \(keepaliveTimes.map(Quantity.formatDuration)), "
                + "timeouts \(keepaliveTimeouts.map(Quantity.formatDuration))): a timeout must be shorter than the time between pings"
        }
        if let longest = keepaliveTimes.max(), case let needed = Double(Self.periodsInHorizon) * longest, horizon < needed {
            return "the horizon (\(Quantity.formatDuration(horizon))) holds fewer than \(Self.periodsInHorizon) periods of the longest "
                + "keepalive time (\(Quantity.formatDuration(longest))): its figures an hour would be counted over a period the "
                + "horizon cuts; give --horizon \(Quantity.formatDuration(needed)) or more, or a shorter longest keepalive time"
        }
        if seeds < 1 { return "--seeds must be at least 1" }
        if adaptive && transport != .heartbeat { return "--adaptive goes with --transport heartbeat" }
        if let problem = impairments.problem { return "--impairments \(impairments.name): \(problem)" }
        return nil
    }

    /// One scenario: a keepalive on a profile behind a NAT, with one seed's impairments.
    struct Scenario: Sendable {
        var keepalive: Int
        var profile: Int
        var nat: Int
        var seed: Int
    }

    /// Scenarios played: every keepalive on every profile behind every NAT timeout, per seed.
    public var runCount: Int { keepalives.count * runsPerKeepalive }
    private var runsPerKeepalive: Int { profiles.count * natTimeouts.count * seeds }

    /// The sweep's work and memory, before any of it (the command refuses it beyond a bound).
    public var estimate: WorkEstimate {
        WorkEstimate.sweep(runsPerInterval: runsPerKeepalive, intervals: keepalives.map(\.time), horizon: horizon, workload: workload)
    }

    /// Every scenario, seed by seed: the first seed's for every configuration, then the
    /// second's, so that a sweep stopped between seeds has played each configuration alike.
    var scenarios: [Scenario] {
        var all: [Scenario] = []
        all.reserveCapacity(runCount)
        for seed in 0..<seeds {
            for keepalive in keepalives.indices {
                for profile in profiles.indices {
                    for nat in natTimeouts.indices { all.append(Scenario(keepalive: keepalive, profile: profile, nat: nat, seed: seed)) }
                }
            }
        }
        return all
    }

    /// The profile a scenario plays: the base profile, its NAT (silent on even seeds, reset on
    /// odd ones) and the sweep's impairments as its timeline (the profile's own timeline does
    /// not play). Every configuration meets the same impairments for the same seed.
    func scenarioProfile(_ scenario: Scenario) -> Profile {
        var profile = profiles[scenario.profile]
        if transport == .quic {
            profile.nat = natTimeouts[scenario.nat].map { NATPolicy(idleTimeout: nil, udpIdleTimeout: $0) }
        } else if let timeout = natTimeouts[scenario.nat] {
            profile.nat = NATPolicy(idleTimeout: timeout, mode: scenario.seed % 2 == 0 ? .silent : .reset)
        } else {
            profile.nat = nil
        }
        profile.timeline = impairments.timeline(
            seed: scenario.seed, horizon: horizon, network: profile.start, stream: UInt64(scenario.profile))
        return profile
    }

    /// The device's own seed in a scenario (its jitter and loss draws).
    static func deviceSeed(_ scenario: Scenario) -> UInt64 {
        UInt64(scenario.seed) &+ 1
    }

    func client(_ keepalive: Keepalive) -> ModelEngine.ClientChoice {
        switch transport {
        case .grpc:
            var settings = ClientSettings.GRPCClientSettings()
            settings.keepaliveTime = keepalive.time
            settings.keepaliveTimeout = keepalive.timeout
            settings.permitWithoutCalls = keepalive.permitWithoutCalls
            settings.maxPingsWithoutData = keepalive.maxPingsWithoutData
            settings.callTimeLimit = nil
            settings.reconnection = grpcReconnection
            return .grpc(settings, server: serverPolicy)
        case .ws:
            var settings = ClientSettings.WebSocketSettings()
            settings.pingInterval = keepalive.time
            return .ws(settings)
        case .tcp:
            return .heartbeat(HeartbeatSettings(kind: .tcpKeepalive(probes: 9), interval: keepalive.time, timeout: keepalive.timeout))
        case .heartbeat:
            return .heartbeat(
                HeartbeatSettings(
                    kind: .application, interval: keepalive.time, timeout: keepalive.timeout,
                    adaptive: keepalive.adaptive ? .mars : nil))
        case .quic:
            var settings = QUICSettings()
            settings.keepAlivePeriod = keepalive.time
            settings.maxIdleTimeout = keepalive.timeout
            settings.serverIdleTimeout = keepalive.timeout
            return .quic(settings)
        }
    }

    /// Plays every scenario on every core, a seed at a time, and analyses them: the merge of
    /// the sweep's one part. `progress` gets the fraction done; `shouldStop` is asked between
    /// seeds: when it says yes, the results cover the seeds played (at least one), each for
    /// every configuration, and say so (`seedsPlayed`).
    public func run(progress: @Sendable (Double) -> Void = { _ in }, shouldStop: () -> Bool = { false }) throws -> KeepaliveResults {
        try KeepaliveShardMerge.merge([("this sweep", play(.whole, progress: progress, shouldStop: shouldStop))])
    }

    /// Plays `shard`'s scenarios (scenarios `shard.index`, `shard.index + shard.count`, ... of
    /// the whole sweep's, each with its seeds there) on every core, a seed at a time: its part,
    /// for `KeepaliveShardMerge`.
    public func play(
        _ shard: Shard, progress: @Sendable (Double) -> Void = { _ in }, shouldStop: () -> Bool = { false }
    ) -> KeepaliveShard {
        let scenarios = scenarios
        let keepalives = keepalives
        let perSeed = scenarios.count / seeds
        let total = shard.share(of: scenarios.count)
        let step = max(1, total / 200)
        var played: [KeepaliveShard.PlayedScenario] = []
        played.reserveCapacity(total)
        var stopped = false
        for seed in 0..<seeds {
            if seed > 0, shouldStop() {
                stopped = true
                break
            }
            let indices = (seed * perSeed..<(seed + 1) * perSeed).filter(shard.includes)
            let playedBefore = played.count
            let outcomes = ResultSlots<ScenarioMetrics>(count: indices.count)
            DispatchQueue.concurrentPerform(iterations: indices.count) { offset in
                let scenario = scenarios[indices[offset]]
                let (outcome, periods) = ModelEngine.playDeviceInPeriods(
                    profile: scenarioProfile(scenario), client: client(keepalives[scenario.keepalive]), workload: workload,
                    duration: horizon, seed: Self.deviceSeed(scenario))
                let done = playedBefore + outcomes.set(offset, ScenarioMetrics(outcome, horizon: horizon, periods: periods))
                if done % step == 0 || done == total { progress(Double(done) / Double(max(1, total))) }
            }
            played += zip(indices, outcomes.values()).map { KeepaliveShard.PlayedScenario(index: $0, metrics: $1) }
        }
        return KeepaliveShard(shard: shard, sweep: self, played: played, stopped: stopped)
    }
}

/// What one scenario measured, per hour. Counted figures (energy, promotions, bytes, NAT
/// expiries, reconnects) are rates over the scenario's whole keepalive periods when it played
/// two or more (`ModelEngine.KeepalivePeriods`), so they do not depend on the horizon; over
/// the horizon otherwise. Detections and the server's pings are over the horizon:
/// the app's and server's records run to its end.
struct ScenarioMetrics: Sendable, Codable, Equatable {
    var energyJoulesPerHour: Double
    var wakeSecondsPerHour: Double
    var promotionsPerHour: Double
    /// Payload and TCP/IP headers (52 bytes a segment, a delayed ACK per two), or UDP/IP
    /// headers (28 bytes a datagram), both ways.
    var bytesPerHour: Double
    var natExpiriesPerHour: Double
    var reconnectsPerHour: Double
    /// QUIC: connections moved to a new address of the phone; nil for the TCP transports.
    var migrationsPerHour: Double?
    var goaways: Int
    var serverPingsPerSecond: Double
    /// Seconds from each death to the app noticing (a death still unnoticed at the end counts
    /// with the time it had been dead: a lower bound).
    var detections: [Double]
    /// Time the app believed it was connected but could not receive: the detections summed.
    var blackoutSecondsPerHour: Double

    init(_ outcome: DeviceOutcome, horizon: Double, periods: ModelEngine.KeepalivePeriods? = nil) {
        let hours = horizon / 3600
        let window = periods.map { Counted($0.last).minus(Counted($0.first)) } ?? Counted(outcome)
        let windowHours = periods.map { $0.seconds / 3600 } ?? hours
        energyJoulesPerHour = window.energyJoules / windowHours
        wakeSecondsPerHour = window.wakeSeconds / windowHours
        promotionsPerHour = window.promotions / windowHours
        bytesPerHour = window.bytes / windowHours
        natExpiriesPerHour = window.natExpiries / windowHours
        // Over whole periods every connection opened is a reconnection; over the horizon the
        // first one is not.
        reconnectsPerHour = (periods == nil ? max(0, window.opened - 1) : window.opened) / windowHours
        migrationsPerHour = outcome.datagrams == nil ? nil : window.migrations / windowHours
        goaways = outcome.server.tooManyPingsGoAways
        serverPingsPerSecond = Double(outcome.server.pingsReceived) / horizon
        detections = outcome.app.detections + (outcome.undetectedDeathSeconds.map { [$0] } ?? [])
        blackoutSecondsPerHour = detections.reduce(0, +) / hours
    }
}

/// An outcome's counted figures, which subtract: the keepalive periods' share of a scenario.
private struct Counted {
    var energyJoules: Double
    var wakeSeconds: Double
    var promotions: Double
    var bytes: Double
    var natExpiries: Double
    var opened: Double
    /// QUIC: the server followed the phone to a new address (each one a migration).
    var migrations: Double

    init(_ outcome: DeviceOutcome) {
        energyJoules = outcome.radio.energyJoules
        wakeSeconds = outcome.radio.wakeSeconds
        promotions = Double(outcome.radio.promotions)
        let segments = outcome.segments.up.segments + outcome.segments.down.segments
        let acks = outcome.segments.up.acknowledgements + outcome.segments.down.acknowledgements
        let datagrams = outcome.datagrams.map { $0.counts.up.delivered + $0.counts.down.delivered } ?? 0
        bytes = Double(
            outcome.bytes.up + outcome.bytes.down + TCPSegmentation.headerBytes * (segments + acks) + UDPDatagram.headerBytes * datagrams)
        natExpiries = Double(outcome.natExpiriesWithNetwork ?? outcome.eventCounts[.natExpiry, default: 0])
        opened = Double(outcome.connections.opened)
        migrations = Double(outcome.datagrams?.remappings ?? 0)
    }

    func minus(_ other: Counted) -> Counted {
        var difference = self
        difference.energyJoules -= other.energyJoules
        difference.wakeSeconds -= other.wakeSeconds
        difference.promotions -= other.promotions
        difference.bytes -= other.bytes
        difference.natExpiries -= other.natExpiries
        difference.opened -= other.opened
        difference.migrations -= other.migrations
        return difference
    }
}
