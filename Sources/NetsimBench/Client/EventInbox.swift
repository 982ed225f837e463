import NetsimModel
import Synchronization

/// What a push transport's client (WebSocket, gRPC) holds between the network and the app, and
/// the app's pace (`ClientSettings.ReceiveBuffer`, `ClientSettings.Consumer`): the model
/// engine's `AppInbox` behind a lock, so the buffer, its drops and peaks, the pull rule and the
/// handling time are written once for both engines. What this adds is the waiting the live
/// bench does in real time:
///
/// - Buffered (`bounded`, `unbounded`): the network side hands each event over and reads on; the
///   app's task (`runApp`) handles what the inbox gives it, each until its handling time is up.
/// - `pull`: the network side handles its own event before it reads the next, so the
///   transport's flow control (TCP's window, HTTP/2's for gRPC) holds the server back and the
///   backlog stays in the server's queue. An event that arrives while another is handled (a
///   new connection's, while the old one's reader finishes) waits unread until the app takes it.
///
/// Without a consumer the app handles each event at once (a handling time of zero).
final class EventInbox: Sendable {
    struct Event: Sendable {
        var sequence: UInt64
        var payloadBytes: Int
    }

    let ledger: DeviceLedger
    let clock: BenchClock
    let mode: ClientSettings.ReceiveBuffer
    private let state: Mutex<State>

    private struct State {
        var inbox: AppInbox
        /// When the app is done with the event it handles; nil: it handles none.
        var handlingUntil: Double?
        /// Buffered: the app's task, waiting for an event to handle.
        var app: CheckedContinuation<Double?, Never>?
        /// Pull: the network side's reads whose event waits unread, oldest first as the inbox
        /// hands the events out, each told when the app takes its event (and until when).
        var unread: [CheckedContinuation<Double?, Never>] = []
        /// No event comes any more; the app handles what is left, then stops.
        var finished = false
    }

    init(ledger: DeviceLedger, clock: BenchClock, mode: ClientSettings.ReceiveBuffer, consumer: ClientSettings.Consumer?) {
        self.ledger = ledger
        self.clock = clock
        self.mode = mode
        state = Mutex(State(inbox: AppInbox(mode, handlingSeconds: consumer.map { 1 / $0.eventsPerSecond } ?? 0)))
    }

    /// The network side has read `event`. Buffered, the app takes it if idle, else the buffer
    /// holds it (dropping its oldest when full); pulled, the app handles it before this returns.
    func deliver(_ event: Event) async {
        let event = AppInbox.Event(sequence: event.sequence, payloadBytes: event.payloadBytes, windowBytes: 0, connection: 0)
        guard mode == .pull else {
            // Off the network: a new connection resumes after it, even while it waits here.
            ledger.readOffNetwork(event.sequence)
            let now = clock.now()
            let (app, until, figures) = state.withLock { state -> (CheckedContinuation<Double?, Never>?, Double?, Figures?) in
                guard !state.finished else { return (nil, nil, nil) }
                let until = state.inbox.arrived(event, at: now).handlingUntil
                if let until { state.handlingUntil = until }
                let app = until == nil ? nil : state.app
                if app != nil { state.app = nil }
                return (app, until, Figures(state.inbox))
            }
            figures?.note(in: ledger)
            app?.resume(returning: until)
            return
        }
        let until: Double? = await withCheckedContinuation { continuation in
            let now = clock.now()
            let (taken, figures) = state.withLock { state -> (Double??, Figures?) in
                guard !state.finished else { return (.some(nil), nil) }
                guard let until = state.inbox.arrived(event, at: now).handlingUntil else {
                    state.unread.append(continuation)
                    return (nil, Figures(state.inbox))
                }
                state.handlingUntil = until
                return (.some(until), Figures(state.inbox))
            }
            figures?.note(in: ledger)
            if let taken { continuation.resume(returning: taken) }
        }
        if let until { _ = await handle(until: until) }
    }

    /// The app: handles what the buffer gives it, at its pace, until `finish()` and the buffer is
    /// empty, or until its task is cancelled. Returns at once in pull mode.
    func runApp() async {
        guard mode != .pull else { return }
        var due = await nextToHandle()
        while let until = due {
            if let next = await handle(until: until) {
                due = next
            } else {
                due = await nextToHandle()
            }
        }
    }

    func finish() {
        let app = state.withLock { state in
            state.finished = true
            defer { state.app = nil }
            return state.app
        }
        app?.resume(returning: nil)
    }

    /// When the app is done with the event the inbox gave it; nil once finished and idle, or
    /// when the app's task is cancelled while it waits.
    private func nextToHandle() async -> Double? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: Double?? = state.withLock { state in
                    if let until = state.handlingUntil { return .some(until) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.app = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let app = state.withLock { state in
                defer { state.app = nil }
                return state.app
            }
            app?.resume(returning: nil)
        }
    }

    /// The app handles the event it took until `until`, then it reaches the app (the ledger) and
    /// the inbox gives the app its next, if any: returned when buffered; pulled, it goes to the
    /// read that waits for it. A cancelled wait still hands the event to the app (it came off
    /// the network), at once: the app's pace is cut short for that one event.
    private func handle(until: Double) async -> Double? {
        if until > clock.now() { try? await clock.sleep(until: until) }
        let now = clock.now()
        let (done, next, reader, figures) = state.withLock { state in
            let (done, next) = state.inbox.finish(at: now)
            state.handlingUntil = next?.handlingUntil
            let reader = next.flatMap { $0.read && !state.unread.isEmpty ? state.unread.removeFirst() : nil }
            return (done, next, reader, Figures(state.inbox))
        }
        if let done { ledger.receive(sequence: done.sequence, at: now) }
        figures.note(in: ledger)
        guard let next else { return nil }
        guard let reader else { return next.handlingUntil }
        reader.resume(returning: next.handlingUntil)
        return nil
    }

    /// The inbox's peaks and drops, noted in the ledger outside the inbox's lock.
    private struct Figures {
        var peakEvents: Int
        var peakBytes: Int
        var drops: Int

        init(_ inbox: AppInbox) {
            peakEvents = inbox.peakEvents
            peakBytes = inbox.peakBytes
            drops = inbox.drops
        }

        func note(in ledger: DeviceLedger) {
            ledger.noteInbox(peakEvents: peakEvents, peakBytes: peakBytes, drops: drops)
        }
    }
}
