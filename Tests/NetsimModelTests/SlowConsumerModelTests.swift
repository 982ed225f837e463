import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@testable import NetsimModel

/// A slow consumer (`ClientSettings.Consumer`) and the receive buffers in the model engine, as
/// the live bench's `EventInbox` and `LiveRESTTransport` play them (docs/strategies.md section 5),
/// against hand-computed figures: the app's inbox and the server's flow-control window as
/// values, then whole devices on a wired link (no radio: 25 ms one way, 100 Mbit/s, no jitter),
/// where a burst of 256-byte events at 10,000 a second arrives 0.1 ms apart, each in about
/// 25 µs.
@Suite(.computes)
struct SlowConsumerModelTests {
    static func event(_ sequence: UInt64, connection: ConnectionID = ConnectionID(1)) -> AppInbox.Event {
        AppInbox.Event(sequence: sequence, payloadBytes: 256, windowBytes: 300, connection: connection)
    }

    // MARK: The inbox and the window as values

    /// A burst of 10 events at once into a bounded buffer of 4, an app at 2 a second: it takes
    /// event 1 (done at 0.5 s); 2 to 5 fill the buffer, 6 to 10 each drop the oldest (5 drops:
    /// events 2 to 6), leaving 7 to 10, handled at 1.0, 1.5, 2.0 and 2.5 s. The buffer held at
    /// most 4 events (1,024 bytes).
    @Test func aBurstIntoABoundedBufferDropsTheOldestAndStaysFlat() {
        let consumer = ClientSettings.Consumer(eventsPerSecond: 2)
        var inbox = AppInbox(.bounded(4), handlingSeconds: 1 / consumer.eventsPerSecond)
        #expect(inbox.arrived(Self.event(1), at: 0).handlingUntil == 0.5)
        var drops: [Int] = []
        for sequence in UInt64(2)...10 {
            _ = inbox.arrived(Self.event(sequence), at: 0)
            drops.append(inbox.drops)
        }
        #expect(drops == [0, 0, 0, 0, 1, 2, 3, 4, 5])
        #expect(inbox.drops == 5 && inbox.peakEvents == 4 && inbox.peakBytes == 1024)
        var delivered: [(UInt64, Double)] = []
        var time = 0.5
        while true {
            let (done, next) = inbox.finish(at: time)
            if let done { delivered.append((done.sequence, time)) }
            guard let next else { break }
            time = next.handlingUntil
        }
        #expect(delivered.map(\.0) == [1, 7, 8, 9, 10])
        #expect(delivered.map(\.1) == [0.5, 1.0, 1.5, 2.0, 2.5])
    }

    /// Pulling, the app holds only the event it handles; the rest wait unread in the transport,
    /// each read when the app takes it, and those unread on a connection that ends are gone.
    @Test func aPullingAppHoldsOneEventAndReadsTheNextWhenDone() {
        var inbox = AppInbox(.pull, handlingSeconds: 0.1)
        let first = inbox.arrived(Self.event(1), at: 1)
        #expect(first.handlingUntil == 1.1 && first.read?.sequence == 1)
        #expect(inbox.arrived(Self.event(2), at: 1.01) == AppInbox.Arrival(handlingUntil: nil, read: nil))
        #expect(inbox.arrived(Self.event(3), at: 1.02).read == nil)
        let (done, next) = inbox.finish(at: 1.1)
        #expect(done?.sequence == 1 && next?.event.sequence == 2 && next?.read == true)
        #expect(inbox.peakEvents == 1 && inbox.peakBytes == 256 && inbox.drops == 0)
        inbox.connectionEnded(ConnectionID(1))
        #expect(inbox.finish(at: 1.2).next == nil)
    }

    /// A window of 1,000 bytes and events of 300: three go, the fourth waits in the server's
    /// queue until a read makes room for it; a new connection starts with an open window.
    @Test func theWindowHoldsTheServerBackUntilTheAppReads() {
        var window = FlowWindow(capacity: 1000)
        let id = ConnectionID(1)
        #expect((1...5).map { window.offer(UInt64($0), bytes: 300, on: id) } == [true, true, true, false, false])
        #expect(window.heldCount == 2 && window.unread == 900)
        #expect(window.read(300, on: id) == [4])
        #expect(window.read(300, on: ConnectionID(2)) == [])
        #expect(window.read(600, on: id) == [5])
        #expect(window.offer(6, bytes: 300, on: ConnectionID(2)) && window.unread == 300 && window.heldCount == 0)
    }

    // MARK: Whole devices

    static func wired() throws -> Profile {
        let yaml = """
            name: wired-test
            description: A wired link, 25 ms one way, no radio.
            networks:
              wired: {radio: none, link: {delay: 25ms, down: {rate: 100mbps}, up: {rate: 100mbps}}}
            """
        return try ProfileLoader.load(yaml: yaml, source: "wired.yaml") { _ in "" }
    }

    /// One device of `transport`: `events` events from 1 s at 10,000 a second and nothing else,
    /// an app handling `rate` a second behind `buffer`.
    static func play(
        _ transport: BenchTransport, events: Int, rate: Double?, buffer: ClientSettings.ReceiveBuffer
    ) throws -> (DeviceRecords, end: Double) {
        var configuration = BenchPlan(profile: try wired())
        configuration.transports = [transport]
        configuration.devices = 1
        configuration.duration = 2
        configuration.workload = ModelEngineTests.idleWorkload
        configuration.workload.serverBurst = .init(at: 1, events: events, eventsPerSecond: 10_000)
        configuration.client.consumer = rate.map { ClientSettings.Consumer(eventsPerSecond: $0) }
        configuration.client.ws.receiveBuffer = buffer
        configuration.client.grpc.receiveBuffer = buffer
        var records: [DeviceRecords] = []
        let result = ModelEngine.run(configuration, records: { _, _, handed in records.append(handed) })
        return (try #require(records.first), result.endSeconds)
    }

    /// 100 events into a WebSocket app behind a buffer of 5 at 10 a second: the whole burst
    /// arrives (from about 1.025 s, over 10 ms) while the app handles event 1, so 2 to 100 meet
    /// a buffer of 5: 94 dropped, 96 to 100 kept, 6 delivered, the last at 1.025 + 0.6 s.
    @Test func aWebSocketBurstIntoABoundedBufferDropsAndStaysFlat() throws {
        let (records, _) = try Self.play(.ws, events: 100, rate: 10, buffer: .bounded(5))
        #expect(records.app.receiveBufferDrops == 94)
        #expect(records.app.peakBufferedEvents == 5 && records.app.peakBufferedBytes == 5 * 256)
        #expect(records.deliveryFigures.events.delivered == 6)
        #expect(records.app.events.hasArrived(100) && !records.app.events.hasArrived(95))
    }

    /// Unbounded, nothing is dropped and the buffer grows with the burst: 99 events wait while
    /// the app handles the first; the last is handled 100 × 0.1 s after the first arrived, at
    /// about 11.025 s, when the run (settled) stops.
    @Test func anUnboundedBufferGrowsWithTheBurstAndTheAppSetsThePace() throws {
        let (records, end) = try Self.play(.grpc, events: 100, rate: 10, buffer: .unbounded)
        #expect(records.app.receiveBufferDrops == 0)
        #expect(records.app.peakBufferedEvents == 99 && records.app.peakBufferedBytes == 99 * 256)
        #expect(records.deliveryFigures.events.delivered == 100)
        #expect(abs(end - 11.025) < 0.002, "stopped at \(end)")
    }

    /// Pulling over gRPC, HTTP/2's 65,535-byte window holds the server back. An event's DATA
    /// payload is 278 bytes up to sequence 127 and 279 after (its varint grows): 127 × 278 +
    /// 108 × 279 = 65,438 bytes, so events 1 to 235 go and 236 waits. The app reads event 1 as
    /// it arrives (about 1.025 s) and one more every 10 ms (100 a second), each read letting one
    /// held event go: 8 reads by the burst's last event (1.0999 s), so the server has handed
    /// over 243 and holds 757 when it creates event 1,000. The app holds one event; nothing is
    /// dropped; the last is handled 1,000 × 10 ms after the first arrived.
    @Test func aPullingGRPCAppHoldsOneEventAndTheServerQueueHoldsTheBacklog() throws {
        let (records, end) = try Self.play(.grpc, events: 1000, rate: 100, buffer: .pull)
        #expect(records.server.peakQueuedEvents == 757)
        #expect(records.app.peakBufferedEvents == 1 && records.app.peakBufferedBytes == 256)
        #expect(records.app.receiveBufferDrops == 0)
        #expect(records.deliveryFigures.events.delivered == 1000)
        #expect(abs(end - 11.025) < 0.002, "stopped at \(end)")
    }

    /// Pulling over a WebSocket, the socket buffers (6 MiB) take the whole burst: the server's
    /// queue holds only the event it is creating, and the app's pace alone sets the end.
    @Test func aPullingWebSocketAppLeavesTheBacklogInTheSocketBuffers() throws {
        let (records, end) = try Self.play(.ws, events: 1000, rate: 100, buffer: .pull)
        #expect(records.server.peakQueuedEvents == 1)
        #expect(records.app.peakBufferedEvents == 1)
        #expect(records.deliveryFigures.events.delivered == 1000)
        #expect(abs(end - 11.025) < 0.002, "stopped at \(end)")
    }

    /// REST: the app works through a poll's answer (at most 100 events) at its pace before it
    /// polls again. The burst (250 events, 1.0 to 1.025 s) is first answered at about 1.103 s:
    /// the poll a second after the empty answer to the first (its connection's handshake and
    /// the request, two round trips of 50 ms). At 50 a second the app handles answers of 100,
    /// 100 and 50 in 2, 2 and 1 s, polling again (one round trip) after each full one: the
    /// last event is handled at about 1.103 + 5 + 0.1 = 6.206 s, when the run, settled, stops
    /// (without a consumer, at its 2 s duration). The app held one answer at most; the server's
    /// queue peaked at 250 (no poll answered during the burst).
    @Test func aRESTAppWorksThroughEachAnswerBeforeItPollsAgain() throws {
        let (records, end) = try Self.play(.rest, events: 250, rate: 50, buffer: .pull)
        #expect(records.app.peakBufferedEvents == 100 && records.app.peakBufferedBytes == 100 * 256)
        #expect(records.server.peakQueuedEvents == 250)
        #expect(records.deliveryFigures.events.delivered == 250)
        #expect(abs(end - 6.206) < 0.01, "stopped at \(end)")
        let (unpaced, unpacedEnd) = try Self.play(.rest, events: 250, rate: nil, buffer: .pull)
        #expect(unpaced.deliveryFigures.events.delivered == 250 && unpacedEnd == 2)
    }

    /// Without a consumer nothing changes: each event reaches the app as it arrives, no peaks
    /// are kept and the server's queue is not watched.
    @Test func withoutAConsumerEachEventIsHandledAtOnce() throws {
        let (records, end) = try Self.play(.grpc, events: 1000, rate: nil, buffer: .pull)
        #expect(records.app.peakBufferedEvents == 0 && records.server.peakQueuedEvents == 0)
        #expect(records.deliveryFigures.events.delivered == 1000)
        #expect(end == 2, "stopped at \(end)")
    }
}
