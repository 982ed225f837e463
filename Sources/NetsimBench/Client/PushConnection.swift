/// A push transport (WebSocket, gRPC) under an app's machine: the events it reads go to the
/// app's receive buffer, which the app takes at its pace beside the machine.
protocol PushTransport: LiveTransport {
    var inbox: EventInbox { get }
}

extension PushTransport {
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

    /// Closes the current connection and runs `body` as the new one, a child of `group`, with
    /// what will be written on it.
    mutating func open(in group: inout DiscardingTaskGroup, _ body: @escaping @Sendable (AsyncStream<Write>) async -> Void) {
        close()
        // Bounded by the outbox: each message goes once per connection.
        let (writes, writer) = AsyncStream.makeStream(of: Write.self)
        let child = group.addCancellableTask { await body(writes) }
        current = (writer, child)
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
    /// A push connection's task ended by itself (not cancelled: the machine closed it then, and
    /// knows). The machine hears it closed by the peer once it had opened, which is the app
    /// noticing it lost its connection; else it failed.
    func pushConnectionEnded(opened: Bool, ledger: DeviceLedger, clock: BenchClock) {
        guard !Task.isCancelled else { return }
        if opened { ledger.noteConnectionLossNoticed(at: clock.now()) }
        connectionEnded(opened ? .closedByPeer : .reset)
    }
}
