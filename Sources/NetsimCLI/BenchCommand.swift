import ArgumentParser
import Foundation
import Logging
import NetsimBench
import NetsimCore
import NetsimModel
import NetsimPcap
import NetsimProxy
import NetsimReport

/// `netsim bench`: the same seeded workload over REST polling, WebSocket and gRPC bidi, each
/// through its own fleet of emulated phones on one profile, measured side by side.
public struct BenchCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Compare REST polling, WebSocket and gRPC bidi streaming through emulated phones.",
        discussion: """
            Every transport gets its own server and a fleet of --phones emulated phones (one \
            proxy each: its own radio and links on the profile), all running at once, with the \
            same seeded workload: server events as a Poisson process and client messages at a \
            fixed interval. Reports go to --out as bench-PROFILE.md, .json and .html; the \
            Markdown report is also printed. With --shard (or --shards in a Kubernetes \
            Indexed Job) it plays one part of the fleet and writes only that part, \
            bench-PROFILE.shard-I-of-N.json, for netsim report merge, which writes the reports \
            of the whole run and applies the gates (docs/fleets.md).

            Exit status: 0 when every gate holds; 1 when the run failed; 2 for a bad profile, \
            workload or client file; 3 when a --fail-if threshold or the --baseline comparison \
            was breached (each breach is printed); 4 when a --pcap-dir capture is incomplete \
            (a full disk: the warning says how much was lost); 5 when SIGINT or SIGTERM stopped \
            a model bench (it stops at its next batch of devices and writes what was played, \
            marked partial); 64 for a usage error (a bad \
            option or --fail-if expression, found before the run starts). A --out that \
            cannot be written is found before the run; if writing still fails at the end, the \
            Markdown report on standard output is the run's copy, and the exit status is 1.

            Example: netsim bench --profile lte-good --duration 5m --fail-if 'grpc.latencyMs.p95 > 2000'
            """
    )

    /// The most devices a live bench plays: each is a real client and a real proxy.
    static let mostLiveDevices = 1000
    /// The model engine's limit (its longest run is `Quantity.maximumDuration`): beyond it a run
    /// is a typo, not a question.
    static let mostModelDevices = BenchShard.mostDevicesPerTransport

    @Option(help: "A built-in profile name, ./profiles/NAME.yaml, or a profile file (see `netsim profiles list`).")
    var profile = "lte-tunnel"

    @Option(help: "live: real clients, servers and proxies in real time; model: virtual time (hours in seconds; see docs/model-engine.md).")
    var engine = BenchEngine.live

    @Option(
        help: "The transports to compare, comma-separated: rest, ws, grpc, quic (--engine model only). Default: rest,ws,grpc.",
        transform: TransportChoice.init(parsing:))
    var transports = TransportChoice(BenchTransport.comparedByDefault)

    /// `--devices` is the same option, as earlier releases and scripts spell it.
    @Option(
        name: [.customLong("phones"), .customLong("devices")], parsing: .unconditional,
        help: ArgumentHelp("Emulated phones per transport, each with its own radio, links and client.", valueName: "N"))
    var phones = 10

    @Option(
        parsing: .unconditional,
        help: "How long the workload runs, e.g. 90s or 5m (a drain for what is still on its way follows). Default: 2m.",
        transform: { try parseDuration($0) })
    var duration = 120.0

    @Option(
        parsing: .unconditional, help: "The seed of the workload and every emulated device. Default: 1.", transform: { try parseSeed($0) })
    var seed: UInt64 = 1

    @Option(help: "A workload file (YAML; see docs/bench.md). Default: events every 30 s on average, a message every 60 s.")
    var workload: String?

    @Option(help: "A client settings file (YAML), e.g. clients/grpc-alternative.yaml. Default: clients/grpc-tuned.yaml's values.")
    var client: String?

    @Option(help: "Where to write the reports.")
    var out = "reports"

    @Option(
        help:
            "Report formats, comma-separated: md, json, html, benchmark-json (github-action-benchmark's customSmallerIsBetter: the figures --baseline compares)."
    )
    var format = "md,json,html"

    @OptionGroup(title: "Gates") var gates: GateOptions

    @OptionGroup(title: "Sharding") var sharding: ShardOptions

    @Option(
        name: .customLong("pcap-dir"),
        help:
            "Write each device's traffic as a pcap file here (TRANSPORT-deviceN.pcap), timestamped when on the emulated radio. Default: no captures."
    )
    var pcapDirectory: String?

    @Flag(help: "No progress display; only warnings and the report.")
    var quiet = false

    @Flag(
        help: "Run even beyond the bounds on work, memory and workload rates (docs/model-engine.md, Bounds) instead of refusing (exit 64).")
    var force = false

    public init() {}

    public func validate() throws {
        let chosen = transports.chosen
        _ = try chosenFormats()
        switch engine {
        case .live:
            guard (1...Self.mostLiveDevices).contains(phones) else {
                throw ValidationError("--phones must be from 1 to \(Self.mostLiveDevices), got \(phones)")
            }
            if let refusal = BenchTransport.liveRefusal(chosen) { throw ValidationError(refusal) }
        case .model:
            guard (1...Self.mostModelDevices).contains(phones) else {
                throw ValidationError("--phones must be from 1 to \(Self.mostModelDevices) with --engine model, got \(phones)")
            }
            guard duration <= Quantity.maximumDuration else {
                throw ValidationError(
                    "--duration must be at most \(Quantity.maximumDurationText) with --engine model, got \(Quantity.formatDuration(duration))"
                )
            }
            guard pcapDirectory == nil else { throw ValidationError("--pcap-dir needs --engine live: the model engine carries no bytes") }
        }
        guard duration > 0, duration.isFinite else { throw ValidationError("--duration must be more than 0") }
        try gates.check(.bench)
        if try sharding.chosen() != nil, !gates.failIf.isEmpty || gates.baseline != nil || gates.junit != nil {
            throw ValidationError(
                "gates judge the whole run: give --fail-if, --baseline and --junit to netsim report merge, not to a shard")
        }
        for threshold in try gates.thresholds(.bench) {
            if let transport = BenchTransport(rawValue: threshold.path[0]), !chosen.contains(transport) {
                throw ValidationError("--fail-if '\(threshold)': \(transport.rawValue) is not among --transports")
            }
        }
    }

    func chosenFormats() throws -> Set<ReportFormat> {
        try ReportFormat.list(format, known: ReportFormat.allCases)
    }

    public func run() async throws {
        var configuration = BenchConfiguration(profile: try resolveProfile(profile))
        configuration.transports = transports.chosen
        configuration.devices = phones
        configuration.duration = duration
        configuration.seed = seed
        let shard = try sharding.chosen()
        configuration.shard = shard ?? .whole
        if let workload { configuration.workload = try loadSettings(workload, Workload.load) }
        if let client { configuration.client = try loadSettings(client, ClientSettings.load) }
        try checkWorkBounds(
            WorkEstimate.bench(
                transports: configuration.transports, devices: configuration.shard.share(of: phones), duration: duration,
                workload: configuration.workload,
                client: configuration.client),
            force: force, command: "bench")

        try requireReportDirectory(out)
        let captures = try openCaptures(for: configuration)
        if !captures.isEmpty {
            configuration.linkObserver = { transport, device in
                captures[Self.captureName(transport, device)].map { CaptureLinkObserver(writer: $0) }
            }
        }

        let logger = warningLogger(label: "netsim.bench")
        let display = BenchProgressDisplay(mode: quiet ? .off : standardErrorIsTerminal ? .terminal : .lines)
        printError(
            "bench (\(engine.rawValue)): \(configuration.transports.map(\.title).joined(separator: ", ")) on \(configuration.profile.name), "
                + "\(phones) phone(s) each, \(Quantity.formatDuration(duration)) (seed \(seed))"
                + (shard.map { ", shard \($0): \($0.share(of: phones)) phone(s) each" } ?? ""))
        let part: BenchShard
        let stopRequest = StopRequest()
        do {
            switch engine {
            case .live: part = try await BenchRunner.play(configuration, logger: logger) { display.show($0) }
            case .model:
                BuildKind.noteIfDebug("the model engine")
                let watch = StopSignals.watch { stopRequest.stop(by: $0) }
                defer { watch.cancel() }
                part = ModelBenchRunner.play(configuration, shouldStop: { stopRequest.stoppedBy != nil }, onProgress: { display.show($0) })
            }
        } catch {
            printError("the bench failed: \(error)")
            throw ExitCode(1)
        }
        let capturesAreComplete = finishCaptures(Array(captures.values))
        if shard != nil {
            try writeShardPart(try part.json(), named: part.fileName, out: out, stoppedBy: stopRequest.stoppedBy)
            if !capturesAreComplete { throw ExitCode.incompleteCapture }
            return
        }
        let result: BenchResult
        do {
            result = try BenchShardMerge.merge([("this run", part)])
        } catch {
            printError("the bench failed: \(error)")
            throw ExitCode(1)
        }
        let verdicts = try writeBenchReports(result, out: out, formats: try chosenFormats(), gates: gates)
        if let signalName = stopRequest.stoppedBy, result.report.partial == true {
            printError("stopped by \(signalName): the reports cover the \(result.report.devicesPlayed ?? 0) devices played, marked partial")
            throw ExitCode.stoppedEarly
        }
        if try !gates.conclude(verdicts, suite: "netsim bench \(profile)").isEmpty { throw ExitCode(3) }
        if !capturesAreComplete { throw ExitCode.incompleteCapture }
    }

    private static func captureName(_ transport: BenchTransport, _ device: Int) -> String {
        "\(transport.rawValue)-device\(device).pcap"
    }

    /// One capture writer per device of every transport, by file name (`--pcap-dir`).
    private func openCaptures(for configuration: BenchConfiguration) throws -> [String: CaptureWriter] {
        guard let pcapDirectory else { return [:] }
        if let problem = unwritableReason(ofDirectory: pcapDirectory) {
            printError("cannot write captures into \(pcapDirectory): \(problem)")
            throw ExitCode(1)
        }
        var captures: [String: CaptureWriter] = [:]
        do {
            for transport in configuration.transports {
                for device in 0..<configuration.devices where configuration.shard.includes(device) {
                    let name = Self.captureName(transport, device)
                    captures[name] = try CaptureWriter(
                        path: pcapDirectory + "/" + name, wallClockOrigin: Date().timeIntervalSince1970,
                        // Device i of every transport plays seed + i (BenchRunner's Fleet.start).
                        runStart: RunStart(profile: configuration.profile, seed: configuration.seed &+ UInt64(device)))
                }
            }
        } catch {
            printError("\(error)")
            throw ExitCode(1)
        }
        return captures
    }

}

/// Writes a bench's reports (`OUT/bench-PROFILE.EXT` for each of `formats`) and prints its
/// Markdown, for `netsim bench` and `netsim report merge` alike. The gates are judged first
/// and recorded in the reports; their verdicts are returned, to conclude.
func writeBenchReports(_ result: BenchResult, out: String, formats: Set<ReportFormat>, gates: GateOptions) throws -> [GateVerdict] {
    let figures = try result.report.json()
    let verdicts = try gates.verdicts(figures, .bench)
    var result = result
    if !verdicts.isEmpty { result.report.gates = verdicts.map(\.outcome) }
    // The files are named after the profile: only a name that is one path component.
    if let problem = ProfileName.problem(with: result.report.profile) {
        printError("cannot write the reports: \(problem)")
        throw ExitCode(1)
    }
    let markdown = MarkdownReport.render(result)
    let json = try result.report.json()
    try writeReports(out: out, name: "bench-\(result.report.profile)", formats: formats, markdown: markdown) { format in
        switch format {
        case .md: Data(markdown.utf8)
        case .json: json
        case .html: Data(HTMLReport.render(result).utf8)
        case .benchmarkJSON: try BenchmarkJSON.render(try ReportTree(json: figures), schema: .bench)
        }
    }
    return verdicts
}

/// `--transports rest,ws`: the transports a bench compares, each once, in report order.
struct TransportChoice: Sendable, Equatable, CustomStringConvertible {
    let chosen: [BenchTransport]

    init(_ transports: [BenchTransport]) {
        chosen = Array(Set(transports)).sorted()
    }

    init(parsing text: String) throws {
        let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let known = BenchTransport.allCases.map(\.rawValue).joined(separator: ", ")
        let transports = try names.map { name in
            guard let transport = BenchTransport(rawValue: name) else { throw ValidationError("unknown '\(name)' (known: \(known))") }
            return transport
        }
        guard !transports.isEmpty else { throw ValidationError("name at least one of \(known)") }
        self.init(transports)
    }

    var description: String { chosen.map(\.rawValue).joined(separator: ",") }
}

/// `--engine live` or `--engine model`, by the names the report's `engine` key uses.
extension BenchEngine: ExpressibleByArgument {}
