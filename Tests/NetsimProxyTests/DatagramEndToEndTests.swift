import Foundation
import NetsimCore
import NetsimInput
import NetsimModel
import NetsimPcap
import NetsimProxy
import NetsimTestSupport
import Testing

/// UDP through `netsim run`: `--udp-forward` and SOCKS5 UDP ASSOCIATE with real peers on
/// loopback (Tests/NetsimProxyTests/Peers/udp_peers.py): datagrams, the UDP NAT, and HTTP/3
/// with aioquic, which migrates across a handover where TCP is reset. The aioquic tests skip,
/// saying why, where it is not installed (scripts/install-deps.sh installs it).
@Suite(.serialized, .playsLive(.peers, timeLimit: .seconds(180))) struct DatagramEndToEndTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/udp_peers.py").path
    static let hasPython = FrontEndPeers.has("python3")
    static let hasAioquic = FrontEndPeers.python(has: "aioquic") && FrontEndPeers.has("openssl")

    /// An LTE phone with a shaped link each way, as lte-good but without jitter, so that round
    /// trips have a floor to check.
    static let lte = Profile(
        name: "udp-lte", description: "",
        networks: [
            Network(
                name: "lte", radio: .lte(LTERadioParameters()),
                up: LinkParameters(capacity: .rate(bitsPerSecond: 5e6), delay: 0.025),
                down: LinkParameters(capacity: .rate(bitsPerSecond: 12e6), delay: 0.025))
        ],
        start: "lte")

    func start(
        _ profile: Profile, udp upstreams: [Int] = [], tcp tcpUpstream: Int? = nil, socks5: Bool = false, timeScale: Double = 1
    ) async throws -> NetsimProxy {
        var options = ProxyOptions()
        options.timeScale = timeScale
        let any = HostPort(host: "127.0.0.1", port: 0)
        return try await NetsimProxy.start(
            profile: profile, seed: 1,
            forwards: tcpUpstream.map { [ForwardRule(listen: any, upstream: HostPort(host: "127.0.0.1", port: $0))] } ?? [],
            frontEnds: socks5 ? [FrontEndRule(listen: any, frontEnd: .socks5(credentials: nil))] : [],
            datagramForwards: upstreams.map { ForwardRule(listen: any, upstream: HostPort(host: "127.0.0.1", port: $0)) },
            options: options, group: Loopback.group, logger: Loopback.logger)
    }

    /// A proxy with one UDP forward rule to `upstream` on `lte`, and a capture of it in a
    /// scratch file (the caller removes it).
    func capturing(upstream: Int) async throws -> (NetsimProxy, CaptureWriter, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-\(UUID().uuidString).pcap").path
        let writer = try CaptureWriter(path: path, wallClockOrigin: Date().timeIntervalSince1970)
        var options = ProxyOptions()
        options.observer = CaptureLinkObserver(writer: writer)
        let proxy = try await NetsimProxy.start(
            profile: Self.lte, seed: 1, forwards: [],
            datagramForwards: [
                ForwardRule(listen: HostPort(host: "127.0.0.1", port: 0), upstream: HostPort(host: "127.0.0.1", port: upstream))
            ],
            options: options, group: Loopback.group, logger: Loopback.logger)
        return (proxy, writer, path)
    }

    /// Runs a client command of the peers and decodes the JSON line it prints last.
    func client<Result: Decodable>(_ arguments: [String], as type: Result.Type = Result.self) throws -> Result {
        let run = try FrontEndPeers.run(["python3", Self.script] + arguments, timeout: .seconds(150))
        let line = run.output.split(separator: "\n").last.map(String.init) ?? ""
        guard run.status == 0, let decoded = try? JSONDecoder().decode(Result.self, from: Data(line.utf8)) else {
            throw PeerFailed(output: run.output)
        }
        return decoded
    }

    struct PeerFailed: Error, CustomStringConvertible {
        let output: String
        var description: String { "the peer failed: \(output)" }
    }

    struct EchoResult: Decodable {
        var sent: Int
        var received: Int
        var intact: Int
        var serverSawPorts: [Int]
        var medianRoundTrip: Double?
    }

    struct FetchResult: Decodable {
        var bytes: Int
        var intact: Bool
        var seconds: Double
    }

    struct ServerStats: Decodable {
        var connections: Int
        var addresses: [String]
    }

    @Test(.enabled(if: hasPython, "needs python3"))
    func datagramsCrossAForwardRuleIntactThroughTheRadioAndTheLink() async throws {
        let echo = try FrontEndPeers.Server(script: Self.script, ["echo-server"])
        defer { echo.stop() }
        let proxy = try await start(Self.lte, udp: [echo.port])
        let result: EchoResult = try client(["echo-client", "\(proxy.datagramAddresses[0].port)", "40", "1200"])
        let metrics = try await proxy.metricsText()
        let report = try await proxy.stop()
        #expect(metrics.contains(#"netsim_datagrams_total{direction="up",outcome="delivered"} 40"#), "\(metrics)")
        #expect(metrics.contains(#"netsim_datagrams_total{direction="down",outcome="dropped"} 0"#))
        #expect(result.received == 40 && result.intact == 40)
        // One flow, one NAT mapping: the server saw one source port.
        #expect(Set(result.serverSawPorts).count == 1)
        // 25 ms each way, 1,200 bytes at 5 and 12 Mbit/s (1.9 and 0.8 ms), the radio awake.
        #expect((result.medianRoundTrip ?? 0) >= 0.0527)
        let datagrams = try #require(report.datagrams)
        #expect(datagrams.flows == 1 && datagrams.remappings == 0)
        #expect(datagrams.counts.up.delivered == 40 && datagrams.counts.down.delivered == 40)
        #expect(datagrams.counts.up.bytesDelivered == 40 * 1200)
        #expect(report.radio.promotions >= 1)
        #expect(report.radio.bytes.up >= 40 * 1200)
        #expect(report.bytes.up == 0, "TCP bytes counted datagrams")
    }

    /// `--pcap` writes the datagrams as UDP packets on air, and `netsim analyze` of the capture
    /// gives the run's radio figures back, with the flow and its bytes.
    @Test(.enabled(if: hasPython, "needs python3"))
    func aCaptureShowsTheDatagramsAndItsAnalysisTheRunsRadio() async throws {
        let echo = try FrontEndPeers.Server(script: Self.script, ["echo-server"])
        defer { echo.stop() }
        let (proxy, writer, path) = try await capturing(upstream: echo.port)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result: EchoResult = try client(["echo-client", "\(proxy.datagramAddresses[0].port)", "30", "1000"])
        let report = try await proxy.stop()
        try writer.finish()
        #expect(result.received == 30)

        let analysis = try CaptureAnalysis.analyze(
            file: path, options: CaptureAnalysisOptions(radio: RadioStages(.lte(LTERadioParameters()))!))
        let flows = analysis.flows.filter { $0.transport == "udp" }
        #expect(flows.count == 1)
        #expect(flows.first?.packets == 60)
        // The server's echo ends with the 2-byte port it saw.
        #expect(flows.first?.bytesUp == 30 * 1000 && flows.first?.bytesDown == 30 * 1002)
        #expect(flows.first?.remote == "127.0.0.1:\(echo.port)")
        #expect(analysis.radio.promotions == report.radio.promotions)
        let live = report.radio.wakeSeconds
        #expect(abs(analysis.radio.wakeSeconds - live) / live < 0.01, "wake \(analysis.radio.wakeSeconds) vs \(live)")
    }

    struct SendResult: Decodable {
        var sent: Int
    }

    /// A datagram larger than UDP over IPv4 carries (an IPv6 client can send up to 65,527
    /// bytes) is dropped and counted, and the flow goes on.
    @Test(.enabled(if: hasPython, "needs python3"))
    func aDatagramTooLargeForIPv4IsDroppedAndCounted() async throws {
        let echo = try FrontEndPeers.Server(script: Self.script, ["echo-server"])
        defer { echo.stop() }
        let proxy = try await NetsimProxy.start(
            profile: Self.lte, seed: 1, forwards: [],
            datagramForwards: [
                ForwardRule(listen: HostPort(host: "::1", port: 0), upstream: HostPort(host: "127.0.0.1", port: echo.port))
            ],
            group: Loopback.group, logger: Loopback.logger)
        let port = proxy.datagramAddresses[0].port
        let big: SendResult = try client(["send-one", "::1", "\(port)", "65520"])
        let small: SendResult = try client(["send-one", "::1", "\(port)", "1000"])
        #expect(big.sent == 65520 && small.sent == 1000)
        #expect(await eventually { (try? await proxy.report().datagrams?.counts.up.sent) == 2 })
        let report = try await proxy.stop()
        #expect(report.datagrams?.counts.up.dropped[.unsupported] == 1)
        #expect(report.datagrams?.counts.up.delivered == 1)
    }

    /// With several phones, a rule's `@phone-K` gives its flows to phone K: its report counts
    /// them, and the other phone's has none.
    @Test(.enabled(if: hasPython, "needs python3"))
    func aRulesPhoneCarriesItsFlows() async throws {
        let echo = try FrontEndPeers.Server(script: Self.script, ["echo-server"])
        defer { echo.stop() }
        let proxy = try await NetsimProxy.start(
            profile: Self.lte, seed: 1, phones: 2, forwards: [],
            datagramForwards: [
                ForwardRule(listen: HostPort(host: "127.0.0.1", port: 0), upstream: HostPort(host: "127.0.0.1", port: echo.port), phone: 2)
            ],
            group: Loopback.group, logger: Loopback.logger)
        let result: EchoResult = try client(["echo-client", "\(proxy.datagramAddresses[0].port)", "10", "500"])
        let reports = try await proxy.stopEveryPhone()
        #expect(result.received == 10)
        #expect(reports[0].datagrams == nil)
        #expect(reports[1].datagrams?.counts.up.delivered == 10)
        #expect(reports[1].phone == 2 && reports[1].seed == 2)
        #expect(reports[1].radio.promotions >= 1 && reports[0].radio.promotions == 0)
    }

    @Test(.enabled(if: hasPython, "needs python3"))
    func socks5UDPAssociateRelaysByAddressAndNameAndDropsWhatItMust() async throws {
        let echo = try FrontEndPeers.Server(script: Self.script, ["echo-server"])
        defer { echo.stop() }
        let proxy = try await start(Self.lte, socks5: true)
        let socks = proxy.frontEndAddresses[0].port
        let echoed: EchoResult = try client(["echo-client", "\(echo.port)", "20", "1000", "--socks5", "\(socks)"])
        #expect(echoed.received == 20 && echoed.intact == 20)
        let probe: [String: Bool?] = try client(["socks5-probe", "\(socks)", "\(echo.port)"])
        let report = try await proxy.stop()
        #expect(probe["byAddress"] == true)
        #expect(probe["byName"] == true, "a destination by name is looked up through the phone")
        #expect(probe["fragment"] == .some(nil), "a fragment was relayed")
        #expect(probe["ownListener"] == .some(nil), "a datagram reached netsim's own listener")
        #expect(probe["stranger"] == .some(nil), "another client used the relay")
        #expect(probe["afterwards"] == true)
        let datagrams = try #require(report.datagrams)
        #expect(datagrams.counts.up.dropped[.unsupported] == 1)
        #expect(datagrams.flows == 2)
    }

    struct DNSAnswer: Decodable {
        var answer: String
        var seconds: Double
    }

    /// A phone's DNS query and its answer, through the forward rule and through SOCKS5 UDP
    /// ASSOCIATE: the first wakes the idle radio and pays its 0.26 s promotion, the second
    /// finds it awake.
    @Test(.enabled(if: hasPython, "needs python3"), .tags(.liveTiming))
    func aDNSQueryCrossesThePhoneAndTheFirstPaysThePromotion() async throws {
        let resolver = try FrontEndPeers.Server(script: Self.script, ["dns-server"])
        defer { resolver.stop() }
        let proxy = try await start(Self.lte, udp: [resolver.port], socks5: true)
        let forwarded: DNSAnswer = try client(["dns-query", "\(proxy.datagramAddresses[0].port)", "api.example.com"])
        let relayed: DNSAnswer = try client(
            ["dns-query", "\(resolver.port)", "api.example.com", "--socks5", "\(proxy.frontEndAddresses[0].port)"])
        let report = try await proxy.stop()
        #expect(forwarded.answer == "192.0.2.1" && relayed.answer == "192.0.2.1")
        #expect(forwarded.seconds >= 0.26 + 0.05, "no promotion: \(forwarded.seconds) s")
        #expect(relayed.seconds >= 0.05 && relayed.seconds < forwarded.seconds)
        #expect(report.radio.promotions == 1)
        #expect(report.datagrams?.counts.down.delivered == 2)
    }

    /// A 30 s UDP NAT timeout at 20 emulated seconds a second: a client idle for 2.5 s (50 s)
    /// finds its mapping gone, and its next datagram reaches the server from a new port.
    @Test(.enabled(if: hasPython, "needs python3"), .tags(.liveTiming))
    func theNATForgetsAnIdleFlowAndTheServerSeesANewPort() async throws {
        let echo = try FrontEndPeers.Server(script: Self.script, ["echo-server"])
        defer { echo.stop() }
        var profile = Self.lte
        profile.nat = NATPolicy(idleTimeout: nil, udpIdleTimeout: 30)
        let proxy = try await start(profile, udp: [echo.port], timeScale: 20)
        let result: EchoResult = try client(["echo-client", "\(proxy.datagramAddresses[0].port)", "2", "100", "--gap", "2.5"])
        let report = try await proxy.stop()
        #expect(result.received == 2)
        #expect(Set(result.serverSawPorts).count == 2, "one mapping: \(result.serverSawPorts)")
        #expect(report.datagrams?.remappings == 1)
        #expect(report.eventCounts[.natExpiry] == 1)
        #expect(report.events.first { $0.kind == .natExpiry }?.affectedFlows == 1)
    }

    @Test(.enabled(if: hasAioquic, "needs aioquic (pip install aioquic) and openssl"))
    func http3FetchesAMegabyteIntactOnLTEGoodThroughTheForwardRuleAndSOCKS5() async throws {
        let certificate = try FrontEndPeers.Certificate()
        defer { certificate.remove() }
        let stats = FrontEndPeers.scratchFile()
        let server = try FrontEndPeers.Server(
            script: Self.script, ["h3-server", stats, certificate.certificate, certificate.key])
        defer { server.stop() }
        let proxy = try await start(try ProfileCatalog.builtin(named: "lte-good"), udp: [server.port], socks5: true)
        let path = "/payload?size=1000000"
        let forwarded: FetchResult = try client(["h3-client", "\(proxy.datagramAddresses[0].port)", path, certificate.certificate])
        let relayed: FetchResult = try client(
            ["h3-client", "\(server.port)", path, certificate.certificate, "--socks5", "\(proxy.frontEndAddresses[0].port)"])
        let report = try await proxy.stop()
        #expect(forwarded.bytes == 1_000_000 && forwarded.intact)
        #expect(relayed.bytes == 1_000_000 && relayed.intact)
        // 12 Mbit/s down: a megabyte takes at least 0.67 s on the link.
        #expect(forwarded.seconds > 0.66 && relayed.seconds > 0.66)
        #expect((report.datagrams?.counts.down.bytesDelivered ?? 0) > 2_000_000)
    }

    /// `netsim analyze` names a QUIC flow of a run's capture by the SNI of the ClientHello in
    /// its client's Initial packets.
    @Test(.enabled(if: hasAioquic, "needs aioquic (pip install aioquic) and openssl"))
    func theCaptureOfAnHTTP3FetchNamesTheQUICFlowByItsSNI() async throws {
        let certificate = try FrontEndPeers.Certificate()
        defer { certificate.remove() }
        let server = try FrontEndPeers.Server(
            script: Self.script, ["h3-server", FrontEndPeers.scratchFile(), certificate.certificate, certificate.key])
        defer { server.stop() }
        let (proxy, writer, path) = try await capturing(upstream: server.port)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fetched: FetchResult = try client(
            ["h3-client", "\(proxy.datagramAddresses[0].port)", "/payload?size=20000", certificate.certificate])
        _ = try await proxy.stop()
        try writer.finish()
        #expect(fetched.intact)
        let analysis = try CaptureAnalysis.analyze(
            file: path, options: CaptureAnalysisOptions(radio: RadioStages(.lte(LTERadioParameters()))!))
        let quic = analysis.flows.filter { $0.transport == "udp" }
        #expect(quic.count == 1)
        #expect(quic.first?.serverName == "localhost")
        #expect((quic.first?.bytesDown ?? 0) > 20000)
    }

    /// The same 3 MB over HTTP/3 and over TCP through a phone that hands over (reset mode, a
    /// 1 s gap) 2.5 s in: QUIC's connection migrates (the server sees the phone's new port, and
    /// one connection: no new handshake) and the transfer completes; TCP's is reset.
    @Test(.enabled(if: hasAioquic && FrontEndPeers.curlAndOpenSSL, "needs aioquic, curl and openssl"), .tags(.liveTiming))
    func quicMigratesAcrossAHandoverWhereTCPIsReset() async throws {
        let link = LinkParameters(capacity: .rate(bitsPerSecond: 4e6), delay: 0.02)
        let profile = Profile(
            name: "move", description: "",
            networks: [
                Network(name: "cell-a", radio: .lte(LTERadioParameters()), up: link, down: link),
                Network(name: "cell-b", radio: .lte(LTERadioParameters()), up: link, down: link),
            ],
            start: "cell-a", timeline: Timeline(events: [TimelineEvent(at: 2.5, kind: .handover(to: "cell-b", mode: .reset, gap: 1))]))
        let size = 3_000_000
        let certificate = try FrontEndPeers.Certificate()
        defer { certificate.remove() }
        let stats = FrontEndPeers.scratchFile()
        let h3 = try FrontEndPeers.Server(script: Self.script, ["h3-server", stats, certificate.certificate, certificate.key])
        defer { h3.stop() }
        let quicProxy = try await start(profile, udp: [h3.port])
        let quic: FetchResult = try client(
            ["h3-client", "\(quicProxy.datagramAddresses[0].port)", "/payload?size=\(size)", certificate.certificate])
        let quicReport = try await quicProxy.stop()
        let seen = try JSONDecoder().decode(ServerStats.self, from: Data(contentsOf: URL(fileURLWithPath: stats)))

        let http = try FrontEndPeers.Server("http")
        defer { http.stop() }
        let tcpProxy = try await start(profile, tcp: http.port)
        let body = FrontEndPeers.scratchFile()
        let started = ContinuousClock.now
        let curl = try FrontEndPeers.run([
            "curl", "-sS", "-o", body, "--max-time", "30", "http://127.0.0.1:\(tcpProxy.listeningAddresses[0].port)/payload?size=\(size)",
        ])
        let tcpSeconds = (ContinuousClock.now - started) / .seconds(1)
        let tcpBytes = FrontEndPeers.contents(body).count
        let tcpReport = try await tcpProxy.stop()

        #expect(quic.bytes == size && quic.intact, "QUIC: \(quic)")
        #expect(seen.connections == 1, "a new handshake: \(seen)")
        #expect(seen.addresses.count >= 2, "no migration: \(seen)")
        #expect(quicReport.datagrams?.remappings == 1)
        #expect(quicReport.eventCounts[.handover] == 1)
        #expect(curl.status != 0 && tcpBytes < size, "TCP survived the handover: \(curl.output)")
        #expect(tcpReport.connections.reset == 1)
        print("handover at 2.5 s: QUIC \(size) bytes in \(quic.seconds) s; TCP reset after \(tcpSeconds) s with \(tcpBytes) bytes")
    }
}

/// The model engine's QUIC client against a real one. aioquic keeps an idle
/// HTTP/3 connection with PINGs through `netsim run --udp-forward` (every timer `timeScale`
/// times faster than the wall clock), and the model plays the same client on the same profile
/// for the same emulated time: radio energy, promotions, migrations and NAT expiries agree
/// within 15%.
@Suite(.serialized, .playsLive(.quic, timeLimit: .seconds(180))) struct QUICModelAgreementTests {
    struct KeepaliveResult: Decodable {
        var pings: Int
        var answered: Int
        var terminated: Bool
    }

    struct Case: Sendable, CustomStringConvertible {
        var profile: String
        var ping: Double
        var idle: Double
        var seconds: Double
        var timeScale: Double
        var description: String { "\(profile), PING \(Int(ping)) s, idle \(Int(idle)) s" }
    }

    /// lte-handover: two handovers that change the phone's address, each followed by the next
    /// PING from the new one (aioquic does not migrate by itself). nat-timeout: a 30 s UDP NAT
    /// that forgets the phone before each PING at 45 s, which the server follows to its new port.
    ///
    /// lte-handover plays at 5 times the wall clock, not more: on WiFi a PING and its ACK must
    /// cross within the radio's 0.25 s tail, 50 ms of wall time for two Python processes on a
    /// loaded machine; at 10 times, 25 ms, and a late ACK woke the radio a second time.
    @Test(
        .enabled(if: DatagramEndToEndTests.hasAioquic, "needs aioquic (pip install aioquic) and openssl"),
        .tags(.liveTiming),
        arguments: [
            Case(profile: "lte-handover", ping: 15, idle: 30, seconds: 150, timeScale: 5),
            Case(profile: "nat-timeout", ping: 45, idle: 120, seconds: 600, timeScale: 20),
        ])
    func theModelAgreesWithALiveAioquicClient(_ scenario: Case) async throws {
        let profile = try ProfileCatalog.builtin(named: scenario.profile)
        let certificate = try FrontEndPeers.Certificate()
        defer { certificate.remove() }
        let stats = FrontEndPeers.scratchFile()
        let server = try FrontEndPeers.Server(
            script: DatagramEndToEndTests.script,
            ["h3-server", stats, certificate.certificate, certificate.key, "--idle", "\(scenario.idle / scenario.timeScale)"])
        defer { server.stop() }
        let proxy = try await DatagramEndToEndTests().start(profile, udp: [server.port], timeScale: scenario.timeScale)
        let live: KeepaliveResult = try DatagramEndToEndTests().client([
            "quic-keepalive", "\(proxy.datagramAddresses[0].port)", certificate.certificate, "\(scenario.seconds / scenario.timeScale)",
            "\(scenario.ping / scenario.timeScale)", "\(scenario.idle / scenario.timeScale)",
        ])
        let report = try await proxy.stop()

        var settings = QUICSettings()
        settings.keepAlivePeriod = scenario.ping
        settings.maxIdleTimeout = scenario.idle
        settings.serverIdleTimeout = scenario.idle
        settings.onNetworkChange = .wait
        var idle = Workload()
        idle.eventMeanGap = 1e15
        idle.messageInterval = 1e15
        let model = ModelEngine.playDevice(
            profile: profile, client: .quic(settings), workload: idle, duration: report.durationSeconds, seed: 1)

        #expect(!live.terminated && live.answered >= live.pings - 1, "\(scenario): the live connection did not last: \(live)")
        let figures: [(String, live: Double, model: Double)] = [
            ("radio energy, J", report.radio.energyJoules, model.radio.energyJoules),
            ("promotions", Double(report.radio.promotions), Double(model.radio.promotions)),
            ("migrations", Double(report.datagrams?.remappings ?? 0), Double(model.datagrams?.remappings ?? 0)),
            ("NAT expiries", Double(report.eventCounts[.natExpiry, default: 0]), Double(model.eventCounts[.natExpiry, default: 0])),
        ]
        for (name, liveValue, modelValue) in figures {
            let agrees = liveValue == modelValue || abs(liveValue - modelValue) <= 0.15 * max(liveValue, modelValue)
            #expect(agrees, "\(scenario): \(name) live \(liveValue), model \(modelValue)")
        }
        print(
            "QUIC agreement, \(scenario): "
                + figures.map { "\($0.0) live \(String(format: "%.1f", $0.live)) model \(String(format: "%.1f", $0.model))" }
                .joined(separator: "; "))
    }
}
