import Foundation
import NIOCore
import NetsimAdmin
import NetsimCore
import NetsimProxy
import NetsimTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
import NetsimReport
#endif

/// The live dashboard at `/`, what it reads (`/status`'s connections and radio totals, the
/// `radio-woken` events), and who may use the admin API (`AdminAccess`).
@Suite(.serialized, .playsLive(.commands, timeLimit: .seconds(180))) struct AdminDashboardTests {
    static let lte = Profile(
        name: "dashboard", description: "",
        networks: [Network(name: "lte", radio: .lte(LTERadioParameters()), up: LinkParameters(), down: LinkParameters())],
        start: "lte")

    /// A token long enough to guard the API (`AdminAccess.minimumTokenLength`).
    static let token = "s3cret-s3cret-s3cret"

    /// Whether the browser checks can run: Selenium, Chromium and its driver.
    static var hasBrowser: Bool {
        FrontEndPeers.python(has: "selenium") && FileManager.default.fileExists(atPath: "/usr/bin/chromium")
            && FileManager.default.fileExists(atPath: "/usr/bin/chromedriver")
    }

    /// One whole request on its own connection, as written; the whole answer.
    func raw(_ request: String, port: Int) async throws -> String {
        try await AdminWire.exchange(request, port: port).first ?? "no answer"
    }

    func get(_ url: String, token: String? = nil) async throws -> (status: Int, headers: HTTPURLResponse, body: String) {
        var request = URLRequest(url: URL(string: url)!)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        return (http.statusCode, http, String(decoding: data, as: UTF8.self))
    }

    @Test func thePageItsScriptAndItsStyleComeWithAPolicyThatAllowsOnlyThemselves() async throws {
        let (proxy, _) = try await Loopback.proxy(Self.lte, upstreamPort: 1)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let base = "http://127.0.0.1:\(admin.port)"

            let page = try await get(base + "/")
            #expect(page.status == 200)
            #expect((page.headers.value(forHTTPHeaderField: "Content-Type"))?.hasPrefix("text/html") == true)
            let policy = page.headers.value(forHTTPHeaderField: "Content-Security-Policy") ?? ""
            #expect(
                policy.contains("default-src 'none'") && policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"))
            #expect(page.body.contains(#"<script src="/dashboard.js" defer></script>"#))
            #expect(!page.body.contains("http://") && !page.body.contains("https://"), "nothing fetched from elsewhere")

            let script = try await get(base + "/dashboard.js")
            #expect((script.headers.value(forHTTPHeaderField: "Content-Type"))?.hasPrefix("text/javascript") == true)
            // The reports' colours, one table for all.
            #expect(script.body.contains(#""IDLE": "\#(RadioState.idle.chartColor)""#))
            #expect(script.body.contains(#""PROMOTION": "\#(RadioState.promotion.chartColor)""#))
            #expect(!script.body.contains("innerHTML"), "peer text reaches the page only as text")
            #expect(try await get(base + "/dashboard.css").status == 200)
            #expect(try await get(base + "/?refresh=1").status == 400)
            #expect(
                try await raw("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", port: admin.port).hasPrefix(
                    "HTTP/1.1 405"))

            let html = try await get(base + "/report?format=html")
            #expect(html.status == 200 && html.body.contains("<html") && html.body.contains("dashboard"))
            let bad = try await get(base + "/report?format=xml")
            #expect(bad.status == 400 && bad.body.contains("json or html"))
        }
        _ = try await proxy.stop()
    }

    /// A page the user has open on another site can send requests to loopback: it may not use
    /// the API, by a rebound name or by a cross-site POST.
    @Test func onLoopbackAnotherSitesPageIsRefused() async throws {
        let (proxy, _) = try await Loopback.proxy(Self.lte, upstreamPort: 1)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let port = admin.port

            let rebound = try await raw("GET /status HTTP/1.1\r\nHost: attacker.example:\(port)\r\n\r\n", port: port)
            #expect(rebound.hasPrefix("HTTP/1.1 403") && rebound.contains("loopback host name"), "\(rebound)")
            for host in ["localhost:\(port)", "127.0.0.1:\(port)", "[::1]:\(port)", "localhost"] {
                let answer = try await raw("GET /status HTTP/1.1\r\nHost: \(host)\r\n\r\n", port: port)
                #expect(answer.hasPrefix("HTTP/1.1 200"), "\(host): \(answer.prefix(80))")
            }
            let crossSite = try await raw(
                "POST /outage?duration=1s HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: https://attacker.example\r\nContent-Length: 0\r\n\r\n",
                port: port)
            #expect(crossSite.hasPrefix("HTTP/1.1 403") && crossSite.contains("another site"), "\(crossSite)")
            let ownPage = try await raw(
                "POST /outage?duration=1s HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\nContent-Length: 0\r\n\r\n",
                port: port)
            #expect(ownPage.hasPrefix("HTTP/1.1 200"), "\(ownPage)")
            #expect(try await proxy.report().events.count { $0.kind == .outage } == 1, "only the page's own POST reached the phone")
        }
        _ = try await proxy.stop()
    }

    /// The `Bearer` scheme in any case (RFC 7235); a request with two readings (two `Host`
    /// headers, a target that names a host) is a 400, never judged by one and served by the
    /// other; a token too short to resist guessing is refused at the start.
    @Test func theSchemeIsMatchedInAnyCaseAndAmbiguousRequestsAreRefused() async throws {
        let (proxy, _) = try await Loopback.proxy(Self.lte, upstreamPort: 1)
        await #expect(throws: AdminTokenTooWeak.self) {
            try await AdminServer.with(at: HostPort(host: "0.0.0.0", port: 0), proxy: proxy, access: AdminAccess(token: "")) { _ in }
        }
        try await AdminServer.with(
            at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy, access: AdminAccess(token: Self.token)
        ) { guarded in
            let lowercase = try await raw(
                "GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: bearer \(Self.token)\r\n\r\n", port: guarded.port)
            #expect(lowercase.hasPrefix("HTTP/1.1 200"), "\(lowercase.prefix(80))")
        }

        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let port = admin.port
            let twoHosts = try await raw("GET /status HTTP/1.1\r\nHost: localhost\r\nHost: attacker.example\r\n\r\n", port: port)
            #expect(twoHosts.hasPrefix("HTTP/1.1 400") && twoHosts.contains("2 Host headers"), "\(twoHosts.prefix(200))")
            let twoOrigins = try await raw(
                "POST /outage HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost\r\nOrigin: https://attacker.example\r\nContent-Length: 0\r\n\r\n",
                port: port)
            #expect(twoOrigins.hasPrefix("HTTP/1.1 400"), "\(twoOrigins.prefix(80))")
            let absolute = try await raw("GET http://attacker.example/status HTTP/1.1\r\nHost: localhost\r\n\r\n", port: port)
            #expect(absolute.hasPrefix("HTTP/1.1 400") && absolute.contains("must be a path"), "\(absolute.prefix(200))")
            #expect(try await proxy.report().events.count { $0.kind == .outage } == 0)
        }
        _ = try await proxy.stop()
    }

    @Test func beyondLoopbackTheAdminAPINeedsAToken() async throws {
        let (proxy, _) = try await Loopback.proxy(Self.lte, upstreamPort: 1)
        await #expect(throws: AdminNeedsToken.self) {
            try await AdminServer.with(at: HostPort(host: "0.0.0.0", port: 0), proxy: proxy) { _ in }
        }
        try await AdminServer.with(
            at: HostPort(host: "0.0.0.0", port: 0), proxy: proxy, access: AdminAccess(token: Self.token)
        ) { (admin: HostPort) async throws in
            #expect(try await get("http://127.0.0.1:\(admin.port)/status").status == 401)
        }
        _ = try await proxy.stop()
    }

    /// `/status` lists each open connection under the name its first bytes give, with its
    /// bytes; the event stream says which connection's SYN woke the radio.
    @Test func statusListsConnectionsAndTheStreamNamesWhatWokeTheRadio() async throws {
        let (server, serverPort) = try await Loopback.echoServer()
        let (proxy, port) = try await Loopback.proxy(Self.lte, upstreamPort: serverPort)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let request = Array("GET / HTTP/1.1\r\nHost: api.status.test\r\n\r\n".utf8)
            let opened = Mutex<NIOAsyncChannel<ByteBuffer, ByteBuffer>?>(nil)
            let (_, events) = try await AdminObservabilityTests.followEvents(port: admin.port) {
                let channel = try await Loopback.connect(port: port)
                opened.withLock { $0 = channel }
                try await channel.channel.writeAndFlush(ByteBuffer(bytes: request))
            } until: {
                $0.name == "radio-woken"
            }
            let channel = try #require(opened.withLock { $0 })
            let wake = try #require(events.first { $0.name == "radio-woken" })
            #expect(wake.data["cause"] as? String == "handshake" && wake.data["connection"] as? Int == 1, "\(wake.data)")
            #expect(wake.data["destination"] as? String == "127.0.0.1:\(serverPort)", "the SYN goes before the Host header: \(wake.data)")

            try await channel.executeThenClose { inbound, _ in
                var received = 0
                for try await chunk in inbound {
                    received += chunk.readableBytes
                    if received >= request.count { break }
                }
                let status = try JSONDecoder().decode(
                    ProxyStatus.self, from: Data(try await get("http://127.0.0.1:\(admin.port)/status").body.utf8))
                #expect(status.openConnections == 1)
                let listed = try #require(status.connections.first)
                #expect(listed.destination == "api.status.test:\(serverPort)")
                #expect(listed.bytes.up == request.count && listed.bytes.down == request.count)
                #expect(status.promotions == 1 && status.wakeSeconds > 0 && status.energyJoules > 0)
                #expect(status.networks == ["lte"])
                // A page opened after the wake-up still names it, by the name the connection's
                // first bytes settled on after its SYN woke the radio.
                #expect(
                    status.recentWakeUps == [
                        WakeUp(
                            at: wake.data["at"] as? Double ?? -1, cause: .handshake, connection: 1,
                            destination: "api.status.test:\(serverPort)",
                            direction: .up)
                    ])
            }
        }
        _ = try await proxy.stop()
        try await server.close()
    }

    /// The page in Chromium during a run with traffic: the strip advances, the wake-up is
    /// named, the connection listed, and an outage pressed on the page reaches the proxy and
    /// ends early when "End it now" is pressed (Peers/dashboard_check.py says each check it
    /// makes).
    @Test(.enabled(if: Self.hasBrowser, "needs python3 with selenium, and Debian's chromium and chromium-driver"))
    func theDashboardInARealBrowser() async throws {
        let (server, serverPort) = try await Loopback.echoServer()
        let (proxy, port) = try await Loopback.proxy(Self.lte, upstreamPort: serverPort)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/dashboard_check.py").path
            let result = try FrontEndPeers.run(
                ["python3", script, "http://127.0.0.1:\(admin.port)/", "\(port)"], timeout: .seconds(120))
            #expect(result.status == 0, "\(result.output)")
            let outage = try await proxy.report().events.first { $0.kind == .outage }
            #expect(outage?.mode == .stall && outage?.affectedConnections == 1)
            // Ended from the page within the script's waits, not after the 10 minutes asked for.
            #expect(outage?.durationSeconds.map { $0 > 0 && $0 < 60 } == true, "\(String(describing: outage?.durationSeconds))")
        }
        _ = try await proxy.stop()
        try await server.close()
    }

    /// A run of two phones in Chromium: one strip per phone, traffic through phone 2 shows on
    /// its strip only, and an outage and a timeline pause pressed with phone 2 picked reach
    /// phone 2 alone
    /// (Peers/dashboard_phones_check.py says each check it makes). The screenshot goes to the
    /// temporary directory.
    @Test(.enabled(if: Self.hasBrowser, "needs python3 with selenium, and Debian's chromium and chromium-driver"))
    func twoPhonesInARealBrowser() async throws {
        let (server, serverPort) = try await Loopback.echoServer()
        let upstream = HostPort(host: "127.0.0.1", port: serverPort)
        // A timeline to pause: a set step ten minutes in.
        var profile = Self.lte
        profile.timeline = Timeline(events: [TimelineEvent(at: 600, kind: .set(network: nil, up: .init(delay: 0.1), down: .init()))])
        let proxy = try await NetsimProxy.start(
            profile: profile, seed: 1, phones: 2,
            forwards: [1, 2].map { ForwardRule(listen: HostPort(host: "127.0.0.1", port: 0), upstream: upstream, phone: $0) },
            group: Loopback.group, logger: Loopback.logger)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "Peers/dashboard_phones_check.py"
            )
            .path
            let screenshot = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-dashboard-two-phones.png").path
            let ports = proxy.listeningAddresses.map { "\($0.port)" }
            let result = try FrontEndPeers.run(
                ["python3", script, "http://127.0.0.1:\(admin.port)/"] + ports + [screenshot], timeout: .seconds(120))
            #expect(result.status == 0, "\(result.output)")
        }
        let reports = try await proxy.stopEveryPhone()
        #expect(reports[0].events.allSatisfy { $0.kind != .outage }, "phone 1 had no outage")
        #expect(reports[1].events.first { $0.kind == .outage }?.affectedConnections == 1, "phone 2's connection saw it")
        #expect(reports.map(\.connections.opened) == [1, 1])
        #expect(
            reports[0].timelinePauses == nil && reports[1].timelinePauses?.first?.resumedAt != nil, "phone 2's timeline paused and resumed")
        try await server.close()
    }
}
