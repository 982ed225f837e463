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
