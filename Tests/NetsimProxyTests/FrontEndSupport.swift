import Foundation
import Logging
import NIOCore
import NIOPosix
import NetsimCore
import NetsimProxy

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Real clients and servers for the front ends' end-to-end tests: curl, openssl and the
/// python peers in Peers/front_end_peers.py, run as child processes.
enum FrontEndPeers {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/front_end_peers.py").path

    /// Whether `tool` is on the PATH.
    static func has(_ tool: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
        }
    }

    /// Whether python3 can import every one of `modules` (scripts/install-deps.sh installs them).
    static func python(has modules: String...) -> Bool {
        guard has("python3") else { return false }
        return (try? run(["python3", "-c", modules.map { "import \($0)" }.joined(separator: "; ")], timeout: .seconds(30)).status) == 0
    }

    static let curlAndOpenSSL = has("curl") && has("openssl") && has("python3")

    /// Runs a command to its end (killed after `timeout`): its exit status, and standard output
    /// and error together. Blocks its thread: a child is spawned and waited for with
    /// posix_spawn and waitpid rather than Foundation's Process, whose exit monitoring needs a
    /// dispatch thread that blocked test threads can starve.
    @discardableResult
    static func run(_ arguments: [String], timeout: Duration = .seconds(60)) throws -> (status: Int32, output: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-out-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let child = try spawn(arguments, output: output)
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while waitpid(child, &status, WNOHANG) == 0 {
            if ContinuousClock.now > deadline {
                kill(child, SIGKILL)
                _ = waitpid(child, &status, 0)
                return (-1, "timed out: \(arguments)")
            }
            usleep(10_000)
        }
        let exited = status & 0x7F == 0
        return (exited ? (status >> 8) & 0xFF : -1, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    /// Starts `arguments` (found on the PATH), its standard output and error to `output`.
    static func spawn(_ arguments: [String], output: String = "/dev/null") throws -> pid_t {
        #if canImport(Glibc)
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #else
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // A clean signal mask, whatever the test thread blocks.
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = (["env"] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, "/usr/bin/env", &actions, &attributes, argv, environ)
        guard result == 0 else { throw PeerDidNotStart(arguments: arguments + ["posix_spawn: \(result)"]) }
        return child
    }

    /// A server of the python peers (`http`, `websocket`, `grpc`; of `script`, its commands),
    /// and the port it listens on.
    final class Server {
        let port: Int
        private let child: pid_t

        convenience init(_ arguments: String...) throws {
            try self.init(script: FrontEndPeers.script, arguments)
        }

        init(script: String, _ arguments: [String]) throws {
            let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-port-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: portFile) }
            child = try spawn(["python3", script, arguments[0], portFile] + arguments.dropFirst())
            let deadline = ContinuousClock.now + .seconds(20)
            var status: Int32 = 0
            while FileManager.default.contents(atPath: portFile) == nil, waitpid(child, &status, WNOHANG) == 0,
                ContinuousClock.now < deadline
            {
                usleep(20_000)
            }
            guard let text = FileManager.default.contents(atPath: portFile), let port = Int(String(decoding: text, as: UTF8.self)) else {
                kill(child, SIGKILL)
                _ = waitpid(child, &status, 0)
                throw PeerDidNotStart(arguments: arguments)
            }
            self.port = port
        }

        func stop() {
            kill(child, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(child, &status, 0)
        }
    }

    struct PeerDidNotStart: Error {
        let arguments: [String]
    }

    /// A self-signed certificate for `localhost`, made with openssl, in a scratch directory.
    struct Certificate {
        let directory: String
        var certificate: String { directory + "/cert.pem" }
        var key: String { directory + "/key.pem" }

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-tls-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let made = try run([
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost", "-keyout", directory + "/key.pem", "-out", directory + "/cert.pem",
            ])
            guard made.status == 0 else { throw PeerDidNotStart(arguments: ["openssl", made.output]) }
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// The bytes the http peer answers to `GET /payload?size=N`.
    static func pattern(_ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(($0 * 7 + 3) % 251) }
    }

    /// A file of scratch output, read and removed.
    static func scratchFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("netsim-body-\(UUID().uuidString)").path
    }

    static func contents(_ path: String) -> [UInt8] {
        defer { try? FileManager.default.removeItem(atPath: path) }
        return FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
    }
}

/// A proxy with both front ends, on a phone with a radio and a link that shape every byte.
struct FrontEndProxy {
    let proxy: NetsimProxy
    var socksPort: Int { proxy.frontEndAddresses[0].port }
    var httpPort: Int { proxy.frontEndAddresses[1].port }

    static let profile = Profile(
        name: "front-ends", description: "",
        networks: [
            Network(
                name: "lte", radio: .lte(LTERadioParameters()),
                up: LinkParameters(capacity: .rate(bitsPerSecond: 20e6), delay: 0.01),
                down: LinkParameters(capacity: .rate(bitsPerSecond: 50e6), delay: 0.01))
        ],
        start: "lte")

    /// Both front ends on `host` (loopback by default), with `forwards` beside them.
    static func start(
        access: AccessPolicy = AccessPolicy(), credentials: SOCKSCredentials? = nil, observer: (any LinkObserver)? = nil,
        host: String = "127.0.0.1", forwards: [ForwardRule] = [], phones: Int = 1, logger: Logger = Loopback.logger
    ) async throws -> FrontEndProxy {
        var options = ProxyOptions()
        options.access = access
        options.observer = observer
        let listen = HostPort(host: host, port: 0)
        let proxy = try await NetsimProxy.start(
            profile: profile, seed: 1, phones: phones, forwards: forwards,
            frontEnds: [
                FrontEndRule(listen: listen, frontEnd: .socks5(credentials: credentials)),
                FrontEndRule(listen: listen, frontEnd: .httpProxy),
            ],
            options: options, group: Loopback.group, logger: logger)
        return FrontEndProxy(proxy: proxy)
    }
}

/// Raw protocol exchanges with the front ends, for what no ready-made client sends.
enum RawClient {
    /// Sends each of `messages` after reading `replyLengths` bytes for the one before (all
    /// that comes when it is nil); returns everything read, up to EOF or `timeout`.
    static func exchange(
        port: Int, host: String = "127.0.0.1", _ steps: [(send: [UInt8], replyLength: Int?)], timeout: Duration = .seconds(10)
    ) async throws -> [UInt8] {
        let channel = try await Loopback.connect(port: port, host: host)
        return try await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: [UInt8].self) { group in
                group.addTask {
                    var received: [UInt8] = []
                    var iterator = inbound.makeAsyncIterator()
                    for step in steps {
                        try await outbound.write(ByteBuffer(bytes: step.send))
                        let target = step.replyLength.map { received.count + $0 } ?? Int.max
                        while received.count < target {
                            guard var chunk = try await iterator.next() else { return received }
                            received += chunk.readBytes(length: chunk.readableBytes) ?? []
                        }
                    }
                    return received
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return []
                }
                let first = try await group.next() ?? []
                group.cancelAll()
                return first
            }
        }
    }

    /// A SOCKS5 greeting offering no authentication, and its expected reply length.
    static let greeting: (send: [UInt8], replyLength: Int?) = ([5, 1, 0], 2)

    /// A SOCKS5 CONNECT to a name.
    static func connect(to name: String, port: Int) -> (send: [UInt8], replyLength: Int?) {
        ([5, 1, 0, 3, UInt8(name.utf8.count)] + Array(name.utf8) + [UInt8(port >> 8), UInt8(port & 0xFF)], 10)
    }

    /// A SOCKS5 CONNECT to an IPv4 or IPv6 address.
    static func connect(toAddress bytes: [UInt8], port: Int) -> (send: [UInt8], replyLength: Int?) {
        ([5, 1, 0, bytes.count == 4 ? 1 : 4] + bytes + [UInt8(port >> 8), UInt8(port & 0xFF)], 10)
    }

    /// The status line of an HTTP response, e.g. `HTTP/1.1 403 Forbidden`.
    static func statusLine(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).split(separator: "\r\n").first.map(String.init) ?? ""
    }
}
