import Foundation
import NIOCore
import NetsimCore
import NetsimPcap
import NetsimProxy
import NetsimTestSupport
import Testing

/// `netsim run --socks5` and `--http-proxy` with real clients: curl, python grpcio and
/// websockets, TLS verified end to end through the tunnels. Each test skips, saying why, when
/// its tools are missing (scripts/install-deps.sh installs them).
@Suite(.serialized, .playsLive(timeLimit: .seconds(120))) struct FrontEndClientTests {
    static let size = 300_000

    @Test(.enabled(if: FrontEndPeers.curlAndOpenSSL, "needs curl, openssl and python3"))
    func curlThroughSOCKS5ReachesPlainHTTPAndVerifiedTLS() async throws {
        let certificate = try FrontEndPeers.Certificate()
        defer { certificate.remove() }
        let http = try FrontEndPeers.Server("http")
        defer { http.stop() }
        let https = try FrontEndPeers.Server("http", certificate.certificate, certificate.key)
        defer { https.stop() }
        let front = try await FrontEndProxy.start()
        let socks = "127.0.0.1:\(front.socksPort)"

        let targets: [(String, [String])] = [
            ("http://localhost:\(http.port)/payload?size=\(Self.size)", ["--socks5-hostname", socks]),
            (
                "https://localhost:\(https.port)/payload?size=\(Self.size)",
                ["--socks5-hostname", socks, "--cacert", certificate.certificate]
            ),
            // curl resolves the name itself and asks for an IPv4 address.
            ("http://127.0.0.1:\(http.port)/payload?size=\(Self.size)", ["--socks5", socks]),
        ]
        for (url, options) in targets {
            let body = FrontEndPeers.scratchFile()
            let result = try FrontEndPeers.run(["curl", "-sS", "--fail", "-o", body] + options + [url])
            #expect(result.status == 0, "\(url): \(result.output)")
            let intact = FrontEndPeers.contents(body) == FrontEndPeers.pattern(Self.size)
            #expect(intact, "\(url)")
        }
        let report = try await front.proxy.stop()
        #expect(report.connections.opened == 3)
        #expect(report.bytes.down >= 3 * Self.size)
        #expect(report.radio.promotions >= 1)
    }

    @Test(.enabled(if: FrontEndPeers.curlAndOpenSSL, "needs curl, openssl and python3"))
    func curlThroughTheHTTPProxyForwardsPlainRequestsAndTunnelsTLS() async throws {
        let certificate = try FrontEndPeers.Certificate()
        defer { certificate.remove() }
        let http = try FrontEndPeers.Server("http")
        defer { http.stop() }
        let https = try FrontEndPeers.Server("http", certificate.certificate, certificate.key)
        defer { https.stop() }
        let front = try await FrontEndProxy.start()
        let proxy = ["--proxy", "http://127.0.0.1:\(front.httpPort)"]

        // A plain GET in absolute form reaches the origin in origin form.
        let headers = FrontEndPeers.scratchFile()
        let body = FrontEndPeers.scratchFile()
        let get = try FrontEndPeers.run(
            ["curl", "-sS", "--fail", "-D", headers, "-o", body] + proxy + ["http://localhost:\(http.port)/payload?size=\(Self.size)"])
        #expect(get.status == 0, "\(get.output)")
        let intact = FrontEndPeers.contents(body) == FrontEndPeers.pattern(Self.size)
        #expect(intact)
        let head = String(decoding: FrontEndPeers.contents(headers), as: UTF8.self)
        #expect(head.contains("X-Request-Target: /payload?size=\(Self.size)\r\n"), "\(head)")

        // Request bodies, with a length and chunked.
        let upload = FrontEndPeers.scratchFile()
        let payload = Loopback.randomBytes(Self.size, seed: 5)
        try Data(payload).write(to: URL(fileURLWithPath: upload))
        defer { try? FileManager.default.removeItem(atPath: upload) }
        for extra in [[], ["-H", "Transfer-Encoding: chunked"]] {
            let echoed = FrontEndPeers.scratchFile()
            let post = try FrontEndPeers.run(
                ["curl", "-sS", "--fail", "-o", echoed, "--data-binary", "@\(upload)"] + extra + proxy + [
                    "http://localhost:\(http.port)/echo"
                ])
            #expect(post.status == 0, "\(extra): \(post.output)")
            let intact = FrontEndPeers.contents(echoed) == payload
            #expect(intact, "\(extra)")
        }

        // CONNECT: HTTPS verified through the tunnel, and plain HTTP with --proxytunnel.
        for (url, extra) in [
            ("https://localhost:\(https.port)/payload?size=\(Self.size)", ["--cacert", certificate.certificate]),
            ("http://localhost:\(http.port)/payload?size=\(Self.size)", ["--proxytunnel"]),
        ] {
            let tunneled = FrontEndPeers.scratchFile()
            let result = try FrontEndPeers.run(["curl", "-sS", "--fail", "-o", tunneled] + extra + proxy + [url])
            #expect(result.status == 0, "\(url): \(result.output)")
            let intact = FrontEndPeers.contents(tunneled) == FrontEndPeers.pattern(Self.size)
            #expect(intact, "\(url)")
        }
        let report = try await front.proxy.stop()
        #expect(report.connections.opened == 5)
    }

    @Test(.enabled(if: FrontEndPeers.curlAndOpenSSL, "needs curl, openssl and python3"))
    func socks5UsernameAndPasswordAreChecked() async throws {
        let http = try FrontEndPeers.Server("http")
        defer { http.stop() }
        let front = try await FrontEndProxy.start(credentials: SOCKSCredentials(username: "phone", password: "s3cret"))
        let url = "http://localhost:\(http.port)/payload?size=1000"
        for (user, accepted) in [("phone:s3cret", true), ("phone:wrong", false)] {
            let body = FrontEndPeers.scratchFile()
            let result = try FrontEndPeers.run([
                "curl", "-sS", "--fail", "-o", body, "--socks5-hostname", "\(user)@127.0.0.1:\(front.socksPort)", url,
            ])
            #expect((result.status == 0) == accepted, "\(user): \(result.output)")
            let intact = FrontEndPeers.contents(body) == FrontEndPeers.pattern(1000)
            #expect(intact == accepted, "\(user)")
        }
        _ = try await front.proxy.stop()
    }

    @Test(.enabled(if: FrontEndPeers.python(has: "grpc"), "needs python3 with grpcio"))
    func grpcioThroughTheHTTPProxy() async throws {
        let server = try FrontEndPeers.Server("grpc")
        defer { server.stop() }
        let front = try await FrontEndProxy.start()
        let result = try FrontEndPeers.run([
            "python3", FrontEndPeers.script, "grpc-client", "\(front.httpPort)", "\(server.port)", "\(Self.size)",
        ])
        #expect(result.status == 0 && result.output.contains("OK"), "\(result.output)")
        let report = try await front.proxy.stop()
        #expect(report.connections.opened >= 1)
        #expect(report.bytes.up >= 3 * Self.size && report.bytes.down >= 3 * Self.size)
    }

    @Test(.enabled(if: FrontEndPeers.python(has: "websockets", "python_socks"), "needs python3 with websockets and python-socks"))
    func aWebSocketThroughSOCKS5() async throws {
        let server = try FrontEndPeers.Server("websocket")
        defer { server.stop() }
        let front = try await FrontEndProxy.start()
        let result = try FrontEndPeers.run([
            "python3", FrontEndPeers.script, "websocket-client", "\(front.socksPort)", "\(server.port)", "\(Self.size)",
        ])
        #expect(result.status == 0 && result.output.contains("OK"), "\(result.output)")
        let report = try await front.proxy.stop()
        #expect(report.connections.opened == 1)
        #expect(report.bytes.up >= 3 * Self.size && report.bytes.down >= 3 * Self.size)
    }

    @Test(.enabled(if: FrontEndPeers.curlAndOpenSSL, "needs curl, openssl and python3"))
    func theCaptureNamesEachFlowBySNIOrHost() async throws {
        let certificate = try FrontEndPeers.Certificate()
        defer { certificate.remove() }
        let http = try FrontEndPeers.Server("http")
        defer { http.stop() }
        let https = try FrontEndPeers.Server("http", certificate.certificate, certificate.key)
        defer { https.stop() }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-\(UUID().uuidString).pcap").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try CaptureWriter(path: path, wallClockOrigin: Date().timeIntervalSince1970)
        let front = try await FrontEndProxy.start(observer: CaptureLinkObserver(writer: writer))

        let tls = try FrontEndPeers.run([
            "curl", "-sS", "--fail", "-o", "/dev/null", "--cacert", certificate.certificate, "--socks5-hostname",
            "127.0.0.1:\(front.socksPort)",
            "https://localhost:\(https.port)/payload?size=1000",
        ])
        #expect(tls.status == 0, "\(tls.output)")
        let plain = try FrontEndPeers.run([
            "curl", "-sS", "--fail", "-o", "/dev/null", "--proxy", "http://127.0.0.1:\(front.httpPort)",
            "http://localhost:\(http.port)/payload?size=1000",
        ])
        #expect(plain.status == 0, "\(plain.output)")
        _ = try await front.proxy.stop()
        try writer.finish()

        let analysis = try CaptureAnalysis.analyze(
            file: path, options: CaptureAnalysisOptions(radio: RadioStages(.lte(LTERadioParameters()))!))
        let named = analysis.flows.map { ($0.remote, $0.serverName) }
        #expect(analysis.flows.count == 2, "\(named)")
        // The TLS flow by its SNI, the plain one by its Host header (with the port it names).
        #expect(Set(analysis.flows.compactMap(\.serverName)) == ["localhost", "localhost:\(http.port)"], "\(named)")
    }
}
