import Foundation
import NetsimProxy
import Subprocess

/// The command of `netsim run -- COMMAND ARGS...`: the user's own test suite, run behind the
/// emulated phone as mahimahi's shells run theirs, without root. It starts with the proxy's
/// addresses in its environment and inherits netsim's standard input and output; the run lasts
/// as long as it does. If the run ends first (its duration, a signal), the command gets
/// SIGTERM, then SIGKILL after `gracePeriod`.
///
/// Started through swift-subprocess, whose child begins with every signal at its default and
/// none blocked. A child of a task thread started with Foundation's `Process` inherited the
/// thread's mask, SIGTERM blocked, and never saw the run's stop.
final class WrappedCommand: Sendable {
    /// How long a command has to end after SIGTERM before it is killed.
    static let gracePeriod = Duration.seconds(10)

    /// The command from its start to its exit status (nil if its end could not be told);
    /// cancelling it is the stop (Subprocess's teardown: SIGTERM, then SIGKILL after the grace
    /// period). Awaited by `stop`.
    private let execution: Task<Int32?, Never>
    /// The exit status once, for the one task that waits for the command to end by itself
    /// (`exitStatus`); a stream, so that the wait ends when that task is cancelled.
    private let exits: AsyncStream<Int32?>

    private init(execution: Task<Int32?, Never>, exits: AsyncStream<Int32?>) {
        self.execution = execution
        self.exits = exits
    }

    /// Starts `arguments` (its first found on the PATH) with `environment` added to netsim's
    /// own; returns once it runs, or throws why it could not start.
    static func start(_ arguments: [String], environment: [String: String]) async throws -> WrappedCommand {
        var options = PlatformOptions()
        options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: gracePeriod)]
        let additions = Dictionary(uniqueKeysWithValues: environment.map { (Environment.Key(stringLiteral: $0.key), Optional($0.value)) })
        let (starts, started) = AsyncStream.makeStream(of: (any Error)?.self)
        let (exits, exited) = AsyncStream.makeStream(of: Int32?.self)
        let execution = Task { () -> Int32? in
            defer { started.finish() }
            var status: Int32?
            do {
                let result = try await Subprocess.run(
                    .name(arguments[0]), arguments: Arguments(Array(arguments.dropFirst())),
                    environment: .inherit.updating(additions), platformOptions: options, input: .currentStandardInput,
                    output: .currentStandardOutput, error: .currentStandardError
                ) { _ in started.yield(nil) }
                status = Self.status(of: result.terminationStatus)
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
        return WrappedCommand(execution: execution, exits: exits)
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

    /// Ends the command if it still runs (SIGTERM, then SIGKILL after `gracePeriod`); its exit status.
    func stop() async -> Int32? {
        execution.cancel()
        return await execution.value
    }
}

extension WrappedCommand {
    /// What the command finds in its environment: where the proxy listens, under the names
    /// HTTP clients read (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, and curl's lowercase
    /// forms) and under netsim's own (`NETSIM_PROXY`, `NETSIM_SOCKS5`, `NETSIM_HTTP_PROXY`,
    /// `NETSIM_LISTEN`). A listener on every address is reached on loopback.
    static func proxyEnvironment(proxy: NetsimProxy, frontEnds: [FrontEndRule], forwards: [ForwardRule]) -> [String: String] {
        var environment: [String: String] = [:]
        var socks: String?
        var http: String?
        for (rule, bound) in zip(frontEnds, proxy.frontEndAddresses) {
            let address = reachable(bound).description
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
