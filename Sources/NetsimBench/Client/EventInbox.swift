import NIOCore
import NetsimModel
import Synchronization

/// What a push transport's client (WebSocket, gRPC) holds between the network and the app,
/// and the app's pace (`ClientSettings.ReceiveBuffer`, `ClientSettings.Consumer`).
///
/// - Buffered (`bounded`, `unbounded`): the network side hands each event to a buffer at once
///   and reads on; the app takes them off at its pace. A full buffer drops its oldest event
///   (counted). The buffer's peak is recorded: with a slow app and an unbounded buffer it grows
///   with the burst.
/// - `pull`: no buffer; the app handles each event before the network side reads the next, so
///   the transport's flow control (TCP's window, HTTP/2's for gRPC) holds the server back and
///   the backlog stays in the server's queue.
final class EventInbox: Sendable {
    struct Event: Sendable {
        var sequence: UInt64
        var payloadBytes: Int
    }

    let ledger: DeviceLedger
    let clock: BenchClock
    let mode: ClientSettings.ReceiveBuffer
    let consumer: ClientSettings.Consumer?
    /// The most events the buffer holds (nil in pull mode).
    private let capacity: Int?
    private let buffer = Mutex(Buffer())

    /// The events between the network and the app, oldest first, each held once, with their
    /// payload bytes; and the app, when it waits for the next. Counted under the same lock as
    /// the events move, so that the peak is the buffer's own count: a count kept by the app as
    /// it takes an event lagged behind, and a full buffer of 64 looked like 65.
    private struct Buffer {
        var events = CircularBuffer<Event>()
        var bytes = 0
        /// The app, waiting for an event (the buffer is empty then).
        var app: CheckedContinuation<Event?, Never>?
        /// No event comes any more; the app takes what is left, then stops.
        var finished = false
    }

    init(ledger: DeviceLedger, clock: BenchClock, mode: ClientSettings.ReceiveBuffer, consumer: ClientSettings.Consumer?) {
        self.ledger = ledger
        self.clock = clock
        self.mode = mode
        self.consumer = consumer
        switch mode {
        case .pull: capacity = nil
        case .bounded(let limit): capacity = limit
        case .unbounded: capacity = ClientSettings.ReceiveBuffer.unboundedSafetyLimit
        }
    }

    /// The network side has read `event`: buffered, it waits for the app (the oldest dropped
    /// when full), or goes to the app at once if it is waiting; pulled, the app handles it
    /// before this returns.
    func deliver(_ event: Event) async {
        guard let capacity else {
            ledger.noteBuffered(events: 1, bytes: event.payloadBytes)
            await handle(event)
            return
        }
        // Off the network: a new connection resumes after it, even while it waits here.
        ledger.readOffNetwork(event.sequence)
        let outcome = buffer.withLock { buffer -> Delivery in
            guard !buffer.finished else { return Delivery() }
            if let app = buffer.app {
                buffer.app = nil
                return Delivery(waitingApp: app)
            }
            var dropped = false
            if buffer.events.count == capacity, let oldest = buffer.events.popFirst() {
                buffer.bytes -= oldest.payloadBytes
                dropped = true
            }
            buffer.events.append(event)
            buffer.bytes += event.payloadBytes
            return Delivery(events: buffer.events.count, bytes: buffer.bytes, dropped: dropped)
        }
        outcome.waitingApp?.resume(returning: event)
        if outcome.dropped { ledger.countReceiveBufferDrop() }
        ledger.noteBuffered(events: outcome.events, bytes: outcome.bytes)
    }

    /// What a delivery did: handed the event to the app waiting for it, or left the buffer
    /// holding this many events and bytes, having dropped the oldest or not.
    private struct Delivery {
        var waitingApp: CheckedContinuation<Event?, Never>?
        var events = 0
        var bytes = 0
        var dropped = false
    }

    /// The app: takes buffered events at its pace until `finish()` and the buffer is empty, or
    /// until its task is cancelled. Returns at once in pull mode.
    func runApp() async {
        guard capacity != nil else { return }
        while let event = await next() {
            await handle(event)
        }
    }

    func finish() {
        let app = buffer.withLock { buffer in
            buffer.finished = true
            defer { buffer.app = nil }
            return buffer.app
        }
        app?.resume(returning: nil)
    }

    /// The oldest buffered event, or the next to come; nil once finished and empty, or when the
    /// app's task is cancelled while it waits.
    private func next() async -> Event? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: Event?? = buffer.withLock { buffer in
                    if let event = buffer.events.popFirst() {
                        buffer.bytes -= event.payloadBytes
                        return .some(event)
                    }
                    if buffer.finished || Task.isCancelled { return .some(nil) }
                    buffer.app = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let app = buffer.withLock { buffer in
                defer { buffer.app = nil }
                return buffer.app
            }
            app?.resume(returning: nil)
        }
    }

    /// The app handles one event: it takes `1 / rate` seconds with a consumer, none without.
    /// A cancelled wait still hands the event to the app: it came off the network.
    private func handle(_ event: Event) async {
        if let consumer { try? await clock.sleep(until: clock.now() + 1 / consumer.eventsPerSecond) }
        ledger.receive(sequence: event.sequence, at: clock.now())
    }
}
