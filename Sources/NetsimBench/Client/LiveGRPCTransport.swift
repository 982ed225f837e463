import GRPCCore
import GRPCNIOTransportHTTP2Posix
import Logging
import NetsimModel

/// The gRPC bidi app's wire on the live bench, under `GRPCApp` (played by an `AppDriver`): one
/// grpc-swift `session` call per call the machine opens, which subscribes after the machine's
/// cursor, pushes events into the app's receive buffer (`EventInbox`, at the app's pace) and
/// takes the acknowledgements, and on which the machine's messages go. When to open, renew and
/// retry a call is the machine's; the connections under the calls, their keepalive and their
/// reconnection are grpc-swift's own, which `GRPCClientModel` models in the model engine.
struct LiveGRPCTransport: PushTransport {
    let device: Int
    let stub: Netsim_Bench_EventStream.Client<HTTP2ClientTransport.Posix>
    let ledger: DeviceLedger
    /// Between the network and the app (`settings.receiveBuffer`), at the app's pace. In pull
    /// mode it holds the call's read loop while the app works, so grpc-swift stops reading and
    /// HTTP/2's window holds the server back.
    let inbox: EventInbox
    let clock: BenchClock
    /// The call the machine opened, which `closeConnection` (a renewal: RST_STREAM) or the next
    /// call cancels.
    var connection = PushConnection<DeviceLedger.Message>()

    /// The HTTP/2 window of a pulling client: HTTP/2's initial window (RFC 9113, 6.9.2).
    static let pullWindowBytes = 65_535

    /// Plays `app` on device `device` over a grpc-swift client of the server at `port`, until
    /// the task is cancelled. grpc-swift's channel gets the client file's keepalive and
    /// connection backoff, in wall-clock seconds (`settings` is scaled by the clock's time
    /// scale); the app's machine keeps bench seconds.
    static func play(
        _ app: GRPCApp, device: Int, port: Int, settings: ClientSettings.GRPCClientSettings, ledger: DeviceLedger,
        inbox: EventInbox, clock: BenchClock, network: NetworkWatch?, logger: Logger
    ) async {
        let wall = settings.scaled(by: clock.timeScale)
        let transport: HTTP2ClientTransport.Posix
        do {
            transport = try HTTP2ClientTransport.Posix(
                target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext,
                config: .defaults { config in
                    config.connection.keepalive = .init(
                        time: .seconds(wall.keepaliveTime), timeout: .seconds(wall.keepaliveTimeout),
                        allowWithoutCalls: wall.permitWithoutCalls)
                    config.backoff = .init(
                        initial: .seconds(wall.backoff.initial), max: .seconds(wall.backoff.maximum),
                        multiplier: wall.backoff.multiplier, jitter: wall.backoff.jitter)
                    // Pulling, the app's pace should reach the server: grpc-swift's 8 MiB default
                    // window would let the connection read that far ahead of the app; HTTP/2's
                    // own default (64 KiB) holds the server back after a few hundred events.
                    if inbox.mode == .pull { config.http2.targetWindowSize = Self.pullWindowBytes }
                })
        } catch {
            logger.error("device \(device): cannot create the gRPC transport: \(error)")
            return
        }
        do {
            try await withGRPCClient(transport: transport) { client in
                await AppDriver(
                    machine: app,
                    transport: LiveGRPCTransport(
                        device: device, stub: Netsim_Bench_EventStream.Client(wrapping: client), ledger: ledger, inbox: inbox,
                        clock: clock),
                    ledger: ledger, clock: clock, network: network
                ).run()
            }
        } catch let error as RuntimeError where error.code == .clientIsStopped {
            // Expected: the run was cancelled before grpc-swift started the client's connections
            // (the body had already returned, so the client was shutting down); nothing was lost.
        } catch {
            // Not expected: the plaintext transport's connections do not throw, and the client
            // runs once. Logged, as a transport that cannot be created is.
            logger.error("device \(device): the gRPC client failed: \(error)")
        }
    }

    func write(_ frame: Frame, app: inout AppLedger) {
        guard case .message(let id) = frame else { return }
        for message in app.messages(from: id, through: id) { connection.write(ledger.message(message)) }
    }

    /// One call, from its Subscribe to its end, which the machine hears of: ended by the server
    /// or failed once it had opened (the app noticed it lost its connection), else failed to
    /// open. `waitForReady` is off: while grpc-swift cannot connect the call fails at once, and
    /// the machine owns the retries.
    func run(_ number: Int, after: UInt64, writes: AsyncStream<DeviceLedger.Message>, inputs: AppInputs) async {
        var options = CallOptions.defaults
        options.waitForReady = false
        let device = UInt32(device)
        let opened = ConnectedFlag()
        do {
            try await stub.session(
                options: options,
                requestProducer: { writer in
                    try await writer.write(
                        .with {
                            $0.subscribe = .with {
                                $0.device = device
                                $0.resumeFrom = after
                            }
                        })
                    for await message in writes {
                        try await writer.write(
                            .with {
                                $0.message = .with {
                                    $0.id = message.id
                                    $0.createdAt = message.createdAt
                                    $0.payload = message.payload
                                }
                            })
                    }
                },
                onResponse: { response in
                    guard case .success = response.accepted else { return }
                    opened.set()
                    inputs.received(.accepted(newConnection: false), on: number)
                    for try await frame in response.messages {
                        switch frame.frame {
                        case .event(let event):
                            await inbox.deliver(EventInbox.Event(sequence: event.sequenceID, payloadBytes: event.payload.utf8.count))
                        case .ack(let ack):
                            ledger.acknowledge(ack.messageID)
                        case nil:
                            break
                        }
                    }
                })
        } catch {
            // The call failed or could not open: the machine hears of it below.
        }
        inputs.pushConnectionEnded(number, opened: opened.value, clock: clock)
    }
}
