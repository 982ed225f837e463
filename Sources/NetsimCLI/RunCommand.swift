import ArgumentParser
import Foundation
import Logging
import NIOCore
import NIOPosix
import NetsimCore
import NetsimPcap
import NetsimProxy

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
            listens on loopback.

            Example: netsim run --profile lte-tunnel --listen :8080 --upstream example.internal:80
            """
    )

    @OptionGroup var emulation: EmulationOptions

    @Option(help: "Where apps connect (HOST:PORT). Goes with --upstream.")
    var listen: String?

    @Option(help: "Where the proxy forwards --listen's connections (HOST:PORT).")
    var upstream: String?

    @Option(name: .customLong("forward"), help: "A further rule LISTEN=UPSTREAM (repeatable); all rules share the one device.")
    var forwards: [String] = []

    @Option(help: "Write the JSON report here at the end (schema in docs/run-report.md). Default: only the printed summary.")
    var report: String?

    @Option(
        help:
            "Write what crossed the emulated link to this pcap file (synthesized TCP/IP, timestamped when on air, from a run-start to a run-end record). Default: no capture."
    )
    var pcap: String?

    @Option(
        help:
            "Serve the admin HTTP API here (HOST:PORT; :PORT is loopback): status, report, metrics, events; outages, network moves and set steps live (docs/admin-api.md). Default: no admin API."
    )
    var admin: String?

    @Option(
        help: "The most bytes one direction of one connection may hold in the proxy before the sender is paused, e.g. 1MiB. Default: 4MiB.",
        transform: { text in
            do { return try Quantity.byteCount(text) } catch { throw ValidationError("--buffer-limit: \(error)") }
        })
    var bufferLimit = 4 * 1024 * 1024

    @Flag(help: "Print only warnings and the final summary.")
    var quiet = false

    public init() {}

    public func validate() throws {
        if (listen == nil) != (upstream == nil) {
            throw ValidationError("--listen and --upstream go together")
        }
        if listen == nil, forwards.isEmpty {
            throw ValidationError("nothing to forward: give --listen HOST:PORT --upstream HOST:PORT, or --forward LISTEN=UPSTREAM")
        }
        _ = try rules()
        if let admin, Self.address(admin) == nil {
            throw ValidationError("--admin: '\(admin)' is not HOST:PORT")
        }
    }

    /// The forward rules, parsed.
    func rules() throws -> [ForwardRule] {
        var rules: [ForwardRule] = []
        if let listen, let upstream {
            guard let from = Self.address(listen) else { throw ValidationError("--listen: '\(listen)' is not HOST:PORT") }
            guard let to = Self.address(upstream), to.port > 0 else { throw ValidationError("--upstream: '\(upstream)' is not HOST:PORT") }
            rules.append(ForwardRule(listen: from, upstream: to))
        }
        for forward in forwards {
            let parts = forward.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let from = Self.address(parts[0]), let to = Self.address(parts[1]), to.port > 0 else {
                throw ValidationError("--forward: '\(forward)' is not LISTEN=UPSTREAM, e.g. :8443=api.internal:443")
            }
            rules.append(ForwardRule(listen: from, upstream: to))
        }
        return rules
    }

    /// Why the report could not be written at `path` at the end of the run, checked at the
    /// start so that a typo does not cost the run; nil if it can be.
    static func unwritableReason(_ path: String) -> String? {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return "it is a directory" }
            return files.isWritableFile(atPath: path) ? nil : "the file is not writable"
        }
        let parent = (path as NSString).deletingLastPathComponent
        let directory = parent.isEmpty ? "." : parent
        guard files.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            return "no directory \(directory)"
        }
        return files.isWritableFile(atPath: directory) ? nil : "the directory \(directory) is not writable"
    }

    /// HOST:PORT, :PORT or PORT (the last two on loopback).
    static func address(_ text: String) -> HostPort? {
        if let port = Int(text), (0...65535).contains(port) { return HostPort(host: "127.0.0.1", port: port) }
        return HostPort(text)
    }

    public func run() async throws {
        let profile = try emulation.loadProfile()
        let rules = try rules()
        if let report, let problem = Self.unwritableReason(report) {
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
        var capture: CaptureWriter?
        if let pcap {
            do {
                capture = try CaptureWriter(path: pcap, wallClockOrigin: Date().timeIntervalSince1970, marksRunStart: true)
            } catch {
                printError("cannot write the capture \(pcap): \(error)")
                throw ExitCode(1)
            }
            options.observer = capture.map { CaptureLinkObserver(writer: $0) }
        }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let proxy: NetsimProxy
        do {
            proxy = try await NetsimProxy.start(
                profile: profile, seed: emulation.seed, forwards: rules, options: options, group: group, logger: logger)
        } catch {
            printError("\(error)")
            try? await group.shutdownGracefully()
            throw ExitCode(1)
        }
        var adminServer: AdminServer?
        if let admin, let address = Self.address(admin) {
            do {
                adminServer = try await AdminServer.start(at: address, proxy: proxy, group: group)
            } catch {
                printError("\(error)")
                _ = try? await proxy.stop()
                try? await group.shutdownGracefully()
                throw ExitCode(1)
            }
        }
        for (rule, address) in zip(rules, proxy.listeningAddresses) {
            logger.info("listening on \(address), forwarding to \(rule.upstream) as one \(profile.name) device (seed \(emulation.seed))")
        }
        if let adminServer { logger.info("admin API on http://\(adminServer.address)/status") }

        let stopReason = await waitForStop(proxy: proxy)
        await adminServer?.stop()
        let report = try await proxy.stop()
        try? await group.shutdownGracefully()
        if let capture {
            do {
                try capture.finish()
            } catch {
                printError("the capture \(capture.path) is incomplete: \(error)")
            }
            if capture.droppedRecords > 0 {
                printError("the capture dropped \(capture.droppedRecords) record(s): the disk was slower than the link")
            }
        }
        if standardErrorIsTerminal, !quiet { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
        print(RunSummary.render(report, stoppedBy: stopReason))
        if let path = self.report {
            do {
                try RunSummary.json(report).write(to: URL(fileURLWithPath: path))
            } catch {
                printError("cannot write the report to \(path): \(error)")
                throw ExitCode(1)
            }
        }
    }

    /// Waits for the duration, Ctrl-C, SIGTERM or SIGHUP, showing a live status line on a terminal.
    private func waitForStop(proxy: NetsimProxy) async -> String {
        let showsStatus = standardErrorIsTerminal && !quiet
        let duration = emulation.duration
        return await withTaskGroup(of: String?.self) { group in
            group.addTask {
                await StopSignals.next()
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

/// SIGINT, SIGTERM and SIGHUP (a closed terminal), as an awaitable event: each stops the run
/// cleanly and the report is still written.
enum StopSignals {
    static func next() async -> String? {
        let stream = AsyncStream<String> { continuation in
            let sources = SignalSources(
                [(SIGINT, "Ctrl-C"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")].map { signalNumber, name in
                    signal(signalNumber, SIG_IGN)
                    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                    source.setEventHandler { continuation.yield(name) }
                    source.resume()
                    return source
                })
            continuation.onTermination = { _ in sources.cancel() }
        }
        for await name in stream { return name }
        return nil
    }

    /// Dispatch sources may be cancelled from any thread.
    private struct SignalSources: @unchecked Sendable {
        let sources: [any DispatchSourceSignal]
        init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
        func cancel() { for source in sources { source.cancel() } }
    }
}
