import ArgumentParser
import Foundation
import Logging
import NIOCore
import NIOPosix
import NetsimAdmin
import NetsimCore
import NetsimInput
import NetsimPcap
import NetsimProxy
import NetsimReport
import Subprocess

/// `netsim run`: the emulating proxy, one device behind one or more forward rules.
public struct RunCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the emulating TCP proxy: point an app or a test suite at it.",
        discussion: """
            Every connection accepted on a listen address is forwarded to its upstream through one \
            emulated phone: its radio (promotion, paging and DRX delays; wake time and energy) and \
            one link per direction (rate or trace, delay, jitter, loss), all shared by every \
            connection of every rule. The profile's timeline (outages, handovers, link changes) \
            and NAT act live on open connections. Addresses are HOST:PORT; a bare :PORT or PORT \
            listens on loopback. With --socks5 or --http-proxy, clients name their own \
            destinations (TLS included) and netsim resolves names across the emulated link \
            (docs/proxy-front-ends.md). A front end never reaches netsim's own listeners (the \
            admin API, the forward rules, the front ends); listening beyond loopback, it also \
            refuses loopback and link-local destinations that --allow-to does not name, and only \
            serves the clients --allow-from names. Client names must be host names (RFC 1123) or \
            IP addresses; what a client sends reaches the log with control characters escaped.

            Example: netsim run --profile lte-tunnel --listen :8080 --upstream example.internal:80
            Example: netsim run --profile lte-tunnel --socks5 1080 --http-proxy 8888

            After --, a command to run behind the phone (your test suite): netsim starts the \
            proxy, runs it with the proxy's addresses in its environment (NETSIM_PROXY; \
            HTTP_PROXY, HTTPS_PROXY and their lowercase forms for --http-proxy; ALL_PROXY as \
            socks5h:// for --socks5, else the HTTP proxy; NETSIM_SOCKS5, NETSIM_HTTP_PROXY, \
            NETSIM_LISTEN), stops when it exits, writes the report, then applies the gates \
            (docs/ci.md).

            Example: netsim run --profile lte-good --socks5 :0 --fail-if 'radio.promotions > 3' -- ./run-tests.sh

            Exit status: the command's when it fails (it wins: the tests' failure is the news); \
            else 3 when a gate (--fail-if, --baseline) is breached; else 4 when the --pcap \
            capture is incomplete; 0 otherwise. 1 when the proxy cannot run or a file cannot be \
            written; 2 for a bad profile; 64 for bad options.
            """
    )

    @OptionGroup var emulation: EmulationOptions

    @Option(help: "Where apps connect (HOST:PORT). Goes with --upstream.", transform: { try RunCommand.address($0, form: "HOST:PORT") })
    var listen: HostPort?

    @Option(
        help: "Where the proxy forwards --listen's connections (HOST:PORT).",
        transform: { try RunCommand.address($0, form: "HOST:PORT", dialed: true) })
    var upstream: HostPort?

    @Option(
        name: .customLong("forward"),
        help:
            "A further rule LISTEN=UPSTREAM (repeatable); all rules share the one device. With --phones, LISTEN=UPSTREAM@phone-K gives the rule's connections to phone K.",
        transform: RunCommand.forwardRule)
    var forwards: [ForwardRule] = []

    @Option(
        name: .customLong("udp-forward"),
        help:
            "A UDP rule LISTEN=UPSTREAM (repeatable), e.g. :4433=127.0.0.1:4433 for HTTP/3: each client address and port is a flow through the same phone (its radio, links and NAT, nat.udpIdleTimeout), relayed to UPSTREAM; @phone-K as for --forward (docs/udp.md).",
        transform: RunCommand.forwardRule)
    var udpForwards: [ForwardRule] = []

    @Option(
        help: ArgumentHelp(
            "How many phones to emulate (1 to \(NetsimProxy.maximumPhones)), each with its own radio, links, NAT and seed (SEED+K-1 for phone K), playing the profile's timeline together (or staggered: --timeline-phase). A client's phone: its --forward rule's @phone-K, else its SOCKS5 username or HTTP proxy user phone-K, else its source address (each new address the next phone). Reports, /metrics and the dashboard are per phone (docs/phones.md). Default: 1.",
            valueName: "N"))
    var phones = 1

    @Option(
        name: .customLong("timeline-phase"),
        help: ArgumentHelp(
            "When each phone plays the profile's timeline: together (at the scripted times) or staggered (each phone's starts a delay later drawn from its seed, up to the timeline's period or length). Default: together.",
            valueName: "together|staggered"))
    var timelinePhase = TimelinePhase.together

    @Option(
        help:
            "Serve a SOCKS5 proxy here ([HOST:]PORT; loopback unless a host is given): clients name their own destinations (CONNECT to IPv4, IPv6 or a name netsim resolves), every connection through the one device (docs/proxy-front-ends.md). Default: no SOCKS5 proxy.",
        transform: { try RunCommand.address($0, form: "[HOST:]PORT") })
    var socks5: HostPort?

    @Option(
        name: .customLong("socks5-user"),
        help: "Require this SOCKS5 username and password (USER:PASS, RFC 1929). Default: no authentication.",
        transform: RunCommand.credentials)
    var socks5User: SOCKSCredentials?

    @Option(
        name: .customLong("http-proxy"),
        help:
            "Serve an HTTP proxy here ([HOST:]PORT; loopback unless a host is given): CONNECT tunnels (HTTPS, WebSocket, gRPC) and plain http:// requests, every connection through the one device. Default: no HTTP proxy.",
        transform: { try RunCommand.address($0, form: "[HOST:]PORT") })
    var httpProxy: HostPort?

    @Option(
        name: .customLong("allow-from"),
        help:
            "A client network the SOCKS5 and HTTP proxies serve besides loopback (CIDR, repeatable). Required to listen on a non-loopback address. Default: loopback clients only.",
        transform: { text in
            guard let network = IPNetwork(text) else { throw ValidationError("'\(text)' is not an address or CIDR block, e.g. 10.0.0.0/8") }
            return network
        })
    var allowFrom: [IPNetwork] = []

    @Option(
        name: .customLong("allow-to"),
        help:
            "A destination the SOCKS5 and HTTP proxies may reach: NAME, *.DOMAIN, IP or CIDR, each with an optional :PORT (repeatable). Default: anywhere but netsim's own listeners (never reachable), and, when a proxy listens beyond loopback, but loopback and link-local addresses (127.0.0.0/8, ::1, 169.254.0.0/16, fe80::/10), which only an IP, CIDR or exact NAME given here opens.",
        transform: { text in
            guard let pattern = DestinationPattern(text) else {
                throw ValidationError("'\(text)' is not NAME, *.DOMAIN, IP or CIDR with an optional :PORT")
            }
            return pattern
        })
    var allowTo: [DestinationPattern] = []

    @Option(help: "Write the JSON report here at the end (schema in docs/run-report.md). Default: only the printed summary.")
    var report: String?

    @Option(
        help:
            "Write what crossed the emulated link to this pcap file (synthesized TCP/IP, timestamped when on air, from a run-start to a run-end record). Default: no capture."
    )
    var pcap: String?

    @Option(
        help:
            "Serve the admin HTTP API here (HOST:PORT; :PORT is loopback): status, report, metrics, events; outages, network moves and set steps live (docs/admin-api.md). Default: no admin API.",
        transform: { try RunCommand.address($0, form: "HOST:PORT") })
    var admin: HostPort?

    @Option(
        help: ArgumentHelp(
            "The token every admin API request must carry (Authorization: Bearer TOKEN); needed when --admin listens beyond loopback. NETSIM_ADMIN_TOKEN gives it without showing it in the process list. Default: none (loopback only).",
            valueName: "TOKEN"))
    var adminToken: String?

    /// The admin token: the flag's, else the environment's (an empty variable is no token).
    var adminAccess: AdminAccess {
        AdminAccess(token: adminToken ?? environmentAdminToken)
    }

    private var environmentAdminToken: String? {
        ProcessInfo.processInfo.environment["NETSIM_ADMIN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    @Option(
        parsing: .unconditional,
        help: "The most bytes one direction of one connection may hold in the proxy before the sender is paused, e.g. 1MiB. Default: 4MiB.",
        transform: { text in
            guard let bytes = try? Quantity.byteCount(text), (1024...1024 * 1_048_576).contains(bytes) else {
                throw ValidationError("must be a size from 1KiB to 1024MiB, such as 64KiB or 4MiB")
            }
            return bytes
        })
    var bufferLimit = 4 * 1024 * 1024

    @Option(
        name: .customLong("grace-period"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long the command after -- (and every process it started) has to end after SIGTERM before SIGKILL, when the run ends or the command exits. Default: 10s.",
            valueName: "DURATION"),
        transform: parseDuration)
    var gracePeriod: Double?

    @Flag(help: "Print only warnings and the final summary.")
    var quiet = false

    @OptionGroup(title: "Gates") var gates: GateOptions

    @Option(
        name: .customLong("junit-in"),
        help:
            "With -- COMMAND: the JUnit XML your test runner writes (testcase and testsuite timestamps and times), read when the command ends; the report attributes the radio's promotions, wake time and energy to its test cases. Default: none."
    )
    var junitIn: String?

    @Argument(
        parsing: .postTerminator,
        help: ArgumentHelp(
            "A command to run behind the phone, after --: the run lasts as long as it does (or --duration, if sooner).",
            valueName: "command"))
    var command: [String] = []

    public init() {}

    public mutating func validate() throws {
        if gracePeriod != nil, command.isEmpty { throw ValidationError("--grace-period goes with a command after --") }
        if (listen == nil) != (upstream == nil) {
            throw ValidationError("--listen and --upstream go together")
        }
        // A wrapped command's clients need a proxy to go through: with none named, an HTTP proxy
        // on an ephemeral loopback port (its environment names it: HTTP_PROXY, NETSIM_PROXY).
        if listen == nil, forwards.isEmpty, udpForwards.isEmpty, socks5 == nil, httpProxy == nil, !command.isEmpty {
            httpProxy = HostPort(host: "127.0.0.1", port: 0)
        }
        if listen == nil, forwards.isEmpty, udpForwards.isEmpty, socks5 == nil, httpProxy == nil {
            throw ValidationError(
                "nothing to forward: give --listen HOST:PORT --upstream HOST:PORT, --forward LISTEN=UPSTREAM, --udp-forward LISTEN=UPSTREAM, --socks5 PORT or --http-proxy PORT"
            )
        }
        _ = try frontEnds()
        if let admin, !admin.isLoopback, adminAccess.token == nil {
            throw ValidationError(
                "--admin \(admin) is not a loopback address: anyone who can reach it could drive the phone and read where it connects. Give --admin-token TOKEN (or NETSIM_ADMIN_TOKEN), or listen on loopback (--admin :PORT)"
            )
        }
        if adminToken != nil, admin == nil { throw ValidationError("--admin-token goes with --admin") }
        if junitIn != nil, command.isEmpty {
            throw ValidationError("--junit-in reads what a wrapped command's test runner wrote: give -- COMMAND")
        }
        if let adminToken, let weakness = AdminAccess.weakness(of: adminToken, source: "--admin-token") {
            throw ValidationError(weakness.description)
        }
        if admin != nil, adminToken == nil, let token = environmentAdminToken,
            let weakness = AdminAccess.weakness(of: token, source: "NETSIM_ADMIN_TOKEN")
        {
            throw ValidationError(weakness.description)
        }
        try validatePhones()
        try gates.check(.run)
    }

    /// `--phones` and what it does not go with.
    private func validatePhones() throws {
        guard (1...NetsimProxy.maximumPhones).contains(phones) else {
            throw ValidationError("--phones must be 1 to \(NetsimProxy.maximumPhones), not \(phones)")
        }
        for (option, rules) in [("--forward", forwards), ("--udp-forward", udpForwards)] {
            if let rule = rules.first(where: { ($0.phone ?? 1) > phones }), let phone = rule.phone {
                throw ValidationError(
                    "\(option) \(rule.listen)=\(rule.upstream)@phone-\(phone): the run has \(phones) phone\(phones == 1 ? "" : "s") (--phones)"
                )
            }
        }
        guard phones > 1 else { return }
        if pcap != nil {
            throw ValidationError("--pcap captures one phone: it does not go with --phones \(phones)")
        }
        if socks5User != nil {
            throw ValidationError(
                "--socks5-user does not go with --phones \(phones): SOCKS5 clients choose their phone by username (phone-1 to phone-\(phones))"
            )
        }
    }

    /// The forward rules: --listen with --upstream, then each --forward.
    var rules: [ForwardRule] {
        var rules: [ForwardRule] = []
        if let listen, let upstream { rules.append(ForwardRule(listen: listen, upstream: upstream)) }
        return rules + forwards
    }

    /// The SOCKS5 and HTTP proxy front ends. One on a non-loopback address needs
    /// `--allow-from`, so that a proxy is never opened to a network by accident.
    func frontEnds() throws -> [FrontEndRule] {
        var rules: [FrontEndRule] = []
        if socks5User != nil, socks5 == nil { throw ValidationError("--socks5-user goes with --socks5") }
        if let socks5 { rules.append(FrontEndRule(listen: socks5, frontEnd: .socks5(credentials: socks5User))) }
        if let httpProxy { rules.append(FrontEndRule(listen: httpProxy, frontEnd: .httpProxy)) }
        if allowFrom.isEmpty, let exposed = rules.first(where: { !$0.listen.isLoopback }) {
            throw ValidationError(
                "\(exposed.listen) is not a loopback address: a proxy there would serve anyone who can reach it. Give --allow-from CIDR for the clients it may serve (e.g. --allow-from 192.168.1.0/24)"
            )
        }
        return rules
    }

    /// `--allow-from` and `--allow-to`.
    var accessPolicy: AccessPolicy { AccessPolicy(allowFrom: allowFrom, allowTo: allowTo) }

    /// HOST:PORT, :PORT or PORT (the last two on loopback); a `dialed` address needs a port
    /// above zero.
    static func address(_ text: String, form: String, dialed: Bool = false) throws -> HostPort {
        let address: HostPort?
        if let port = Int(text), (0...65535).contains(port) {
            address = HostPort(host: "127.0.0.1", port: port)
        } else {
            address = HostPort(text)
        }
        guard let address, !dialed || address.port > 0 else { throw ValidationError("'\(text)' is not \(form)") }
        return address
    }

    /// `LISTEN=UPSTREAM`, as `:8443=api.internal:443`, with `@phone-K` for phone K of several.
    static func forwardRule(_ text: String) throws -> ForwardRule {
        var rule = Substring(text)
        var phone: Int?
        if let at = rule.lastIndex(of: "@") {
            let name = rule[rule.index(after: at)...]
            guard name.hasPrefix("phone-"), let number = Int(name.dropFirst("phone-".count)), number >= 1 else {
                throw ValidationError("'\(text)': '\(name)' is not phone-K with K a phone's number from 1, e.g. @phone-2")
            }
            phone = number
            rule = rule[..<at]
        }
        let parts = rule.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let listen = try? address(parts[0], form: ""), let upstream = try? address(parts[1], form: "", dialed: true)
        else {
            throw ValidationError("'\(text)' is not LISTEN=UPSTREAM, e.g. :8443=api.internal:443")
        }
        return ForwardRule(listen: listen, upstream: upstream, phone: phone)
    }

    /// `USER:PASS` for SOCKS5 (RFC 1929: each at most 255 bytes).
    static func credentials(_ text: String) throws -> SOCKSCredentials {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 255, parts[1].utf8.count <= 255 else {
            throw ValidationError("expected USER:PASS (each at most 255 bytes)")
        }
        return SOCKSCredentials(username: parts[0], password: parts[1])
    }

    public func run() async throws {
        // First, so that a signal while the run starts stops it once it is up, not unreported.
        let signals = StopSignals.pending()
        let profile = try emulation.loadProfile()
        let frontEnds = try frontEnds()
        if let report, let problem = unwritableReason(ofFile: RunSummary.path(report, phone: phones > 1 ? 1 : nil)) {
            printError("cannot write the report to \(report): \(problem)")
            throw ExitCode(1)
        }
        let logLevel: Logger.Level = quiet ? .warning : .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        let logger = Logger(label: "netsim.run")
        var options = ProxyOptions()
        options.bufferLimit = bufferLimit
        options.access = accessPolicy
        var capture: CaptureWriter?
        if let pcap {
            do {
                capture = try CaptureWriter(
                    path: pcap, wallClockOrigin: Date().timeIntervalSince1970, runStart: RunStart(profile: profile, seed: emulation.seed))
            } catch {
                printError("cannot write the capture \(pcap): \(error)")
                throw ExitCode(1)
            }
            options.observer = capture.map { CaptureLinkObserver(writer: $0) }
        }

        var parts = RunParts(eventLoops: MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount))
        // The phone's time zero, on the wall clock the test runner's timestamps use.
        let startedAt = Date().timeIntervalSince1970
        let stopReason: String
        let commandStatus: Int32?
        do {
            let proxy = try await start(&parts, profile: profile, frontEnds: frontEnds, options: options, logger: logger)
            if let admin {
                // The proxy reads no YAML: the `/set` bodies are read here, by the profile reader.
                let server = AdminServer(proxy: proxy, readSetChange: ProfileLoader.setChange, access: adminAccess)
                // The admin API serves while the run runs, and past the proxy's stop, so that
                // its event streams carry the last events (on loops of its own: `AdminServer.serve`).
                (stopReason, commandStatus) = try await server.serve(at: admin) { address in
                    logger.info("admin API and live dashboard on http://\(address)/")
                    let ran = try await runCommand(behind: proxy, signals: signals)
                    await parts.stopProxy()
                    return ran
                }
            } else {
                (stopReason, commandStatus) = try await runCommand(behind: proxy, signals: signals)
            }
        } catch {
            printError("\(error)")
            _ = await parts.stop()
            throw ExitCode((error as? CommandStartFailure)?.exitStatus ?? 1)
        }
        let reports = try await parts.stop().get()
        let captureIsComplete = finishCaptures(capture.map { [$0] } ?? [])
        if standardErrorIsTerminal, !quiet { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
        // The gates first, so that the summary and every report carry them.
        let commandVerdict = commandStatus.map { status in
            GateVerdict(
                name: "command: \(command.shellQuoted)",
                failure: status == 0 ? nil : "the command exited with status \(status)",
                measured: "exit status \(status)", threshold: "fails on a non-zero exit status")
        }
        let testCases = junitIn.map { readTestCases($0, startedAt: startedAt) }
        var verdicts: [GateVerdict] = []
        var gated: [RunReport] = []
        for var report in reports {
            if case .success(let tests)? = testCases { report.tests = report.radio.byTest(tests) }
            var own = try gates.verdicts(try RunSummary.json(report), .run).map { verdict in
                guard let phone = report.phone else { return verdict }
                var numbered = verdict
                numbered.name = "phone \(phone): \(verdict.name)"
                numbered.failure = verdict.failure.map { "phone \(phone): \($0)" }
                return numbered
            }
            verdicts += own
            own += commandVerdict.map { [$0] } ?? []
            if !own.isEmpty { report.gates = own.map(\.outcome) }
            gated.append(report)
        }
        verdicts += commandVerdict.map { [$0] } ?? []
        let summary = RunSummary.render(gated, stoppedBy: stopReason)
        if command.isEmpty {
            print(summary)
        } else {
            // The command's standard output is its own (`netsim run -- ./emit-json > out.json`).
            FileHandle.standardError.write(Data((summary + "\n").utf8))
        }
        for report in gated {
            if let path = self.report {
                do {
                    try writeAtomically(try RunSummary.json(report), toPath: RunSummary.path(path, phone: report.phone))
                } catch {
                    printError("\(error)")
                    throw ExitCode(1)
                }
            }
        }
        let breaches = try gates.conclude(verdicts, suite: "netsim run \(profile.name)")
        if let commandStatus, commandStatus != 0 { throw ExitCode(commandStatus) }
        if case .failure(let problem)? = testCases {
            printError("--junit-in: \(problem)")
            throw ExitCode(1)
        }
        if !breaches.isEmpty { throw ExitCode(3) }
        if !captureIsComplete { throw ExitCode.incompleteCapture }
    }

    /// The test cases of the runner's JUnit file, their starts in seconds into the run.
    private func readTestCases(
        _ path: String, startedAt: Double
    ) -> Result<[(name: String, start: Double, seconds: Double)], JUnitTestCases.Problem> {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int else {
            return .failure(.init(description: "\(path): cannot be read"))
        }
        guard size <= JUnitTestCases.mostBytes else {
            return .failure(.init(description: "\(path): \(size) bytes, more than the \(JUnitTestCases.mostBytes) a JUnit file may have"))
        }
        guard let data = FileManager.default.contents(atPath: path) else { return .failure(.init(description: "\(path): cannot be read")) }
        do throws(JUnitTestCases.Problem) {
            return .success(
                try JUnitTestCases(data, source: path).cases.map { (name: $0.name, start: $0.start - startedAt, seconds: $0.seconds) })
        } catch {
            return .failure(error)
        }
    }

    /// Starts the proxy into `parts` and says where it listens; returns the proxy. Throws what
    /// kept it from starting, with the words the user reads; the caller stops what did start.
    private func start(
        _ parts: inout RunParts, profile: Profile, frontEnds: [FrontEndRule], options: ProxyOptions, logger: Logger
    ) async throws -> NetsimProxy {
        let proxy = try await NetsimProxy.start(
            profile: profile, seed: emulation.seed, phones: phones, timelinePhase: timelinePhase, forwards: rules, frontEnds: frontEnds,
            datagramForwards: udpForwards, options: options,
            group: parts.eventLoops,
            logger: logger)
        parts.proxy = proxy
        let device =
            phones == 1
            ? "one \(profile.name) device (seed \(emulation.seed))"
            : "\(phones) \(profile.name) phones (seeds \(emulation.seed) to \(emulation.seed &+ UInt64(phones - 1)))"
        // A rule pinned to one phone names it; otherwise the rule feeds every phone.
        func phone(_ number: Int?) -> String { number.map { "phone \($0) of \(device)" } ?? device }
        for listener in proxy.listeners {
            let address = listener.address
            switch listener.role {
            case .forward(let rule):
                logger.info("listening on \(address), forwarding to \(rule.upstream) as \(phone(rule.phone))")
            case .frontEnd(let rule):
                let name = rule.frontEnd == .httpProxy ? "HTTP proxy" : "SOCKS5 proxy"
                logger.info("\(name) on \(address), every connection through \(device)")
            case .datagramForward(let rule):
                logger.info("UDP on \(address), forwarding to \(rule.upstream) as \(phone(rule.phone))")
            }
        }
        return proxy
    }

    /// Runs the command after -- (if any) behind `proxy` until the run stops; why it stopped,
    /// and the command's exit status (nil without a command). The command is stopped (SIGTERM,
    /// then SIGKILL after its grace period) before this returns, so before the proxy stops.
    /// Throws `CommandStartFailure` when the command cannot start.
    private func runCommand(behind proxy: NetsimProxy, signals: AsyncStream<String>) async throws -> (stopReason: String, status: Int32?) {
        guard !command.isEmpty else { return (await waitForStop(proxy: proxy, command: nil, signals: signals), nil) }
        do {
            let run = try await WrappedCommand.run(
                command, environment: WrappedCommand.proxyEnvironment(proxy: proxy),
                gracePeriod: gracePeriod.map { .milliseconds(Int(($0 * 1000).rounded())) } ?? WrappedCommand.defaultGracePeriod
            ) { command in
                await waitForStop(proxy: proxy, command: command, signals: signals)
            }
            return (run.outcome, run.status)
        } catch {
            throw CommandStartFailure(command: command[0], reason: error)
        }
    }

    /// The wrapped command could not be started (no such file, not executable).
    private struct CommandStartFailure: Error, CustomStringConvertible {
        let command: String
        let reason: any Error
        var description: String { "cannot run \(command): \(reason)" }
        /// A shell's status for it: 127 for a command not found, 126 for one it cannot run.
        var exitStatus: Int32 { (reason as? SubprocessError)?.code == .executableNotFound || reason is WrappedCommand.NotFound ? 127 : 126 }
    }

    /// Waits for the duration, the wrapped command's end, Ctrl-C, SIGTERM or SIGHUP, showing a
    /// live status line on a terminal.
    private func waitForStop(proxy: NetsimProxy, command: WrappedCommand?, signals: AsyncStream<String>) async -> String {
        let showsStatus = standardErrorIsTerminal && !quiet
        let duration = emulation.duration
        return await withTaskGroup(of: String?.self) { group in
            group.addTask {
                await StopSignals.first(of: signals)
            }
            if let command {
                group.addTask {
                    let status = await command.exitStatus()
                    if Task.isCancelled { return nil }
                    return "the command (exit status \(status.map(String.init) ?? "unknown"))"
                }
            }
            if let duration {
                group.addTask {
                    try? await Task.sleep(for: .seconds(duration))
                    return Task.isCancelled ? nil : "the duration (\(Quantity.formatDuration(duration)))"
                }
            }
            if showsStatus {
                group.addTask {
                    while !Task.isCancelled {
                        if let status = try? await proxy.status() {
                            FileHandle.standardError.write(Data("\r\u{1B}[2K\(RunSummary.statusLine(status, duration: duration))".utf8))
                        }
                        try? await Task.sleep(for: .milliseconds(500))
                    }
                    return nil
                }
            }
            var reason = "?"
            for await finished in group {
                if let finished {
                    reason = finished
                    break
                }
            }
            group.cancelAll()
            return reason
        }
    }
}

extension TimelinePhase: ExpressibleByArgument {}
