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
    /// Events and payload bytes in the buffer now.
    private let held = Mutex((events: 0, bytes: 0))

    init(ledger: DeviceLedger, clock: BenchClock, mode: ClientSettings.ReceiveBuffer, consumer: ClientSettings.Consumer?) {
        self.ledger = ledger
        self.clock = clock
        self.mode = mode
        self.consumer = consumer
        switch mode {
        case .pull: buffer = nil
        case .bounded(let limit): buffer = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(limit))
        case .unbounded:
            buffer = AsyncStream.makeStream(
                of: Event.self, bufferingPolicy: .bufferingNewest(ClientSettings.ReceiveBuffer.unboundedSafetyLimit))
        }
    }

    /// The network side has read `event`: buffered, it waits for the app (the oldest dropped
    /// when full); pulled, the app handles it before this returns.
    func deliver(_ event: Event) async {
        guard let input = buffer?.continuation else {
            ledger.noteBuffered(events: 1, bytes: event.payloadBytes)
            await handle(event)
            networkOffset.raise(to: event.sequence)
            return
        }
        networkOffset.raise(to: event.sequence)
        let result = input.yield(event)
        let dropped: Event?
        if case .dropped(let oldest) = result { dropped = oldest } else { dropped = nil }
        if dropped != nil { ledger.countReceiveBufferDrop() }
        let now = held.withLock { held in
            held.events += dropped == nil ? 1 : 0
            held.bytes += event.payloadBytes - (dropped?.payloadBytes ?? 0)
            return held
        }
        ledger.noteBuffered(events: now.events, bytes: now.bytes)
    }

    /// The app: takes buffered events at its pace until `finish()`. Returns at once in pull mode.
    func runApp() async {
        guard let events = buffer?.stream else { return }
        for await event in events {
            held.withLock { held in
                held.events -= 1
                held.bytes -= event.payloadBytes
            }
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
