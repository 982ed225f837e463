import Logging
import NIOCore
import NetsimAdmin
import NetsimCore
import NetsimInput
import NetsimProxy

extension AdminServer {
    /// An admin server whose `/set` bodies are read by the profile reader, as `netsim run`'s are
    /// (the proxy itself reads no YAML).
    init(proxy: NetsimProxy, limits: AdminLimits = AdminLimits(), access: AdminAccess = AdminAccess()) {
        self.init(proxy: proxy, readSetChange: ProfileLoader.setChange, limits: limits, access: access, logger: Loopback.logger)
    }

    /// The admin server serving at `address` until `RunningAdmin.stop`: the end-to-end tests
    /// hold it open across several steps, which a scope (`serve`) would nest deeply. A test
    /// task of its own runs it; `stop` ends and awaits it.
    static func start(
        at address: HostPort, proxy: NetsimProxy, group: any EventLoopGroup, limits: AdminLimits = AdminLimits(),
        access: AdminAccess = AdminAccess()
    ) async throws -> RunningAdmin {
        let server = AdminServer(proxy: proxy, limits: limits, access: access)
        let (listening, listener) = AsyncStream<HostPort>.makeStream()
        let (stopped, stopper) = AsyncStream<Void>.makeStream()
        let task = Task {
            defer { listener.finish() }
            try await server.serve(at: address, group: group) { address in
                listener.yield(address)
                for await _ in stopped {}
            }
        }
        var addresses = listening.makeAsyncIterator()
        guard let bound = await addresses.next() else {
            try await task.value
            throw CancellationError()
        }
        return RunningAdmin(address: bound, task: task, stopper: stopper)
    }
}

/// An admin server started by `AdminServer.start` in a test.
struct RunningAdmin: Sendable {
    let address: HostPort
    fileprivate let task: Task<Void, any Error>
    fileprivate let stopper: AsyncStream<Void>.Continuation

    /// Shuts the server down (its streams ended, its connections closed) and waits until it has.
    func stop() async {
        stopper.finish()
        _ = try? await task.value
    }
}

extension NetsimProxy {
    /// A timeline `set` step now, read from YAML by the profile reader (as `EmulatedPhone.set`).
    func set(_ change: String) async throws -> DeviceEvent? {
        try await trigger(ProfileLoader.setChange(yaml: change, source: "the change", networkNames: profile.networks.map(\.name)))
    }
}

/// An echo server behind a proxy, and the admin API over the proxy on a free port: where the
/// admin API's end-to-end tests start.
struct AdminRig {
    let proxy: NetsimProxy
    /// The proxy's forward rule to the echo server.
    let port: Int
    /// The admin API's base URL.
    let base: String

    /// Runs `body` on a rig for `profile`, then stops the admin API, the proxy and the echo
    /// server, whatever `body` throws.
    static func with<Result>(_ profile: Profile, _ body: (AdminRig) async throws -> Result) async throws -> Result {
        let (server, serverPort) = try await Loopback.echoServer()
        let (proxy, port) = try await Loopback.proxy(profile, upstreamPort: serverPort)
        let admin = try await AdminServer.start(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy, group: Loopback.group)
        let outcome: Swift.Result<Result, any Error>
        do {
            outcome = .success(try await body(AdminRig(proxy: proxy, port: port, base: "http://127.0.0.1:\(admin.address.port)")))
        } catch {
            outcome = .failure(error)
        }
        await admin.stop()
        _ = try await proxy.stop()
        try await server.close()
        return try outcome.get()
    }

    /// A connection through the proxy that has made one 10-byte round trip (open, the radio
    /// awake), handed to `body` as its reply iterator and writer; closed after it.
    func withOpenConnection(
        _ body: (
            inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, NIOAsyncChannelOutboundWriter<ByteBuffer>
        ) async throws -> Void
    ) async throws {
        let channel = try await Loopback.connect(port: port)
        try await channel.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            _ = try await Loopback.roundTrip(10, inbound: &iterator, outbound: outbound)
            try await body(&iterator, outbound)
        }
    }
}
