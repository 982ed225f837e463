import Foundation
import NetsimProxy
import Synchronization

/// The command of `netsim run -- COMMAND ARGS...`: the user's own test suite, run behind the
/// emulated phone as mahimahi's shells run theirs, without root. It starts with the proxy's
/// addresses in its environment and inherits netsim's standard input and output; the run lasts
/// as long as it does. If the run ends first (its duration, a signal), the command gets
/// SIGTERM, then SIGKILL after `gracePeriod`.
final class WrappedCommand: Sendable {
    /// How long a command has to end after SIGTERM before it is killed.
    static let gracePeriod = Duration.seconds(10)

    private let process: UncheckedProcess
    private let state = Mutex<State>(State())

    private struct State {
        var status: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }

    private init(process: Process) {
        self.process = UncheckedProcess(process)
    }

    /// Starts `arguments` (its first found on the PATH) with `environment` added to netsim's own.
    static func start(_ arguments: [String], environment: [String: String]) throws -> WrappedCommand {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, ours in ours }
        let command = WrappedCommand(process: process)
        process.terminationHandler = { finished in
            // A command killed by a signal exits as a shell reports it: 128 + the signal.
            let status = finished.terminationReason == .uncaughtSignal ? 128 + finished.terminationStatus : finished.terminationStatus
            command.finished(status)
        }
        try process.run()
        return command
    }

    /// The command's exit status, once it has exited.
    func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = state.withLock { state -> Int32? in
                if state.status == nil { state.waiters.append(continuation) }
                return state.status
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// Ends the command if it still runs (SIGTERM, then SIGKILL after `gracePeriod`); its exit status.
    func stop() async -> Int32 {
        if process.value.isRunning {
            process.value.terminate()
            let pid = process.value.processIdentifier
            let killer = Task {
                try await Task.sleep(for: Self.gracePeriod)
                kill(pid, SIGKILL)
            }
            let status = await exitStatus()
            killer.cancel()
            return status
        }
        return await exitStatus()
    }

    private func finished(_ status: Int32) {
        let waiters = state.withLock { state in
            state.status = status
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: status) }
    }

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

/// `Process` is not `Sendable`; this one is only started, asked whether it runs, and sent
/// SIGTERM, which Foundation allows from any thread.
private struct UncheckedProcess: @unchecked Sendable {
    let value: Process
    init(_ value: Process) { self.value = value }
}
