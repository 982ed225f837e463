import ArgumentParser
import Foundation
import NetsimBench
import NetsimCore
import NetsimInput
import NetsimModel
import NetsimTune

/// `netsim tune keepalive`: which keepalive a mobile client (and its server) should use, and
/// what each choice costs in battery, in time to notice a dead connection and in connections
/// lost to NAT expiry.
public struct TuneKeepaliveCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "keepalive",
        abstract: "Recommend keepalive settings from battery cost, NAT timeouts and time to notice a dead connection.",
        discussion: """
            Every keepalive on the grid plays, in the model engine, an idle open stream on each \
            profile behind each NAT idle timeout for the horizon, once per seed, with the \
            --impairments at their rates per hour (default: blackhole outages of 5 s, 30 s, 2 min \
            and 10 min once in 6 h each, and a handover that resets connections 10 times a day) at \
            seeded times, and the NAT silent on even seeds and resetting on odd ones. \
            Configurations that draw a GOAWAY, lose connections to NAT expiry or miss \
            --detect-within at p95 are discarded; of the rest, the knee of the front of energy per \
            hour against p95 detection time is recommended. Defaults and their sources: docs/tune.md.

            --verify then plays the recommendation and the first baseline live, the real grpc-swift \
            client and server through the real proxy, on every profile behind the shortest NAT \
            timeout with seeds 0 to 3, every timer running --time-scale times faster than the \
            wall clock, and compares them with the model (agreement: within 15%).

            --shard I/N (or --shards N in a Kubernetes Indexed Job) plays scenarios I, I+N, ... \
            of the sweep and writes only that part, tune-keepalive-TRANSPORT.shard-I-of-N.json; \
            netsim report merge writes the whole sweep's reports and applies the gates \
            (docs/fleets.md).

            When no configuration is viable, the reports count what each constraint ruled out and \
            recommend the best configuration the server policy allows, marked a compromise.

            Exit status: 0 with a recommendation or a compromise; 1 when every configuration draws \
            a GOAWAY (no compromise), a report \
            cannot be written (--out is checked first; the Markdown report is printed all the \
            same) or --verify finds model and live more than 15% apart; 2 for a bad profile or \
            policy file; 3 when a gate (--fail-if 'recommended.metrics.energyJoulesPerHour > 5', \
            --baseline) is breached; 5 when SIGINT or SIGTERM stopped the sweep (it stops after \
            the seed it is playing and writes the seeds played, marked partial; no --verify, no \
            gates); 64 for a usage error.
            """
    )

    enum PermitChoice: String, ExpressibleByArgument, CaseIterable {
        case `true`, `false`, both

        var values: [Bool] {
            switch self {
            case .true: [true]
            case .false: [false]
            case .both: [false, true]
            }
        }
    }

    @Option(help: "grpc, ws, tcp, heartbeat or quic.")
    var transport = KeepaliveSweep.Transport.grpc

    @Option(name: .customLong("profile"), help: "A profile to sweep (repeatable). Default: lte-good, umts-3g, nr-sa.")
    var profiles: [String] = []

    @Option(
        name: .customLong("nat-timeouts"),
        help:
            "NAT idle timeouts, comma-separated; 'none' for no NAT. Default: 30s,60s,2m,350s,10m,20m,30m,none (UDP with --transport quic: 30s,60s,2m,3m,5m,none)."
    )
    var natTimeouts: String?

    @Option(
        name: .customLong("keepalive-times"), help: "Keepalive times (ping intervals), comma-separated. Default: 10 s to 30 min, 17 values."
    )
    var keepaliveTimes: String?

    @Option(
        name: .customLong("keepalive-timeouts"),
        help:
            "Keepalive timeouts, comma-separated; each below its time. Default: 5s,10s,20s. With --transport quic: idle timeouts, each at least twice its PING interval; default 30s,60s,2m,5m."
    )
    var keepaliveTimeouts: String?

    @Option(name: .customLong("permit-without-calls"), help: "gRPC pings without calls: true, false or both. Default: false.")
    var permitWithoutCalls = PermitChoice.false

    @Option(
        name: .customLong("grpc-reconnection"),
        help:
            "How the gRPC client reconnects after an unclean close: one-connection (grpc-java, grpc-go, C-core, grpc-swift 1.x) or grpc-swift-2 (two connections race; the idle one is left to the NAT). Default: one-connection."
    )
    var grpcReconnection = GRPCReconnection.oneConnection

    @Option(
        name: .customLong("server-policy"),
        help:
            "The gRPC server's ping policy: grpc-core, grpc-swift, none or a YAML file. Default: none (you configure the server to match; the report prints how)."
    )
    var serverPolicy = "none"

    @Option(help: "idle (an open stream, no app traffic) or a workload file. Default: idle.")
    var workload = "idle"

    @Option(
        help:
            "What every scenario meets besides the NAT, per hour: default (outages and handovers, sources in docs/tune.md), none (a clean network) or a YAML file. Default: default."
    )
    var impairments = "default"

    /// The `--impairments` words; anything else is a file.
    static let namedImpairments: [String: Impairments] = ["default": .standard, "none": .none]

    @Option(parsing: .unconditional, help: "How long each scenario runs, e.g. 6h. Default: 6h.", transform: { try parseDuration($0) })
    var horizon = 6 * 3600.0

    @Option(parsing: .unconditional, help: "Runs per scenario, each with its own impairment times. Default: 20.")
    var seeds = 20

    @Option(
        name: .customLong("detect-within"), parsing: .unconditional,
        help: "The p95 time to notice a dead connection a configuration must meet. Default: 60s.", transform: { try parseDuration($0) })
    var detectWithin = 60.0

    @Flag(help: "With --transport heartbeat: also play an adaptive heartbeat (Mars' figures) against the fixed ones.")
    var adaptive = false

    @Option(help: "Where to write the reports. Default: reports.")
    var out = "reports"

    @Option(help: "Report formats, comma-separated: md, json, html. Default: md,json,html.")
    var format = "md,json,html"

    @Flag(help: "Also play the recommendation and a baseline live (gRPC only) and compare them with the model.")
    var verify = false

    @Option(
        name: .customLong("time-scale"),
        help:
            "With --verify: emulated seconds per wall-clock second, for every timer of client, server, proxy and radio. Default: 60 (an hour in a minute)."
    )
    var timeScale = 60.0

    @Flag(help: "No progress display.")
    var quiet = false

    @OptionGroup(title: "Gates") var gates: GateOptions

    @OptionGroup(title: "Sharding") var sharding: ShardOptions

    @Flag(help: "Run even beyond the bounds on runs, work and memory (docs/model-engine.md, Bounds) instead of refusing (exit 64).")
    var force = false

    /// The most runs per scenario (`--seeds`): beyond it a sweep is a typo, not a question.
    static let mostSeeds = 10_000
    /// The fastest `--verify` replay (`--time-scale`): at 1000, a millisecond of the real
    /// client's, server's and proxy's scheduling delay is already a second of emulated time.
    static let fastestVerifyTimeScale = 1000

    public init() {}

    public func validate() throws {
        _ = try chosenFormats()
        try gates.check(.tune)
        if try sharding.chosen() != nil {
            if verify { throw ValidationError("--verify plays the whole sweep's recommendation: not with a shard") }
            if !gates.failIf.isEmpty || gates.baseline != nil || gates.junit != nil {
                throw ValidationError(
                    "gates judge the whole sweep: give --fail-if, --baseline and --junit to netsim report merge, not to a shard")
            }
        }
        _ = try natTimeoutList()
        _ = try durations(keepaliveTimes, option: "--keepalive-times")
        _ = try durations(keepaliveTimeouts, option: "--keepalive-timeouts")
        guard seeds >= 1, seeds <= Self.mostSeeds else {
            throw ValidationError("--seeds must be from 1 to \(Self.mostSeeds), got \(seeds)")
        }
        guard horizon <= Quantity.maximumDuration else {
            throw ValidationError("--horizon must be at most \(Quantity.maximumDurationText)")
        }
        if ["grpc-core", "grpc-swift", "none"].contains(serverPolicy) == false, !FileManager.default.fileExists(atPath: serverPolicy) {
            throw ValidationError("--server-policy: '\(serverPolicy)' is neither grpc-core, grpc-swift, none nor a file")
        }
        if workload != "idle", !FileManager.default.fileExists(atPath: workload) {
            throw ValidationError("--workload: '\(workload)' is neither idle nor a file")
        }
        if Self.namedImpairments[impairments] == nil, !FileManager.default.fileExists(atPath: impairments) {
            throw ValidationError("--impairments: '\(impairments)' is neither default, none nor a file")
        }
        var sweep = KeepaliveSweep(profiles: [Profile.passThrough], transport: transport)
        try configure(&sweep)
        if let problem = sweep.problem() { throw ValidationError(problem) }
        if verify {
            guard transport == .grpc else {
                throw ValidationError("--verify replays the gRPC transport only (the real grpc-swift client and server)")
            }
            guard timeScale >= 1, timeScale <= Double(Self.fastestVerifyTimeScale) else {
                throw ValidationError("--time-scale must be from 1 to \(Self.fastestVerifyTimeScale), got \(timeScale)")
            }
        }
    }

    func chosenFormats() throws -> Set<ReportFormat> {
        try ReportFormat.list(format)
    }

    func durations(_ list: String?, option: String) throws -> [Double]? {
        guard let list else { return nil }
        return try list.split(separator: ",", omittingEmptySubsequences: false).map { item in
            do { return try parseDuration(item.trimmingCharacters(in: .whitespaces)) } catch {
                throw ValidationError("\(option): \(error)")
            }
        }
    }

    func natTimeoutList() throws -> [Double?]? {
        guard let natTimeouts else { return nil }
        return try natTimeouts.split(separator: ",", omittingEmptySubsequences: false).map { item in
            let text = item.trimmingCharacters(in: .whitespaces)
            if text == "none" { return nil }
            do { return try parseDuration(text) } catch { throw ValidationError("--nat-timeouts: \(error)") }
        }
    }

    /// Everything but the transport, the profiles, the policy file and the workload file.
    func configure(_ sweep: inout KeepaliveSweep) throws {
        if let list = try natTimeoutList() { sweep.natTimeouts = list }
        if let list = try durations(keepaliveTimes, option: "--keepalive-times") { sweep.keepaliveTimes = list }
        if let list = try durations(keepaliveTimeouts, option: "--keepalive-timeouts") { sweep.keepaliveTimeouts = list }
        sweep.permitWithoutCalls = permitWithoutCalls.values
        sweep.grpcReconnection = grpcReconnection
        sweep.horizon = horizon
        sweep.seeds = seeds
        sweep.detectWithin = detectWithin
        sweep.adaptive = adaptive
        switch serverPolicy {
        case "grpc-core": sweep.serverPolicy = .grpcCore
        case "grpc-swift": sweep.serverPolicy = .grpcSwift
        case "none": sweep.serverPolicy = .none
        default: break
        }
        if let named = Self.namedImpairments[impairments] { sweep.impairments = named }
    }

    public func run() async throws {
        try requireReportDirectory(out)
        BuildKind.noteIfDebug("the keepalive sweep")
        let names = profiles.isEmpty ? ["lte-good", "umts-3g", "nr-sa"] : profiles
        var sweep = KeepaliveSweep(profiles: try names.map(resolveProfile), transport: transport)
        try configure(&sweep)
        if !["grpc-core", "grpc-swift", "none"].contains(serverPolicy) {
            sweep.serverPolicy = try loadSettings(serverPolicy, GRPCServerPolicy.load)
        }
        if workload != "idle" { sweep.workload = try loadSettings(workload, Workload.load) }
        if Self.namedImpairments[impairments] == nil { sweep.impairments = try loadSettings(impairments, Impairments.load) }
        if verify, sweep.serverPolicy.maxPingStrikes != 2 {
            printError(
                "--verify: grpc-swift's server sends GOAWAY after exactly 2 ping strikes; \(serverPolicy) asks for \(sweep.serverPolicy.maxPingStrikes)"
            )
            throw ExitCode.validationFailure
        }

        printError(
            "tune keepalive: \(sweep.keepalives.count) configurations x \(sweep.profiles.count) profiles x "
                + "\(sweep.natTimeouts.count) NAT timeouts x \(sweep.seeds) seeds = \(sweep.runCount) runs of \(Quantity.formatDuration(sweep.horizon))"
        )
        let shard = try sharding.chosen()
        if let shard { printError("shard \(shard): \(shard.share(of: sweep.runCount)) of the \(sweep.runCount) runs") }
        try checkWorkBounds(shard.map { sweep.estimate.share($0) } ?? sweep.estimate, force: force, command: "tune keepalive")
        let progress = quiet ? nil : ProgressLine("tune")
        let stopRequest = StopRequest()
        let watch = StopSignals.watch { stopRequest.stop(by: $0) }
        let part = sweep.play(
            shard ?? .whole, progress: { progress?.show($0) }, shouldStop: { stopRequest.stoppedBy != nil })
        watch.cancel()
        progress?.finish()
        if shard != nil { return try writeShardPart(try part.json(), named: part.fileName, out: out, stoppedBy: stopRequest.stoppedBy) }
        let results = try KeepaliveShardMerge.merge([("this sweep", part)])
        let verification = results.recommended == nil || !verify || results.isPartial ? nil : try await verifyLive(results)
        // A stopped sweep is not judged.
        let verdicts = try writeTuneReports(
            results, verification: verification, out: out, formats: try chosenFormats(), gates: results.isPartial ? nil : gates)
        if let signalName = stopRequest.stoppedBy, results.isPartial {
            printError("stopped by \(signalName): the reports cover \(results.seedsPlayed) of \(sweep.seeds) seeds, marked partial")
            throw ExitCode.stoppedEarly
        }
        let breaches = try gates.conclude(verdicts, suite: "netsim tune keepalive \(transport.rawValue)")
        if let compromise = results.compromise {
            printError("tune keepalive: no configuration is viable; compromise (not viable): \(compromise.keepalive.label)")
        }
        if results.advice == nil || verification?.agrees == false { throw ExitCode(1) }
        if !breaches.isEmpty { throw ExitCode(3) }
    }

    /// Plays the recommendation and a baseline live and compares them with the model.
    private func verifyLive(_ results: KeepaliveResults) async throws -> VerificationTable {
        let verification: KeepaliveVerification
        do { verification = try KeepaliveVerification(results) } catch {
            printError("--verify: \(error)")
            throw ExitCode(1)
        }
        let wall = results.sweep.horizon / timeScale
        printError(
            "verify: \(verification.plans.count) live runs of \(Quantity.formatDuration(results.sweep.horizon)) at once, "
                + "\(String(format: "%g", timeScale)) times real time: about \(Quantity.formatDuration(wall.rounded(.up)))")
        let logger = warningLogger(label: "netsim.tune")
        let progress = quiet ? nil : ProgressLine("verify")
        let horizon = results.sweep.horizon
        let live = try await verification.playLive(timeScale: timeScale, logger: logger) { played in
            progress?.show(played / horizon)
        }
        progress?.finish()
        return verification.compare(live: live, timeScale: timeScale)
    }

}

/// Writes a sweep's reports (`OUT/tune-keepalive-TRANSPORT.EXT` for each of `formats`) and
/// prints its Markdown, for `netsim tune keepalive` and `netsim report merge` alike. The
/// `gates` are judged first and recorded in the reports; their verdicts are returned, to
/// conclude.
func writeTuneReports(
    _ results: KeepaliveResults, verification: VerificationTable?, out: String, formats: Set<ReportFormat>, gates: GateOptions?
) throws -> [GateVerdict] {
    var report = KeepaliveReport(results, verification: verification)
    let verdicts = try gates?.verdicts(try report.json(), .tune) ?? []
    let outcomes = verdicts.isEmpty ? nil : verdicts.map(\.outcome)
    report.gates = outcomes
    let markdown = KeepaliveRendering.markdown(results, verification: verification, gates: outcomes)
    let json = try report.json()
    try writeReports(out: out, name: "tune-keepalive-\(results.sweep.transport.rawValue)", formats: formats, markdown: markdown) { format in
        switch format {
        case .md: Data(markdown.utf8)
        case .json: json
        case .html: Data(KeepaliveRendering.html(results, verification: verification, gates: outcomes).utf8)
        case .benchmarkJSON: throw ValidationError("--format benchmark-json is for netsim bench")
        }
    }
    return verdicts
}

extension KeepaliveSweep.Transport: ExpressibleByArgument {}

extension GRPCReconnection: ExpressibleByArgument {}
