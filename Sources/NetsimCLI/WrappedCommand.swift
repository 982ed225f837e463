import Foundation
import NetsimProxy
import Subprocess

/// The command of `netsim run -- COMMAND ARGS...`: the user's own test suite, run behind the
/// emulated phone as mahimahi's shells run theirs, without root. It starts with the proxy's
/// addresses in its environment and inherits netsim's standard input and output; the run lasts
/// as long as it does. Nothing it starts outlives the run: it runs in a process group of its
/// own, and when the run ends first (its duration, a signal) or the command exits, what is
/// left of the group gets SIGTERM, then SIGKILL after the grace period. On Linux a
/// `CommandSupervisor` between netsim and the command does this, and kills the group when
/// netsim itself is killed; elsewhere swift-subprocess's teardown signals the group, and what
/// the command leaves behind when it exits gets SIGKILL.
///
/// Started through swift-subprocess, whose child begins with every signal at its default and
/// none blocked. A child of a task thread started with Foundation's `Process` inherited the
/// thread's mask, SIGTERM blocked, and never saw the run's stop.
struct WrappedCommand: Sendable {
    /// How long a command has to end after SIGTERM before it is killed, unless the run says.
    static let defaultGracePeriod = Duration.seconds(10)

    /// The exit status once, for the one task that waits for the command to end by itself
    /// (`exitStatus`); a stream, so that the wait ends when that task is cancelled.
    private let exits: AsyncStream<Int32?>

    /// A command named by a path that names no file.
    struct NotFound: Error, CustomStringConvertible {
        let path: String
        var description: String { "no such file: \(path)" }
    }

    /// Starts `arguments` (its first found on the PATH unless it holds a `/`) with
    /// `environment` added to netsim's own, runs `body` while it runs, then ends it if it still
    /// runs (SIGTERM, then SIGKILL after the grace period: Subprocess's teardown, on the
    /// cancellation of the child task that runs it); returns what `body` returned and the
    /// command's exit status (nil if its end could not be told). The command is a child task of
    /// this call, so it cannot outlive it, however `body` ends or this task is cancelled.
    /// Throws why the command could not start (`body` then never runs).
    static func run<Outcome>(
        _ arguments: [String], environment: [String: String], gracePeriod: Duration, body: (WrappedCommand) async -> Outcome
    ) async throws -> (outcome: Outcome, status: Int32?) {
        let additions = Dictionary(uniqueKeysWithValues: environment.map { (Environment.Key(stringLiteral: $0.key), Optional($0.value)) })
        let environment = Environment.inherit.updating(additions)
        let named: Executable = arguments[0].contains("/") ? .path(.init(arguments[0])) : .name(arguments[0])
        var options = PlatformOptions()
        #if os(Linux)
        let path: String
        if arguments[0].contains("/") {
            guard FileManager.default.fileExists(atPath: arguments[0]) else { throw NotFound(path: arguments[0]) }
            path = arguments[0]
        } else {
            path = try await named.resolveExecutablePath(in: environment).string
        }
        let executable = Executable.path("/proc/self/exe")
        let executableArguments = CommandSupervisor.arguments(path: path, arguments: arguments, gracePeriod: gracePeriod)
        // The supervisor keeps the grace period itself; this teardown is the backstop should it hang.
        options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: gracePeriod + .seconds(2))]
        #else
        let executable = named
        let executableArguments = Array(arguments.dropFirst())
        options.processGroupID = 0
        options.teardownSequence = [.gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: gracePeriod)]
        #endif
        let (starts, started) = AsyncStream.makeStream(of: (any Error)?.self)
        let (exits, exited) = AsyncStream.makeStream(of: Int32?.self)
        return try await withThrowingTaskGroup(of: Int32?.self) { group in
            // The command from its start to its exit status; cancelling it is the stop.
            group.addTask { [options] in
                defer { started.finish() }
                var status: Int32?
                do {
                    let result = try await Subprocess.run(
                        executable, arguments: Arguments(executableArguments),
                        environment: environment, platformOptions: options, input: .currentStandardInput,
                        output: .currentStandardOutput, error: .currentStandardError
                    ) { _ in started.yield(nil) }
                    status = Self.status(of: result.terminationStatus)
                    #if !os(Linux)
                    // What the command left behind in its group (background children).
                    kill(-result.processIdentifier.value, SIGKILL)
                    #endif
                } catch {
                    // Before the start, why it failed; after it, the wait for its end failed.
                    started.yield(error)
                }
                exited.yield(status)
                exited.finish()
                return status
            }
            for await failure in starts {
                if let failure { throw failure }
                break
            }
            let outcome = await body(WrappedCommand(exits: exits))
            group.cancelAll()
            let status = try await group.next() ?? nil
            return (outcome, status)
        }
    }

    /// A command killed by a signal exits as a shell reports it: 128 + the signal.
    private static func status(of termination: TerminationStatus) -> Int32 {
        switch termination {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    }

    /// The command's exit status once it has exited by itself; nil if the waiting task is
    /// cancelled first, or if its end could not be told. For one waiter.
    func exitStatus() async -> Int32? {
        for await status in exits { return status }
        return nil
    }
}

extension WrappedCommand {
    /// What the command finds in its environment: where the proxy listens, under the names
    /// HTTP clients read (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, and curl's lowercase
    /// forms) and under netsim's own (`NETSIM_PROXY`, `NETSIM_SOCKS5`, `NETSIM_HTTP_PROXY`,
    /// `NETSIM_LISTEN`). A listener on every address is reached on loopback.
    static func proxyEnvironment(proxy: NetsimProxy) -> [String: String] {
        var environment: [String: String] = [:]
        var socks: String?
        var http: String?
        for listener in proxy.listeners {
            guard case .frontEnd(let rule) = listener.role else { continue }
            let address = reachable(listener.address).description
            switch rule.frontEnd {
            case .socks5:
                socks = socks ?? address
            case .httpProxy:
                http = http ?? address
            }
        }
        if let http {
            environment["NETSIM_HTTP_PROXY"] = http
            for name in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] { environment[name] = "http://\(http)" }
        }
        if let socks { environment["NETSIM_SOCKS5"] = socks }
        let all = socks.map { "socks5h://\($0)" } ?? http.map { "http://\($0)" }
        if let all {
            environment["ALL_PROXY"] = all
            environment["all_proxy"] = all
        }
        environment["NETSIM_PROXY"] = http.map { "http://\($0)" } ?? all
        if let listen = proxy.listeningAddresses.first { environment["NETSIM_LISTEN"] = reachable(listen).description }
        environment["NETSIM_PHONES"] = "\(proxy.phoneCount)"
        return environment
    }

    /// `address`, with an unspecified host (`0.0.0.0`, `::`) replaced by loopback.
    private static func reachable(_ address: HostPort) -> HostPort {
        switch address.host {
        case "0.0.0.0", "": HostPort(host: "127.0.0.1", port: address.port)
        case "::": HostPort(host: "::1", port: address.port)
        default: address
        }
    }
}
