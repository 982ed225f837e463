import Foundation
import NetsimCore
import NetsimModel

/// The recommendation in words and as configuration to paste.
enum KeepaliveRecommendationText {
    static func seconds(_ value: Double) -> String { KeepaliveRendering.seconds(value) }

    /// One paragraph: what is recommended, why it beats its neighbours, what it costs.
    static func paragraph(_ results: KeepaliveResults) -> String {
        let sweep = results.sweep
        guard let pick = results.recommended else { return noneViable(results) }
        let metrics = pick.metrics
        let viable = results.summaries.filter(\.viable).count
        let text =
            "Recommended: \(pick.keepalive.label). Of \(results.summaries.count) configurations, \(viable) "
            + "kept every connection through NAT timeouts down to "
            + "\(KeepaliveRendering.natTimeout(sweep.natTimeouts.compactMap { $0 }.min())), "
            + (sweep.serverPolicy.minPingInterval == nil
                ? "met a server that polices no pings (\(sweep.serverPolicy.name)) "
                : "drew no GOAWAY from a server with the \(sweep.serverPolicy.name) ping policy ")
            + "and noticed a dead connection within \(seconds(sweep.detectWithin)) at p95. "
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

    /// When nothing is viable: how many configurations each constraint ruled out, and the
    /// compromise with what it fails, or what to change when even that is missing.
    static func noneViable(_ results: KeepaliveResults) -> String {
        let sweep = results.sweep
        let policy = sweep.serverPolicy.name
        let counts = results.ruledOut.map { "\($0.count) \($0.constraint.failure(policy: policy, detectWithin: sweep.detectWithin))" }
        let text =
            "No configuration is viable. Of \(results.summaries.count) configurations, "
            + counts.joined(separator: "; ") + " (one may fail several)."
        guard let compromise = results.compromise else {
            return text + " Every one drew a GOAWAY from the \(policy) server, so there is no compromise to recommend: "
                + "use a server policy that accepts the pings you need (the server snippets of a sweep with --server-policy none "
                + "say how), or longer --keepalive-times."
        }
        let metrics = compromise.metrics
        let fails = compromise.ruledOutBy.map { $0.failure(policy: policy, detectWithin: sweep.detectWithin) }
        return text + " Compromise (not viable): \(compromise.keepalive.label), the best the \(policy) server policy allows: "
            + "of the configurations that draw no GOAWAY, it fails the fewest constraints, then leaves the app holding a "
            + "dead connection unaware the least time. It \(fails.joined(separator: " and ")): "
            + String(format: "%.2f", metrics.natExpiriesPerHour) + " NAT expiries an hour, "
            + String(format: "%.0f", metrics.blackoutSecondsPerHour) + " s an hour unaware of a dead connection, p95 detection "
            + "\(seconds(metrics.detectionSeconds.p95)), \(String(format: "%.0f", metrics.energyJoulesPerHour)) J an hour. "
            + "To do better, let the server accept the pings a viable configuration needs (--server-policy none shows "
            + "what it would be), loosen --detect-within, or drop the shortest NAT timeouts you do not face."
    }

    /// The recommendation (or, when nothing is viable, the compromise) as configuration for
    /// the clients and servers people run.
    static func snippets(_ results: KeepaliveResults) -> [(title: String, language: String, text: String)] {
        guard let pick = results.advice?.keepalive else { return [] }
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
                        address: .ipv4(host: "0.0.0.0", port: 443),
                        transportSecurity: .tls(
                            certificateChain: [.file(path: "server.pem", format: .pem)], privateKey: .file(path: "server.key", format: .pem)),
                        config: .defaults { config in
                            config.connection.keepalive.clientBehavior.minPingIntervalWithoutCalls = .seconds(\(minimum))
                            config.connection.keepalive.clientBehavior.allowWithoutCalls = \(permit)
                        })
                    """
                ),
                (
                    "grpc-swift 1.x client (ClientConnectionKeepalive; its ping limits apply only with no call open)", "swift",
                    """
                    let channel = try GRPCChannelPool.with(
                        target: .host("api.example.com", port: 443),
                        transportSecurity: .tls(.makeClientConfigurationBackedByNIOSSL()), eventLoopGroup: group
                    ) { config in
                        config.keepalive = ClientConnectionKeepalive(
                            interval: .seconds(\(time)), timeout: .seconds(\(timeout)), permitWithoutCalls: \(permit),
                            maximumPingsWithoutData: .max, minimumSentPingIntervalWithoutData: .seconds(\(time)))
                    }
                    """
                ),
                (
                    "gRPC C-core clients: Python grpcio channel arguments (C-core's default max_pings_without_data 2 sends one ping a minute on an idle stream: set 0)",
                    "python",
                    """
                    channel = grpc.secure_channel("api.example.com:443", grpc.ssl_channel_credentials(), options=[
                        ("grpc.keepalive_time_ms", \(time * 1000)),
                        ("grpc.keepalive_timeout_ms", \(timeout * 1000)),
                        ("grpc.keepalive_permit_without_calls", \(permit ? 1 : 0)),
                        ("grpc.http2.max_pings_without_data", 0),
                    ])
                    """
                ),
                (
                    "gRPC C-core clients: C++", "cpp",
                    """
                    grpc::ChannelArguments args;
                    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, \(time * 1000));
                    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, \(timeout * 1000));
                    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, \(permit ? 1 : 0));
                    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
                    auto channel = grpc::CreateCustomChannel("api.example.com:443", grpc::SslCredentials({}), args);
                    """
                ),
                (
                    "gRPC C-core clients: Ruby and PHP (the same channel arguments)", "text",
                    """
                    # Ruby
                    stub = Service::Stub.new("api.example.com:443", GRPC::Core::ChannelCredentials.new, channel_args: {
                      "grpc.keepalive_time_ms" => \(time * 1000), "grpc.keepalive_timeout_ms" => \(timeout * 1000),
                      "grpc.keepalive_permit_without_calls" => \(permit ? 1 : 0), "grpc.http2.max_pings_without_data" => 0 })
                    // PHP
                    $client = new ServiceClient("api.example.com:443", [
                        "credentials" => Grpc\\ChannelCredentials::createSsl(),
                        "grpc.keepalive_time_ms" => \(time * 1000), "grpc.keepalive_timeout_ms" => \(timeout * 1000),
                        "grpc.keepalive_permit_without_calls" => \(permit ? 1 : 0), "grpc.http2.max_pings_without_data" => 0,
                    ]);
                    """
                ),
                (
                    "gRPC-ObjC (iOS; C-core underneath): GRPCMutableCallOptions", "objc",
                    """
                    GRPCMutableCallOptions *options = [[GRPCMutableCallOptions alloc] init];
                    options.transportType = GRPCTransportTypeChttp2BoringSSL;
                    options.keepaliveInterval = \(time);  // seconds
                    options.keepaliveTimeout = \(timeout);
                    options.additionalChannelArgs = @{
                      @"grpc.http2.max_pings_without_data" : @0, @"grpc.keepalive_permit_without_calls" : @\(permit ? 1 : 0)};
                    """
                ),
                (
                    "gRPC C-core server: accept these pings (Python; C++, Ruby and PHP take the same arguments)", "python",
                    """
                    server = grpc.server(futures.ThreadPoolExecutor(), options=[
                        ("grpc.http2.min_recv_ping_interval_without_data_ms", \(minimum * 1000)),
                        ("grpc.keepalive_permit_without_calls", \(permit ? 1 : 0)),
                    ])
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
                    "grpc-kotlin (Android, JVM): grpc-java's channel builder, so the same keepalive", "kotlin",
                    """
                    val channel = ManagedChannelBuilder.forAddress("api.example.com", 443)
                        .keepAliveTime(\(time), TimeUnit.SECONDS)
                        .keepAliveTimeout(\(timeout), TimeUnit.SECONDS)
                        .keepAliveWithoutCalls(\(permit))
                        .build()
                    val stub = ServiceGrpcKt.ServiceCoroutineStub(channel)
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
