import Foundation
import NetsimCore
import NetsimModel

/// The recommendation in words and as configuration to paste.
enum KeepaliveRecommendationText {
    static func seconds(_ value: Double) -> String { KeepaliveRendering.seconds(value) }

    /// One paragraph: what is recommended, why it beats its neighbours, what it costs.
    static func paragraph(_ results: KeepaliveResults) -> String {
        let sweep = results.sweep
        guard let pick = results.recommended else {
            let reasons = Set(results.summaries.flatMap(\.disqualified)).sorted().prefix(4).joined(separator: "; ")
            return "No configuration is viable: every one drew a GOAWAY, lost connections to NAT expiry or missed "
                + "detection within \(seconds(sweep.detectWithin)) at p95 (\(reasons)). Loosen --detect-within, drop the "
                + "shortest NAT timeouts you do not face, or use a server policy that accepts the pings you need."
        }
        let metrics = pick.metrics
        let viable = results.summaries.filter(\.viable).count
        let text =
            "Recommended: \(pick.keepalive.label). Of \(results.summaries.count) configurations, \(viable) "
            + "kept every connection through NAT timeouts down to "
            + "\(KeepaliveRendering.natTimeout(sweep.natTimeouts.compactMap { $0 }.min())), drew no GOAWAY from the "
            + "\(sweep.serverPolicy.name) server and noticed a dead connection within \(seconds(sweep.detectWithin)) at p95. "
            + "Of those, \(results.pareto.count) are on the front of radio energy against detection time, and this one is its "
            + "knee: \(String(format: "%.0f", metrics.energyJoulesPerHour)) J an hour "
            + "(\(String(format: "%.0f", metrics.promotionsPerHour)) radio wake-ups, "
            + "\(String(format: "%.0f", metrics.wakeSecondsPerHour)) s awake), p95 detection "
            + "\(seconds(metrics.detectionSeconds.p95)) (median \(seconds(metrics.detectionSeconds.p50)))."
        var neighbours: [String] = []
        if let cheaper = results.pareto.first, cheaper.keepalive != pick.keepalive {
            neighbours.append(
                "the cheapest viable point (\(cheaper.keepalive.label), \(String(format: "%.0f", cheaper.metrics.energyJoulesPerHour)) J/h) "
                    + "takes \(seconds(cheaper.metrics.detectionSeconds.p95)) to notice at p95")
        }
        if let faster = results.pareto.last, faster.keepalive != pick.keepalive {
            neighbours.append(
                "the fastest (\(faster.keepalive.label)) notices in \(seconds(faster.metrics.detectionSeconds.p95)) but costs "
                    + "\(String(format: "%.0f", faster.metrics.energyJoulesPerHour)) J/h")
        }
        guard let first = neighbours.first else { return text }
        return text + " " + first.prefix(1).uppercased() + first.dropFirst() + neighbours.dropFirst().map { "; " + $0 }.joined() + "."
    }

    /// The recommendation as configuration for the clients and servers people run.
    static func snippets(_ results: KeepaliveResults) -> [(title: String, language: String, text: String)] {
        guard let pick = results.recommended?.keepalive else { return [] }
        let time = Int(pick.time.rounded())
        let timeout = Int(pick.timeout.rounded())
        switch results.sweep.transport {
        case .grpc:
            let permit = pick.permitWithoutCalls
            // A server must accept pings at least as often as the client sends them.
            let minimum = max(1, time - 1)
            return [
                (
                    "netsim --client file", "yaml",
                    """
                    grpc:
                      keepalive: {time: \(time)s, timeout: \(timeout)s, permitWithoutCalls: \(permit)}
                    """
                ),
                (
                    "grpc-swift-2 client (grpc-swift-nio-transport)", "swift",
                    """
                    let transport = try HTTP2ClientTransport.Posix(
                        target: .dns(host: "api.example.com", port: 443), transportSecurity: .tls,
                        config: .defaults { config in
                            config.connection.keepalive = .init(
                                time: .seconds(\(time)), timeout: .seconds(\(timeout)), allowWithoutCalls: \(permit))
                        })
                    """
                ),
                (
                    "grpc-swift-2 server: accept these pings", "swift",
                    """
                    let server = HTTP2ServerTransport.Posix(
                        address: .ipv4(host: "0.0.0.0", port: 443), transportSecurity: .plaintext,
                        config: .defaults { config in
                            config.connection.keepalive.clientBehavior.minPingIntervalWithoutCalls = .seconds(\(minimum))
                            config.connection.keepalive.clientBehavior.allowWithoutCalls = \(permit)
                        })
                    """
                ),
                (
                    "grpc-java / OkHttp (Android) client", "java",
                    """
                    ManagedChannel channel = OkHttpChannelBuilder.forAddress("api.example.com", 443)
                        .keepAliveTime(\(time), TimeUnit.SECONDS)
                        .keepAliveTimeout(\(timeout), TimeUnit.SECONDS)
                        .keepAliveWithoutCalls(\(permit))
                        .build();
                    """
                ),
                (
                    "grpc-java server: accept these pings", "java",
                    """
                    Server server = NettyServerBuilder.forPort(443)
                        .permitKeepAliveTime(\(minimum), TimeUnit.SECONDS)
                        .permitKeepAliveWithoutCalls(\(permit))
                        .build();
                    """
                ),
                (
                    "grpc-go client and server", "go",
                    """
                    conn, err := grpc.NewClient("api.example.com:443",
                        grpc.WithKeepaliveParams(keepalive.ClientParameters{
                            Time: \(time) * time.Second, Timeout: \(timeout) * time.Second, PermitWithoutStream: \(permit)}))

                    server := grpc.NewServer(grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{
                        MinTime: \(minimum) * time.Second, PermitWithoutStream: \(permit)}))
                    """
                ),
            ]
        case .ws:
            return [("netsim --client file", "yaml", "websocket:\n  pingInterval: \(time)s")]
        case .tcp:
            return [
                (
                    "TCP keepalive socket options (Linux, Android; macOS/iOS: TCP_KEEPALIVE for the idle time)", "c",
                    """
                    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &(int){1}, sizeof(int));
                    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &(int){\(time)}, sizeof(int));
                    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &(int){\(timeout)}, sizeof(int));
                    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &(int){9}, sizeof(int));
                    """
                )
            ]
        case .quic:
            return quicSnippets(time: time, idleTimeout: timeout)
        case .heartbeat:
            return [
                (
                    "application heartbeat", "text",
                    pick.adaptive
                        ? "adaptive: start at 210 s, +60 s after 5 answered heartbeats, up to 600 s; after a miss go back to the last interval that worked"
                        : "send a heartbeat every \(time) s after the last answer; no answer within \(timeout) s: reconnect"
                )
            ]
        }
    }

    /// A PING interval and idle timeout for the QUIC stacks phones and servers run, each where
    /// it exposes them (sources: docs/tune.md, QUIC settings).
    private static func quicSnippets(time: Int, idleTimeout: Int) -> [(title: String, language: String, text: String)] {
        [
            (
                "netsim --client file", "yaml",
                "quic:\n  keepAlivePeriod: \(time)s\n  maxIdleTimeout: \(idleTimeout)s"
            ),
            (
                "quic-go (Config.KeepAlivePeriod, Config.MaxIdleTimeout; both ends)", "go",
                """
                conf := &quic.Config{KeepAlivePeriod: \(time) * time.Second, MaxIdleTimeout: \(idleTimeout) * time.Second}
                conn, err := quic.DialAddrEarly(ctx, "api.example.com:443", tlsConf, conf) // 0-RTT with tlsConf.ClientSessionCache
                """
            ),
            (
                "aioquic (no PING timer: the app sends them; idle_timeout on both ends)", "python",
                """
                configuration = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, idle_timeout=\(idleTimeout))
                async with connect("api.example.com", 443, configuration=configuration) as protocol:
                    while True:
                        await asyncio.sleep(\(time))
                        await protocol.ping()
                """
            ),
            (
                "Cronet (Android): the idle timeout; its PING interval is fixed at 15 s while a stream is open", "java",
                """
                CronetEngine engine = new CronetEngine.Builder(context)
                    .setQuicOptions(QuicOptions.builder().setIdleConnectionTimeoutSeconds(\(idleTimeout)).build())
                    .setConnectionMigrationOptions(ConnectionMigrationOptions.builder().enableDefaultNetworkMigration(true).build())
                    .build();
                """
            ),
            (
                "Network.framework (iOS, macOS; URLSession exposes neither)", "swift",
                """
                let quic = NWProtocolQUIC.Options(alpn: ["h3"])
                quic.idleTimeout = \(idleTimeout * 1000)  // milliseconds
                // once the connection is ready:
                (connection.metadata(definition: NWProtocolQUIC.definition) as? NWProtocolQUIC.Metadata)?.keepAlive = .seconds(\(time))
                """
            ),
        ]
    }
}
