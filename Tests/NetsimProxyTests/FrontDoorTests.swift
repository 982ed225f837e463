import Foundation
import Logging
import NIOCore
import NetsimAdmin
import NetsimCore
import NetsimTestSupport
import Synchronization
import Testing

@testable import NetsimProxy

/// The front ends are not a way in: no proxy client reaches netsim's own listeners (the admin
/// API above all), a front end listening beyond loopback keeps its clients off loopback and
/// link-local addresses, a name is a host name or nothing, and what a client sends reaches the
/// log escaped. Real clients (curl through both front ends) and a raw SOCKS5 client.
@Suite(.serialized, .playsLive(timeLimit: .seconds(120))) struct FrontDoorTests {
    /// A proxy with both front ends, a forward rule and the admin API, all on loopback.
    struct Door {
        let front: FrontEndProxy
        let adminPort: Int
        let forwardPort: Int

        /// Runs `body` on a door, then stops the admin API and the proxy, whatever `body`
        /// throws; returns the proxy's report.
        static func with(
            access: AccessPolicy = AccessPolicy(), logger: Logger = Loopback.logger, upstreamPort: Int, _ body: (Door) async throws -> Void
        ) async throws -> RunReport {
            let rule = ForwardRule(listen: HostPort(host: "127.0.0.1", port: 0), upstream: HostPort(host: "127.0.0.1", port: upstreamPort))
            let front = try await FrontEndProxy.start(access: access, forwards: [rule], logger: logger)
            let outcome: Result<Void, any Error>
            do {
                outcome = .success(
                    try await AdminServer.with(proxy: front.proxy) { admin in
                        try await body(Door(front: front, adminPort: admin.port, forwardPort: front.proxy.listeningAddresses[0].port))
                    })
            } catch {
                outcome = .failure(error)
            }
            let report = try await front.proxy.stop()
            try outcome.get()
            return report
        }
    }

    @Test(.enabled(if: FrontEndPeers.curlAndOpenSSL, "needs curl, openssl and python3"))
    func noProxyClientReachesTheAdminAPIOrAnotherOfNetsimsListeners() async throws {
        let http = try FrontEndPeers.Server("http")
        defer { http.stop() }
        let report = try await Door.with(upstreamPort: http.port) { door in
            let httpProxy = "http://127.0.0.1:\(door.front.httpPort)"
            let socks = "127.0.0.1:\(door.front.socksPort)"
            let outage = "/outage?duration=30s&mode=reset"

            // Each way a proxy client could ask for the admin API: an absolute-URI POST and a
            // CONNECT tunnel through the HTTP proxy, SOCKS5 CONNECT by address and by name, and
            // the admin port at another address of this host.
            let attempts: [(String, [String])] = [
                ("absolute-URI POST", ["-x", httpProxy, "-X", "POST", "http://127.0.0.1:\(door.adminPort)\(outage)"]),
                ("CONNECT", ["-p", "-x", httpProxy, "-X", "POST", "http://127.0.0.1:\(door.adminPort)\(outage)"]),
                ("SOCKS5 by address", ["--socks5", socks, "-X", "POST", "http://127.0.0.1:\(door.adminPort)\(outage)"]),
                ("SOCKS5 by name", ["--socks5-hostname", socks, "-X", "POST", "http://localhost:\(door.adminPort)\(outage)"]),
                ("SOCKS5 to 127.0.0.2", ["--socks5", socks, "-X", "POST", "http://127.0.0.2:\(door.adminPort)\(outage)"]),
                ("SOCKS5 to 0.0.0.0", ["--socks5", socks, "-X", "POST", "http://0.0.0.0:\(door.adminPort)\(outage)"]),
                ("the forward rule", ["-x", httpProxy, "http://127.0.0.1:\(door.forwardPort)/payload?size=10"]),
                ("the SOCKS5 front end", ["-x", httpProxy, "http://127.0.0.1:\(door.front.socksPort)/"]),
                ("the HTTP proxy itself", ["--socks5", socks, "http://127.0.0.1:\(door.front.httpPort)/"]),
            ]
            for (attempt, options) in attempts {
                let result = try FrontEndPeers.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10"] + options)
                // The HTTP proxy answers 403 itself; over CONNECT and SOCKS5, curl fails the tunnel.
                let refusedByHTTPProxy = result.output.hasSuffix("403") || result.output.contains("403")
                #expect(result.status != 0 || refusedByHTTPProxy, "\(attempt) got through: \(result.output)")
                #expect(!result.output.hasSuffix("200"), "\(attempt): \(result.output)")
            }
            // Nothing reached the admin API: no outage was triggered.
            let status = try await door.front.proxy.status()
            #expect(status.lastEvent == nil, "the admin API was driven: \(String(describing: status.lastEvent))")

            // The same clients still reach an ordinary destination through both front ends.
            for options in [["-x", httpProxy], ["--socks5-hostname", socks], ["-p", "-x", httpProxy]] {
                let result = try FrontEndPeers.run(
                    ["curl", "-sS", "--fail", "-o", "/dev/null", "--max-time", "10"] + options + [
                        "http://localhost:\(http.port)/payload?size=100"
                    ])
                #expect(result.status == 0, "\(options): \(result.output)")
            }
        }
        #expect(report.connections.opened == 3, "only the three ordinary requests became connections")
        #expect(report.events.isEmpty)
    }

    @Test func aFrontEndBeyondLoopbackRefusesLoopbackAndLinkLocalDestinationsUnlessAllowToNamesThem() async throws {
        let (echo, echoPort) = try await Loopback.echoServer()
        // Listening on every address turns the rule on by itself; a loopback client is still served.
        let exposed = try await FrontEndProxy.start(host: "0.0.0.0")
        for address: [UInt8] in [[127, 0, 0, 1], [127, 9, 9, 9], [0, 0, 0, 0], [169, 254, 169, 254]] {
            let reply = try await RawClient.exchange(
                port: exposed.socksPort, [RawClient.greeting, RawClient.connect(toAddress: address, port: echoPort)])
            #expect(Array(reply.prefix(4)) == [5, 0, 5, SOCKSReply.notAllowed], "\(address)")
        }
        // A name resolving to loopback is judged by its address.
        let byName = try await RawClient.exchange(
            port: exposed.socksPort, [RawClient.greeting, RawClient.connect(to: "localhost", port: echoPort)])
        #expect(Array(byName.prefix(4)) == [5, 0, 5, SOCKSReply.notAllowed])
        let tunnel = try await RawClient.exchange(
            port: exposed.httpPort, [(Array("CONNECT 127.0.0.1:\(echoPort) HTTP/1.1\r\n\r\n".utf8), nil)])
        #expect(RawClient.statusLine(tunnel) == "HTTP/1.1 403 Forbidden")
        _ = try await exposed.proxy.stop()

        // --allow-to naming the address (or the exact name) opens it; a wildcard does not.
        let opened = try await FrontEndProxy.start(
            access: AccessPolicy(allowTo: [DestinationPattern("127.0.0.1:\(echoPort)")!, DestinationPattern("*.localhost")!]),
            host: "0.0.0.0")
        let payload = Loopback.randomBytes(1000, seed: 3)
        let allowed = try await RawClient.exchange(
            port: opened.socksPort,
            [RawClient.greeting, RawClient.connect(toAddress: [127, 0, 0, 1], port: echoPort), (payload, payload.count)])
        #expect(Array(allowed.prefix(4)) == [5, 0, 5, 0])
        #expect(Array(allowed.dropFirst(12)) == payload)
        let report = try await opened.proxy.stop()
        #expect(report.connections.opened == 1)
        try await echo.close()
    }

    @Test func aNameThatIsNotAHostNameIsRefusedAndReachesTheLogEscaped() async throws {
        let (echo, echoPort) = try await Loopback.echoServer()
        let log = RecordedLog()
        let front = try await FrontEndProxy.start(access: AccessPolicy(allowTo: [DestinationPattern("*.example.com")!]), logger: log.logger)
        // `localhost\0.example.com` matched `*.example.com`, then resolved as localhost.
        let hostile = ["localhost\u{0}.example.com", "evil\n2026-01-01 fake log line\u{1B}[31m.example.com", "a b.example.com"]
        for name in hostile {
            let reply = try await RawClient.exchange(
                port: front.socksPort, [RawClient.greeting, RawClient.connect(to: name, port: echoPort)])
            #expect(Array(reply.prefix(4)) == [5, 0, 5, SOCKSReply.hostUnreachable], "\(name.escapingControlCharacters)")
        }
        // The HTTP proxy: HTTP's parser refuses control and non-ASCII bytes in a target (a
        // 400 that quotes nothing); a target it passes whose host is not a host name is
        // refused by netsim, quoted.
        for target in ["GET http://a.example/\u{202E}txt.exe HTTP/1.1\r\n\r\n", "GET http://a_b.example/x HTTP/1.1\r\n\r\n"] {
            let reply = try await RawClient.exchange(port: front.httpPort, [(Array(target.utf8), nil)])
            #expect(RawClient.statusLine(reply) == "HTTP/1.1 400 Bad Request", "\(target.escapingControlCharacters)")
        }
        let report = try await front.proxy.stop()
        #expect(report.connections.opened == 0)

        let lines = log.lines
        for line in lines {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "a raw control character in \(line)")
        }
        #expect(lines.contains { $0.contains("localhost\\u{0}.example.com") && $0.contains("not a host name") }, "\(lines)")
        #expect(lines.contains { $0.contains("evil\\u{A}2026-01-01 fake log line\\u{1B}[31m.example.com") }, "\(lines)")
        #expect(lines.contains { $0.contains("400") && $0.contains("'http://a_b.example/x'") }, "\(lines)")
        #expect(!lines.contains { $0.unicodeScalars.contains("\u{202E}") })
        try await echo.close()
    }

    @Test(.enabled(if: FrontEndPeers.curlAndOpenSSL, "needs curl, openssl and python3"))
    func theOriginGetsTheTargetsHostAndNoHopByHopHeaders() async throws {
        let http = try FrontEndPeers.Server("http")
        defer { http.stop() }
        let front = try await FrontEndProxy.start()
        let authority = "localhost:\(http.port)"
        // curl with its Host replaced, and a raw client with two of them.
        let headers = FrontEndPeers.scratchFile()
        let curl = try FrontEndPeers.run([
            "curl", "-sS", "--fail", "-o", "/dev/null", "-D", headers, "-x", "http://127.0.0.1:\(front.httpPort)", "-H",
            "Host: admin.internal", "-H", "TE: trailers", "-H", "Upgrade: h2c", "-H", "Connection: X-Hop", "-H", "X-Hop: 1",
            "http://\(authority)/payload?size=10",
        ])
        #expect(curl.status == 0, "\(curl.output)")
        let curlHeaders = String(decoding: FrontEndPeers.contents(headers), as: UTF8.self).lowercased()
        #expect(curlHeaders.contains("x-received-host: \(authority)\r\n"), "\(curlHeaders)")
        #expect(curlHeaders.contains("x-received-hop-by-hop: none\r\n"), "\(curlHeaders)")

        let request = "GET http://\(authority)/payload?size=10 HTTP/1.1\r\nHost: a.internal\r\nHost: b.internal\r\nTE: trailers\r\n\r\n"
        let raw = String(decoding: try await RawClient.exchange(port: front.httpPort, [(Array(request.utf8), nil)]), as: UTF8.self)
        #expect(raw.hasPrefix("HTTP/1.1 200"), "\(raw)")
        #expect(raw.lowercased().contains("x-received-host: \(authority)\r\n"), "\(raw)")
        #expect(raw.lowercased().contains("x-received-hop-by-hop: none\r\n"), "\(raw)")
        _ = try await front.proxy.stop()
    }

    @Test func ownListenersAreRefusedAtEveryAddressOfThisHost() {
        var policy = AccessPolicy()
        policy.ownListeners = [OwnListener(address: IPAddressBytes("0.0.0.0")!, port: 8474)]
        policy.hostAddresses = [IPAddressBytes("192.0.2.7")!]
        for address in ["127.0.0.1", "127.1.2.3", "0.0.0.0", "::1", "::ffff:127.0.0.1", "192.0.2.7"] {
            #expect(policy.decision(name: nil, address: IPAddressBytes(address), port: 8474) == .refused(.ownListener), "\(address)")
        }
        // Another port, or another host at that port, is not netsim.
        #expect(policy.decision(name: nil, address: IPAddressBytes("127.0.0.1"), port: 8475) == .allowed)
        #expect(policy.decision(name: nil, address: IPAddressBytes("192.0.2.8"), port: 8474) == .allowed)
        // No --allow-to pattern opens them.
        policy.allowTo = [DestinationPattern("0.0.0.0/0")!]
        #expect(policy.decision(name: nil, address: IPAddressBytes("127.0.0.1"), port: 8474) == .refused(.ownListener))
    }

    @Test func localDestinationsNeedAnAddressOrAnExactName() {
        let local = ["127.0.0.1", "::1", "169.254.169.254", "fe80::1", "0.0.0.0", "::", "::ffff:169.254.1.1"]
        let exposed = AccessPolicy(refusesLocalDestinations: true)
        for address in local {
            #expect(exposed.decision(name: nil, address: IPAddressBytes(address), port: 80) == .refused(.localDestination), "\(address)")
            #expect(AccessPolicy().decision(name: nil, address: IPAddressBytes(address), port: 80) == .allowed, "\(address)")
        }
        #expect(exposed.decision(name: nil, address: IPAddressBytes("93.184.216.34"), port: 80) == .allowed)
        #expect(exposed.decision(name: nil, address: IPAddressBytes("fe00::1"), port: 80) == .allowed)
        let named = AccessPolicy(
            allowTo: [
                DestinationPattern("127.0.0.1:8080")!, DestinationPattern("localhost:9000")!, DestinationPattern("*.example.com")!,
            ],
            refusesLocalDestinations: true)
        #expect(named.decision(name: nil, address: IPAddressBytes("127.0.0.1"), port: 8080) == .allowed)
        #expect(named.decision(name: nil, address: IPAddressBytes("127.0.0.1"), port: 8081) == .refused(.localDestination))
        #expect(named.decision(name: "LocalHost.", address: IPAddressBytes("127.0.0.1"), port: 9000) == .allowed)
        // A name under a wildcard that resolves to loopback (DNS rebinding) stays refused.
        #expect(named.decision(name: "rebind.example.com", address: IPAddressBytes("127.0.0.1"), port: 80) == .refused(.localDestination))
        #expect(named.decision(name: "api.example.com", address: IPAddressBytes("93.184.216.34"), port: 80) == .allowed)
    }

    @Test func hostNamesAreRFC1123() {
        for good in ["localhost", "a", "api.example.com", "API.Example.COM.", "x-1.y2", String(repeating: "a", count: 63) + ".com"] {
            #expect(HostName.isValid(good), "\(good)")
        }
        let tooLong = (0..<64).map { _ in "abc" }.joined(separator: ".")
        for bad in [
            "", ".", "a..b", ".a", "localhost\u{0}.example.com", "a b", "a_b.com", "-a.com", "a-.com", "bücher.de", "a\n.com",
            String(repeating: "a", count: 64) + ".com", tooLong, "a/b", "a:b", "[::1]",
        ] {
            #expect(!HostName.isValid(bad), "\(bad.escapingControlCharacters)")
        }
    }

    @Test func controlCharactersAreEscapedVisiblyAndUnambiguously() {
        #expect("plain name.example:443".escapingControlCharacters == "plain name.example:443")
        #expect("a\nb\r\u{0}\u{1B}[31m\u{7F}".escapingControlCharacters == "a\\u{A}b\\u{D}\\u{0}\\u{1B}[31m\\u{7F}")
        // Bidirectional overrides and zero-width characters, C1 controls, line separators.
        #expect("x\u{202E}y\u{200B}\u{85}\u{2028}".escapingControlCharacters == "x\\u{202E}y\\u{200B}\\u{85}\\u{2028}")
        // A backslash the peer sent cannot pass for an escape.
        #expect("\\u{A}".escapingControlCharacters == "\\\\u{A}")
        #expect("Grüße, 日本".escapingControlCharacters == "Grüße, 日本")
    }
}

/// Every log line a test's logger writes, as text.
final class RecordedLog: Sendable {
    private let recorded = Mutex<[String]>([])

    var lines: [String] { recorded.withLock { $0 } }

    var logger: Logger {
        Logger(label: "netsim.test.recorded") { _ in Handler(recorded: self) }
    }

    fileprivate func append(_ line: String) { recorded.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let recorded: RecordedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorded.append("\(event.level) \(event.message)")
        }
    }
}
