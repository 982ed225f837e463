import GRPCCore
import GRPCNIOTransportHTTP2Posix
import NetsimModel

/// The gRPC transport's service: one `Session` stream per device. The first frame subscribes
/// (with `resume_from`; `EventStore.fromNow`, the largest value, subscribes from now); the server then pushes events after it and every new one, and
/// acknowledges each uplink message. A newer session for the same device ends the older one.
struct EventStreamService: Netsim_Bench_EventStream.SimpleServiceProtocol {
    let store: EventStore
    let clock: BenchClock

    func session(
        request: RPCAsyncSequence<Netsim_Bench_ClientFrame, any Error>, response: RPCWriter<Netsim_Bench_ServerFrame>,
        context: ServerContext
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var subscribedDevice: Int?
            for try await frame in request {
                switch frame.frame {
                case .subscribe(let subscribe):
                    let device = Int(subscribe.device)
                    guard subscribedDevice == nil, (0..<store.deviceCount).contains(device) else {
                        throw RPCError(code: .invalidArgument, message: "one Subscribe per session, for a known device")
                    }
                    subscribedDevice = device
                    group.addTask {
                        try await store.push(device: device, after: subscribe.resumeFrom) { event in
                            try await response.write(
                                .with {
                                    $0.event = .with {
                                        $0.sequenceID = event.sequence
                                        $0.createdAt = event.createdAt
                                        $0.payload = event.payload
                                    }
                                })
                        }
                    }
                case .message(let message):
                    guard let device = subscribedDevice else { throw RPCError(code: .failedPrecondition, message: "Subscribe first") }
                    store.receive(device: device, messageID: message.id, createdAt: message.createdAt, at: clock.now())
                    try await response.write(.with { $0.ack = .with { $0.messageID = message.id } })
                case nil:
                    continue
                }
            }
            try await group.waitForAll()
        }
    }

    /// The server transport, policing and probing its clients' connections as `policy` says,
    /// every timer divided by `timeScale` (see `BenchClock`).
    ///
    /// grpc-swift-nio-transport fixes the ping strikes at 2 (`BenchConfiguration.problem`
    /// refuses other counts) and always has a keepalive time: a policy without server pings gets
    /// ten years.
    static func transport(policy: GRPCServerPolicy, timeScale: Double) -> HTTP2ServerTransport.Posix {
        HTTP2ServerTransport.Posix(
            address: .ipv4(host: "127.0.0.1", port: 0), transportSecurity: .plaintext,
            config: .defaults { config in
                config.connection.keepalive.time = .seconds((policy.keepaliveTime ?? 10 * 365 * 86_400) / timeScale)
                config.connection.keepalive.timeout = .seconds(policy.keepaliveTimeout / timeScale)
                config.connection.keepalive.clientBehavior.allowWithoutCalls = policy.allowWithoutCalls
                config.connection.keepalive.clientBehavior.minPingIntervalWithoutCalls = .seconds((policy.minPingInterval ?? 0) / timeScale)
            })
    }
}
