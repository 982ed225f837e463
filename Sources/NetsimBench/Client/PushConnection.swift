import NetsimModel

/// A push transport (WebSocket, gRPC) under an app's machine: one connection at a time (a
/// WebSocket, a gRPC call), opened by the machine's `.send(.open)` and cancelled by its
/// `.closeConnection`, whose events go to the app's receive buffer, which the app takes at its
/// pace beside the machine. A transport says how a connection runs and how a message frame is
/// written on it; the rest of `perform` is this extension's.
protocol PushTransport: LiveTransport {
    associatedtype Write: Sendable
    var inbox: EventInbox { get }
    /// The connection the machine opened.
    var connection: PushConnection<Write> { get set }
    /// Runs connection `number`, subscribing after `after`, from its opening to its end, which
    /// it reports through `AppInputs.pushConnectionEnded`.
    func run(_ number: Int, after: UInt64, writes: AsyncStream<Write>, inputs: AppInputs) async
    /// Writes the machine's message frame (`.message`, `.messageBatch`) on the connection.
    func write(_ frame: Frame, app: inout AppLedger)
}

extension PushTransport {
    mutating func perform(
        _ action: TransportAction, now: Double, app: inout AppLedger, inputs: AppInputs, group: inout DiscardingTaskGroup
    ) {
        switch action {
        case .connect:
            app.noteConnectionAttempt(at: now)
        case .send(.open(let after, _)):
            connection.open(in: &group) { [self] writes, number in
                await run(number, after: after, writes: writes, inputs: inputs)
            }
        case .send(let frame):
            write(frame, app: &app)
        case .closeConnection:
            connection.close()
        default:
            break
        }
    }

    func isCurrent(_ number: Int) -> Bool {
        connection.isCurrent(number)
    }

    func appSide() async {
        await inbox.runApp()
    }

    func shutdown() async {
        inbox.finish()
    }
}

/// The connection a push transport's machine opened (a WebSocket, a gRPC call): what the
/// machine writes on it, and the task that runs it, which closing it (or opening the next)
/// cancels.
struct PushConnection<Write: Sendable>: Sendable {
    private var current: (writes: AsyncStream<Write>.Continuation, child: CancellableChild)?
    /// The number of the last connection opened (`LiveTransport.isCurrent`).
    private var number = 0

    /// Closes the current connection and runs `body` as the new one, a child of `group`, with
    /// what will be written on it and its number.
    mutating func open(
        in group: inout DiscardingTaskGroup, _ body: @escaping @Sendable (AsyncStream<Write>, Int) async -> Void
    ) {
        close()
        number += 1
        let number = number
        // Bounded by the outbox: each message goes once per connection.
        let (writes, writer) = AsyncStream.makeStream(of: Write.self)
        let child = group.addCancellableTask { await body(writes, number) }
        current = (writer, child)
    }

    /// Whether connection `number` is the one open.
    func isCurrent(_ number: Int) -> Bool {
        current != nil && number == self.number
    }

    /// Writes on the current connection, if there is one.
    func write(_ value: Write) {
        current?.writes.yield(value)
    }

    mutating func close() {
        current?.child.cancel()
        current = nil
    }
}

extension AppInputs {
    /// Push connection `connection`'s task ended by itself (not cancelled: the machine closed it
    /// then, and knows). The machine hears it closed by the peer once it had opened, which is
    /// the app noticing it lost its connection; else it failed.
    func pushConnectionEnded(_ connection: Int, opened: Bool, clock: BenchClock) {
        guard !Task.isCancelled else { return }
        connectionEnded(opened ? .closedByPeer : .reset, on: connection, lossNoticedAt: opened ? clock.now() : nil)
    }
}
