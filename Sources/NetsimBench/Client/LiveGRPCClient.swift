import GRPCCore
import GRPCNIOTransportHTTP2Posix
import Logging
import NetsimModel

/// The gRPC bidi app on one device, the mobile client the field recommends: a reconnection
/// state machine with exponential backoff that resumes from the last offset, keepalive, a
/// per-call deadline (reached: the call is renewed at once), a bounded receive buffer between
/// the network and the app (full: the oldest event is dropped and counted), and suspension
/// while the phone reports no network (as a mobile OS's reachability callback would).
/// `reconnect: naive` makes it the naive client instead: no network watching, a fixed short
/// retry (the caller's `settings.backoff`), and every call subscribing from now.
struct LiveGRPCClient: Sendable {
    let device: Int
    let port: Int
    let ledger: DeviceLedger
    let settings: ClientSettings.GRPCClientSettings
    /// Between the network and the app (`settings.receiveBuffer`), at the app's pace.
    let inbox: EventInbox
    let batching: ClientSettings.Batching?
    let clock: BenchClock
    let seed: UInt64
    let logger: Logger
    let reconnect: ClientSettings.Reconnect
    /// Whether the phone has a network; nil: the app does not ask (the naive client).
    let network: NetworkWatch?

    /// The HTTP/2 window of a pulling client: HTTP/2's initial window (RFC 9113, 6.9.2).
    static let pullWindowBytes = 65_535

    private enum Input: Sendable {
        case callOpened
        case callEnded
        case retryDue
        case network(available: Bool)
    }

    func run() async {
        let transport: HTTP2ClientTransport.Posix
        do {
            transport = try HTTP2ClientTransport.Posix(
                target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext,
                config: .defaults { config in
                    config.connection.keepalive = .init(
                        time: .seconds(settings.keepaliveTime), timeout: .seconds(settings.keepaliveTimeout),
                        allowWithoutCalls: settings.permitWithoutCalls)
                    config.backoff = .init(
                        initial: .seconds(settings.backoff.initial), max: .seconds(settings.backoff.maximum),
                        multiplier: settings.backoff.multiplier, jitter: settings.backoff.jitter)
                    // Pulling, the app's pace should reach the server: grpc-swift's 8 MiB default
                    // window would let the connection read that far ahead of the app; HTTP/2's
                    // own default (64 KiB) holds the server back after a few hundred events.
                    if inbox.mode == .pull { config.http2.targetWindowSize = Self.pullWindowBytes }
                })
        } catch {
            logger.error("device \(device): cannot create the gRPC transport: \(error)")
            return
        }
        // At most one call, one timer and one network change are outstanding at a time.
        let (inputs, input) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .bufferingOldest(16))

        do {
            try await runClient(transport: transport, inputs: inputs, input: input)
        } catch let error as RuntimeError where error.code == .clientIsStopped {
            // Expected: the run was cancelled before grpc-swift started the client's connections
            // (the body had already returned, so the client was shutting down); nothing was lost.
        } catch {
            // Not expected: the plaintext transport's connections do not throw, and the client
            // runs once. Logged, as a transport that cannot be created is.
            logger.error("device \(device): the gRPC client failed: \(error)")
        }
    }

    /// The client's whole run on `transport`: the app, the network watch and the reconnection
    /// state machine, until the task is cancelled (`inputs` then ends).
    private func runClient(
        transport: HTTP2ClientTransport.Posix, inputs: AsyncStream<Input>, input: AsyncStream<Input>.Continuation
    ) async throws {
        try await withGRPCClient(transport: transport) { client in
            let stub = Netsim_Bench_EventStream.Client(wrapping: client)
            // Every task of the client is a child of this group (discarding: a long run opens
            // many calls), so none outlives the client.
            await withDiscardingTaskGroup { group in
                group.addTask { await inbox.runApp() }
                if let network {
                    group.addTask {
                        await network.watch(from: true) { input.yield(.network(available: $0)) }
                    }
                }
                var machine = ReconnectionStateMachine<ContinuousClock>(
                    backoff: settings.backoff, seed: seed, reconnect: reconnect)
                var timer: CancellableChild?
                func perform(_ action: ReconnectionStateMachine<ContinuousClock>.Action) {
                    switch action {
                    case .openCall(let resumeFrom):
                        group.addTask {
                            await runCall(stub: stub, resumeFrom: resumeFrom, input: input)
                        }
                    case .scheduleRetry(let deadline):
                        timer?.cancel()
                        timer = group.addCancellableTask {
                            do {
                                try await Task.sleep(until: deadline, clock: .continuous)
                                input.yield(.retryDue)
                            } catch {}
                        }
                    case .cancelRetry:
                        timer?.cancel()
                    case .doNothing:
                        break
                    }
                }
                perform(machine.start())
                for await next in inputs {
                    switch next {
                    case .callOpened: perform(machine.callOpened())
                    case .callEnded: perform(machine.callEnded(lastOffset: ledger.lastReceivedSequence, now: .now))
                    case .retryDue: perform(machine.retryDue(now: .now))
                    case .network(let available): perform(machine.networkChanged(available: available))
                    }
                }
                perform(machine.stop())
                inbox.finish()
                // The open call, the app and the network watch.
                group.cancelAll()
            }
        }
    }

    /// One streaming call: subscribe from `resumeFrom`, send the outbox, feed events to the
    /// inbox and acknowledgements to the outbox, until the call ends. In pull mode the inbox
    /// holds this loop while the app works, so grpc-swift stops reading and HTTP/2's window
    /// holds the server back.
    private func runCall(
        stub: Netsim_Bench_EventStream.Client<HTTP2ClientTransport.Posix>, resumeFrom: UInt64, input: AsyncStream<Input>.Continuation
    ) async {
        var options = CallOptions.defaults
        options.timeout = settings.callTimeLimit.map { .seconds($0) }
        // Fail fast while the transport cannot connect: the state machine owns the retries.
        options.waitForReady = false
        let generation = ledger.beginConnection()
        ledger.noteConnectionAttempt(at: clock.now())
        let device = UInt32(device)
        let opened = ConnectedFlag()
        defer {
            // An open call that ends is the app learning its connection is gone (a deadline's
            // renewal and the run's end aside).
            if opened.value, !Task.isCancelled { ledger.noteConnectionLossNoticed(at: clock.now()) }
        }
        do {
            try await stub.session(
                options: options,
                requestProducer: { writer in
                    try await writer.write(
                        .with {
                            $0.subscribe = .with {
                                $0.device = device
                                $0.resumeFrom = resumeFrom
                            }
                        })
                    // A batch goes as back-to-back messages on the stream (the contract has no
                    // batch frame): what batching saves on gRPC is radio wake-ups, not framing.
                    try await ledger.sendMessages(on: generation, batching: batching, clock: clock) { batch in
                        for message in batch {
                            try await writer.write(
                                .with {
                                    $0.message = .with {
                                        $0.id = message.id
                                        $0.createdAt = message.createdAt
                                        $0.payload = message.payload
                                    }
                                })
                        }
                    }
                },
                onResponse: { response in
                    guard case .success = response.accepted else { return }
                    opened.set()
                    input.yield(.callOpened)
                    for try await frame in response.messages {
                        switch frame.frame {
                        case .event(let event):
                            await inbox.deliver(
                                EventInbox.Event(
                                    sequence: event.sequenceID, payloadBytes: event.payload.utf8.count))
                        case .ack(let ack):
                            ledger.acknowledge(ack.messageID)
                        case nil:
                            break
                        }
                    }
                })
            ledger.countFailedAttempt()
        } catch let error as RPCError where error.code == .deadlineExceeded {
            opened.clear()
            ledger.countCallRenewal()
        } catch {
            if !Task.isCancelled { ledger.countFailedAttempt() }
        }
        input.yield(.callEnded)
    }
}
