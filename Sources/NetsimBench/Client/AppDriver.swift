import NetsimModel

/// What reaches an app's machine from the live world, in the order it happened.
enum AppInput: Sendable {
    /// A frame's answer arrived on the connection (its events and acknowledgements are already
    /// in the ledger, as the model engine delivers them before it hands the frame over);
    /// `connection`: the transport's number for it, if it numbers them.
    case received(Frame, connection: Int?)
    /// The connection ended; `lossNoticedAt`: when the app noticed it had lost a connection
    /// that had opened (nil: it never opened, or the transport notes it itself).
    case connectionEnded(ConnectionEnd, connection: Int?, lossNoticedAt: Double?)
    /// A timer the machine armed; `arming` tells a timer that was moved or cancelled since.
    case timerFired(TransportTimer, arming: Int)
    /// The app produced a message (the outbox's wake-up).
    case messageProduced
    case networkChanged(available: Bool)
}

/// Where a live transport sends what the network gave it, for the app's machine.
struct AppInputs: Sendable {
    fileprivate let continuation: AsyncStream<AppInput>.Continuation

    func received(_ frame: Frame, on connection: Int? = nil) {
        continuation.yield(.received(frame, connection: connection))
    }

    func connectionEnded(_ end: ConnectionEnd, on connection: Int? = nil, lossNoticedAt: Double? = nil) {
        continuation.yield(.connectionEnded(end, connection: connection, lossNoticedAt: lossNoticedAt))
    }
}

/// A live transport under an app's machine: it carries out what the machine asks of the wire
/// (`.connect`, `.send`, `.closeConnection`) on a real client library, and reports each answer
/// or failure through `AppInputs`. It decides nothing: when to send, retry or give up is the
/// machine's.
protocol LiveTransport: Sendable {
    /// Carries out `action` at `now` (bench seconds), under the ledger's lock (`app`), so that a
    /// frame that names messages by id finds them as the machine left them. Work that waits on
    /// the network runs as a child of `group`.
    mutating func perform(
        _ action: TransportAction, now: Double, app: inout AppLedger, inputs: AppInputs, group: inout DiscardingTaskGroup)
    /// What the app does beside its machine for as long as it plays: a push client's app takes
    /// the events its receive buffer holds at its pace.
    func appSide() async
    /// The driver has stopped: the client library's resources go.
    func shutdown() async
    /// Whether the connection the transport numbered `connection` is the one the machine has
    /// open: what a connection it closed sent after that (its cancellation is not at once) is
    /// not the current connection's and is dropped, as the model engine drops what reaches a
    /// connection the client has closed.
    func isCurrent(_ connection: Int) -> Bool
}

extension LiveTransport {
    func appSide() async {}

    func isCurrent(_ connection: Int) -> Bool { true }
}

/// Plays an app's machine, the one the model engine plays over its device model
/// (`TransportClientModel`), on the live bench: the machine decides, time as an argument; this
/// feeds it the bench clock, real answers, the outbox's wake-ups and the phone's network, arms
/// its timers on the bench clock, and hands what it asks of the wire to a `LiveTransport`. So
/// the app's policy (outbox and generations, resume cursor, reconnection and backoff, batching,
/// network watching, REST's consumer pace) is written once for both engines; so is a push
/// client's receive buffer, the model's `AppInbox`, which the transport's `EventInbox` holds.
///
/// One task owns the machine; everything else (requests and connections in flight, timers,
/// wake-ups, the network watch) runs as children that send it `AppInput`s. The inputs waiting
/// are bounded by those children: a timer sends one, a request its answer or failure, a
/// connection its opening and its end, the wake-ups one pending at most (`SignalSlot`), and the
/// network watch one per change.
struct AppDriver<Machine: TransportClientModel, Transport: LiveTransport>: Sendable {
    let machine: Machine
    let transport: Transport
    let ledger: DeviceLedger
    let clock: BenchClock
    /// The phone's network, for a machine that watches it; nil: the app does not ask.
    let network: NetworkWatch?

    /// Plays until the task is cancelled.
    func run() async {
        var machine = self.machine
        var transport = self.transport
        let (inputs, continuation) = AsyncStream.makeStream(of: AppInput.self)
        let sink = AppInputs(continuation: continuation)
        // Subscribed before the machine first looks at the outbox, so no message is missed.
        let wakeUps = ledger.outboxWakeUps()
        // A machine starts with the network up: one that watches it hears first if it is not.
        let upAtStart = await network?.isUp() ?? true
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in wakeUps { continuation.yield(.messageProduced) }
            }
            group.addTask { [transport] in await transport.appSide() }
            if let network {
                group.addTask {
                    await network.watch(from: upAtStart) { continuation.yield(.networkChanged(available: $0)) }
                }
            }
            var timers = ArmedTimers()
            var actions: [TransportAction] = []
            var steps: [Step] = upAtStart ? [.start] : [.input(.networkChanged(available: false)), .start]
            var networkUp = upAtStart
            var iterator = inputs.makeAsyncIterator()
            while !Task.isCancelled {
                for step in steps {
                    actions.removeAll(keepingCapacity: true)
                    let now = clock.now()
                    ledger.withApp { app in
                        switch step {
                        case .start:
                            machine.start(now: now, ledger: &app, into: &actions)
                        case .input(.received(let frame, let connection)):
                            guard connection.map(transport.isCurrent) ?? true else { return }
                            machine.received(frame, now: now, ledger: &app, into: &actions)
                        case .input(.connectionEnded(let end, let connection, let lossNoticedAt)):
                            guard connection.map(transport.isCurrent) ?? true else { return }
                            if let lossNoticedAt { app.noteConnectionLossNoticed(at: lossNoticedAt) }
                            machine.connectionEnded(end, now: now, ledger: &app, into: &actions)
                        case .input(.timerFired(let timer, let arming)):
                            guard timers.fired(timer, arming: arming) else { return }
                            machine.timerFired(timer, now: now, ledger: &app, into: &actions)
                        case .input(.messageProduced):
                            machine.messageProduced(now: now, ledger: &app, into: &actions)
                        case .input(.networkChanged(let available)):
                            machine.networkChanged(available: available, now: now, ledger: &app, into: &actions)
                        }
                        for action in actions {
                            switch action {
                            case .setTimer(let timer, let time):
                                timers.arm(timer, at: time, clock: clock, continuation: continuation, group: &group)
                            case .cancelTimer(let timer):
                                timers.cancel(timer)
                            default:
                                transport.perform(action, now: now, app: &app, inputs: sink, group: &group)
                            }
                        }
                    }
                }
                guard let input = await iterator.next() else { break }
                steps = await self.steps(for: input, networkUp: &networkUp)
            }
            group.cancelAll()
        }
        await transport.shutdown()
    }

    /// What the machine is handed next: its start, then each input.
    private enum Step {
        case start
        case input(AppInput)
    }

    /// The steps for `input`. A machine that watches the network is told of a change first, and
    /// only of a change: the network is asked afresh before each input, as the app's loop asks
    /// at the top of each round, since the watch's own report may come a poll interval late and
    /// a request sent meanwhile would go into the outage.
    private func steps(for input: AppInput, networkUp: inout Bool) async -> [Step] {
        guard let network else { return [.input(input)] }
        let up: Bool
        var steps: [Step] = []
        if case .networkChanged(let reported) = input {
            up = reported
        } else {
            up = await network.isUp()
        }
        if up != networkUp {
            networkUp = up
            steps.append(.input(.networkChanged(available: up)))
        }
        if case .networkChanged = input {} else { steps.append(.input(input)) }
        return steps
    }
}

/// The machine's timers on the bench clock: each a child task that sleeps until its deadline
/// and then sends `AppInput.timerFired`. Setting a timer again or cancelling it cancels its
/// child; a firing that was already sent is told apart by its arming's number.
private struct ArmedTimers {
    private var armed: [TransportTimer: (arming: Int, child: CancellableChild)] = [:]
    private var armings = 0

    mutating func arm(
        _ timer: TransportTimer, at time: Double, clock: BenchClock, continuation: AsyncStream<AppInput>.Continuation,
        group: inout DiscardingTaskGroup
    ) {
        cancel(timer)
        armings += 1
        let arming = armings
        let child = group.addCancellableTask {
            do {
                try await clock.sleep(until: time)
                continuation.yield(.timerFired(timer, arming: arming))
            } catch {}
        }
        armed[timer] = (arming, child)
    }

    mutating func cancel(_ timer: TransportTimer) {
        armed.removeValue(forKey: timer)?.child.cancel()
    }

    /// Whether a firing is the timer's current arming (then it is disarmed).
    mutating func fired(_ timer: TransportTimer, arming: Int) -> Bool {
        guard armed[timer]?.arming == arming else { return false }
        armed[timer] = nil
        return true
    }
}
