import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import NetsimCore
import NetsimProxy
import ServiceLifecycle

/// A small HTTP API over a running proxy, so a test suite can read the live status and drive
/// conditions from outside, and a page that shows the phone live and drives it:
///
/// - `GET /`: the live dashboard (`DashboardPage`), with `/dashboard.js` and `/dashboard.css`.
/// - `GET /status`: the live `ProxyStatus` as JSON.
/// - `GET /report?format=json|html`: the `RunReport` so far (HTML: as `netsim report show`).
/// - `GET /metrics`: the proxy's metrics in the Prometheus text format (`ProxyMetrics`).
/// - `GET /events`: what the phone does, as server-sent events (`PhoneEvent`).
/// - `POST /outage?duration=10s&mode=stall|blackhole|reset`: an outage now.
/// - `POST /outage/end`: ends the outage (or handover gap) triggered here that is in force, now
///   (`NetsimProxy.endOutage`).
/// - `POST /set` with a YAML or JSON body: a profile timeline's `set` step now, e.g.
///   `{"link": {"delay": "200ms", "down": {"rate": "1Mbps"}}}` or with `"network": "wifi"`,
///   read and checked by the `SetChangeReader` the server was started with (the CLI's and the
///   tests' is the profile reader's `ProfileLoader.setChange`: the proxy reads no YAML).
/// - `POST /set/undo`: takes back the latest `/set` step not yet undone (`NetsimProxy.undoSet`).
/// - `POST /network?to=NETWORK&mode=reset|blackhole|keep&gap=1s`: a handover now, as the
///   timeline's `handover`.
///
/// It is a Hummingbird `Router` over the `AdminRoute` table, with middleware for who may ask
/// (`AdminRouteMiddleware`) and for the headers every answer carries (`AdminHeadersMiddleware`);
/// connections are kept alive between requests.
///
/// Every answer is JSON; a bad request gets a 400 with `{"error": "..."}` saying what is wrong
/// (durations follow the profile rules: see `Quantity`; an unknown query parameter is an error,
/// not ignored), an unknown path a 404, a known path with the wrong method a 405 and a body over
/// 64 KiB a 413. Who may ask is `AdminAccess`'s to say (a 401 or 403 otherwise); every answer
/// carries the dashboard's Content-Security-Policy and is never cached.
///
/// It is built to stay up whatever local clients do: a request has `AdminLimits.requestTimeout`
/// to arrive whole and an idle connection as long before it is closed, at most
/// `AdminLimits.maximumConnections` are open at once (a new one closes the oldest, so that idle
/// connections cannot lock out a real request: `AdminConnections`), a malformed request gets
/// a 400 and is closed, and accepts back off when the process runs out of file descriptors.
/// An event stream, once answered, is out of that cap (it is meant to stay open) and within
/// `AdminLimits.maximumEventStreams` instead.
///
/// The server runs inside `serve(at:_:)`, a child task of its caller's, until the
/// caller's work is done; then it shuts down gracefully, its event streams ended.
public struct AdminServer: Sendable {
    /// Reads a `POST /set` body into the `set` step it asks for, or throws what is wrong with it
    /// (the 400's message): the body, the name to call it in errors (`the /set body`) and the
    /// profile's network names (which its `network` must be one of). The proxy takes the parsed
    /// step and reads no YAML itself; the callers hand it `ProfileLoader.setChange`.
    public typealias SetChangeReader = @Sendable (_ text: String, _ source: String, _ networkNames: [String]) throws -> TimelineEvent.Kind

    let proxy: NetsimProxy
    let readSetChange: SetChangeReader
    let limits: AdminLimits
    let access: AdminAccess
    let logger: Logger
    let connections: AdminConnections

    /// The largest request body taken (a `POST /set` change is a few hundred bytes).
    static let bodyLimit = 64 * 1024

    /// `readSetChange` reads the `/set` bodies.
    public init(
        proxy: NetsimProxy, readSetChange: @escaping SetChangeReader, limits: AdminLimits = AdminLimits(),
        access: AdminAccess = AdminAccess(), logger: Logger = Logger(label: "netsim.admin")
    ) {
        self.proxy = proxy
        self.readSetChange = readSetChange
        self.limits = limits
        self.access = access
        self.logger = logger
        connections = AdminConnections(limits: limits)
    }

    /// Listens at `address` while `body` runs, given the address it listens at (its port
    /// chosen if 0); beyond loopback only with a token (else `AdminNeedsToken`), and never with
    /// a token too short to guard it (`AdminTokenTooWeak`). When `body` returns or throws, the
    /// server stops listening, ends its event streams and closes its connections, and this
    /// returns once they are closed: stopped after the proxy, the streams have carried its last
    /// events.
    ///
    /// It serves on NIO's singleton loops, which live as long as the process, not on a caller's:
    /// Hummingbird's graceful shutdown (`Server.shutdownGracefully`) runs in a task of its own,
    /// which may still await a future of the listening channel's loop, and so schedule on it,
    /// after the connections closed and this returned; a loop its owner shut down by then
    /// refuses it ("Cannot schedule tasks on an EventLoop that has already shut down").
    public func serve<Result>(
        at address: HostPort, _ body: (HostPort) async throws -> Result
    ) async throws -> Result {
        guard address.isLoopback || access.token != nil else { throw AdminNeedsToken(address: address) }
        if let token = access.token, let weakness = AdminAccess.weakness(of: token, source: "the admin token") { throw weakness }
        try await Self.probe(address)
        let (listening, listener) = AsyncStream<any Channel>.makeStream()
        var configuration = ServiceGroupConfiguration(
            services: [application(at: address) { listener.yield($0) }], logger: logger)
        // A client that holds a write up cannot hold the shutdown up for long.
        configuration.maximumGracefulShutdownDuration = .seconds(5)
        let services = ServiceGroup(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { listener.finish() }
                try await services.run()
            }
            var running = listening.makeAsyncIterator()
            guard let channel = await running.next() else {
                // The server ended before it listened: why is its task's error.
                let failure: any Error
                do {
                    try await tasks.waitForAll()
                    failure = ServerEnded()
                } catch {
                    failure = error
                }
                throw ProxyError.cannotListen(address, because: failure)
            }
            let outcome: Swift.Result<Result, any Error>
            do {
                // No front end may carry a client here.
                try await proxy.protect(channel)
                // Out of file descriptors, accepts pause rather than spin the event loop
                // (Hummingbird's listener takes no handler of ours before it binds).
                try await channel.eventLoop.submit { [logger] in
                    try channel.pipeline.syncOperations.addHandler(AcceptBackoff.handler(logger: logger), position: .first)
                }.get()
                outcome = .success(try await body(HostPort(host: address.host, port: channel.localAddress?.port ?? address.port)))
            } catch {
                outcome = .failure(error)
            }
            await services.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try outcome.get()
        }
    }

    /// Binds `address` once and lets it go, so that an address the server cannot listen at
    /// (in use, not this host's, not permitted) is an error before Hummingbird tries it.
    /// Hummingbird's `Application`, when its bind fails, cancels the service group it runs the
    /// server in, and that group's date cache can miss the cancellation and never end (seen
    /// about once in 500 starts on a port in use), so `serve` would wait for ever for a server
    /// that will not listen. What the probe cannot catch is a port taken between it and the
    /// server's bind. Port 0 (the system's choice) is not probed: any free port will do.
    static func probe(_ address: HostPort) async throws {
        guard address.port != 0 else { return }
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: address.host, port: address.port).get()
        } catch {
            throw ProxyError.cannotListen(address, because: error)
        }
        try await channel.close()
    }

    private struct ServerEnded: Error, CustomStringConvertible {
        var description: String { "the server ended before it listened" }
    }

    /// The Hummingbird application that serves the API at `address`; `onListening` is told its
    /// listening channel. Its router alone is what `app.test(.router)` tests.
    public func application(
        at address: HostPort, onListening: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let access = access
        let connections = connections
        let requestTimeout = limits.requestTimeout
        let idleTimeout = Duration.nanoseconds(limits.requestTimeout.nanoseconds)
        return Application(
            router: router(),
            server: HTTPServerBuilder { responder in
                AdminHTTP1Channel(
                    responder: responder,
                    makeGuard: { AdminConnectionGuard(access: access, connections: connections, requestTimeout: requestTimeout) },
                    idleTimeout: idleTimeout)
            },
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: nil, reuseAddress: true),
            onServerRunning: onListening, eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), logger: logger)
    }

    /// The `AdminRoute` table as a router: each route's answer, behind the middleware.
    func router() -> Router<AdminContext> {
        let router = Router(context: AdminContext.self)
        router.add(middleware: AdminHeadersMiddleware())
        router.add(middleware: AdminRouteMiddleware(access: access))
        for route in AdminRoute.allCases {
            router.on(RouterPath(route.rawValue), method: route.method) { request, context in
                do {
                    return try await answer(route, to: request, context: context)
                } catch let error as HTTPError {
                    throw error
                } catch {
                    return AdminAnswer.error(.badRequest, "\(error)")
                }
            }
        }
        return router
    }

    /// The answer to a request `AdminRouteMiddleware` let through to `route`; what is wrong with
    /// the request (its 400's message) otherwise.
    private func answer(_ route: AdminRoute, to request: Request, context: AdminContext) async throws -> Response {
        let query = try AdminQuery(target: request.head.path ?? "/").parameters(allowed: route.parameters)
        let phone = try query["phone"].map { try self.phone($0) }
        switch route {
        case .dashboard: return AdminAnswer.response(.ok, DashboardPage.html, contentType: "text/html; charset=utf-8")
        case .dashboardScript: return AdminAnswer.response(.ok, DashboardPage.script, contentType: "text/javascript; charset=utf-8")
        case .dashboardStyle: return AdminAnswer.response(.ok, DashboardPage.css, contentType: "text/css; charset=utf-8")
        case .report:
            switch query["format"] ?? "json" {
            case "json": return AdminAnswer.response(.ok, try AdminAnswer.json(try await proxy.report(phone: phone ?? 1)))
            case "html":
                return AdminAnswer.response(
                    .ok, try await proxy.report(phone: phone ?? 1).document.html, contentType: "text/html; charset=utf-8")
            case let format: throw AdminError("format must be json or html, not '\(format)'")
            }
        case .metrics:
            return AdminAnswer.response(.ok, try await proxy.metricsText(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        case .status: return AdminAnswer.response(.ok, try AdminAnswer.json(try await proxy.status(phone: phone ?? 1)))
        case .phones: return AdminAnswer.response(.ok, try AdminAnswer.json(try await proxy.phoneSummaries()))
        case .events:
            return AdminEventStream(proxy: proxy, connections: connections, heartbeat: limits.eventStreamHeartbeat)
                .response(phone: phone, channel: context.channel)
        case .outage:
            // Admin defaults: a 10 s stall.
            let duration = try Quantity.duration(query["duration"] ?? "10s")
            let mode = try choice(OutageMode.self, query["mode"] ?? "stall")
            return AdminAnswer.response(.ok, try AdminAnswer.json(try await proxy.outage(seconds: duration, mode: mode, phone: phone ?? 1)))
        case .outageEnd:
            return AdminAnswer.response(.ok, try AdminAnswer.json(try await proxy.endOutage(phone: phone ?? 1)))
        case .set:
            var request = request
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: Self.bodyLimit)
            } catch is NIOTooManyBytesError {
                return AdminAnswer.error(.contentTooLarge, "the change is larger than \(Self.bodyLimit) bytes")
            }
            let change = try readSetChange(String(buffer: body), "the /set body", proxy.profile.networks.map(\.name))
            return AdminAnswer.response(.ok, try AdminAnswer.json(try await proxy.trigger(change, phone: phone ?? 1)))
        case .undoSet:
            return AdminAnswer.response(.ok, try AdminAnswer.json(try await proxy.undoSet(phone: phone ?? 1)))
        case .timelinePause:
            return AdminAnswer.response(.ok, try AdminAnswer.json(try await proxy.pauseTimeline(phone: phone ?? 1)))
        case .timelineResume:
            return AdminAnswer.response(.ok, try AdminAnswer.json(try await proxy.resumeTimeline(phone: phone ?? 1)))
        case .network:
            // The timeline's handover, now. Admin defaults: connections kept, no gap.
            let mode = try choice(HandoverMode.self, query["mode"] ?? "keep")
            let gap = try Quantity.duration(query["gap"] ?? "0s")
            return AdminAnswer.response(
                .ok, try AdminAnswer.json(try await proxy.handover(to: query["to"] ?? "", mode: mode, gapSeconds: gap, phone: phone ?? 1)))
        }
    }

    /// The `phone` parameter: a phone's number, 1 to the run's count.
    private func phone(_ text: String) throws -> Int {
        guard let phone = Int(text), (1...proxy.phoneCount).contains(phone) else {
            throw AdminError("phone must be a number from 1 to \(proxy.phoneCount), not '\(text.escapingControlCharacters)'")
        }
        return phone
    }

    private func choice<Choice: RawRepresentable & CaseIterable>(_ type: Choice.Type, _ text: String) throws -> Choice
    where Choice.RawValue == String {
        guard let value = Choice(rawValue: text) else {
            throw AdminError("mode must be one of \(Choice.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
        }
        return value
    }
}

/// What the admin API allows its clients.
public struct AdminLimits: Sendable {
    /// How long a request has to arrive whole, and an idle connection to send its next one;
    /// then it is closed.
    public var requestTimeout = TimeAmount.seconds(5)
    /// The most connections open at once; a new one beyond it closes the oldest. An event
    /// stream (`GET /events`) leaves this count once its request is answered: it is meant to
    /// stay open, and counts against `maximumEventStreams` instead.
    public var maximumConnections = 64
    /// The most `GET /events` streams at once; one more takes the place of a stream that does
    /// not keep up, else of the oldest (`EventStreamRoster`).
    public var maximumEventStreams = 16
    /// How often an idle event stream gets a comment line, so that a client gone without a
    /// word is found (the write fails) and its subscription ends.
    public var eventStreamHeartbeat = TimeAmount.seconds(15)

    public init() {}
}
