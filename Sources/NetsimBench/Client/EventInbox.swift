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
    /// The highest sequence that came off the network: where a new connection resumes, even
    /// while some of those events still wait in the buffer.
    let networkOffset = HighestSequence()
    private let buffer: (stream: AsyncStream<Event>, continuation: AsyncStream<Event>.Continuation)?
    /// The payload sizes of the events the buffer holds, oldest first, and their sum: the
    /// stream keeps the newest `capacity` events and hands the oldest to the app, so after each
    /// yield the buffer is the newest events it says it holds. Counted from the stream's own
    /// answer, not by the app as it takes an event, which would lag behind it: an event taken
    /// but not yet counted made a full buffer of 64 look like 65.
    private let held = Mutex((sizes: CircularBuffer<Int>(), bytes: 0))
    /// The most events the buffer holds (nil in pull mode).
    private let capacity: Int?

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
        buffer = capacity.map { AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest($0)) }
    }

    /// The network side has read `event`: buffered, it waits for the app (the oldest dropped
    /// when full); pulled, the app handles it before this returns.
    func deliver(_ event: Event) async {
        guard let input = buffer?.continuation, let capacity else {
            ledger.noteBuffered(events: 1, bytes: event.payloadBytes)
            await handle(event)
            networkOffset.raise(to: event.sequence)
            return
        }
        networkOffset.raise(to: event.sequence)
        let now = held.withLock { held in
            // Under the lock, so that yields and the sizes stay in the same order.
            let holding: Int
            let dropped: Bool
            switch input.yield(event) {
            case .enqueued(let remaining): (holding, dropped) = (capacity - remaining, false)
            case .dropped: (holding, dropped) = (capacity, true)
            case .terminated: (holding, dropped) = (0, false)
            @unknown default: (holding, dropped) = (held.sizes.count, false)
            }
            held.sizes.append(event.payloadBytes)
            held.bytes += event.payloadBytes
            while held.sizes.count > holding, let oldest = held.sizes.popFirst() { held.bytes -= oldest }
            return (events: held.sizes.count, bytes: held.bytes, dropped: dropped)
        }
        if now.dropped { ledger.countReceiveBufferDrop() }
        ledger.noteBuffered(events: now.events, bytes: now.bytes)
    }

    /// The app: takes buffered events at its pace until `finish()`. Returns at once in pull mode.
    func runApp() async {
        guard let events = buffer?.stream else { return }
        for await event in events {
            await handle(event)
        }
    }

    func finish() { buffer?.continuation.finish() }

    /// The app handles one event: it takes `1 / rate` seconds with a consumer, none without.
    /// A cancelled wait still hands the event to the app: it came off the network.
    private func handle(_ event: Event) async {
        if let consumer { try? await clock.sleep(until: clock.now() + 1 / consumer.eventsPerSecond) }
        ledger.receive(sequence: event.sequence, at: clock.now())
    }
}
