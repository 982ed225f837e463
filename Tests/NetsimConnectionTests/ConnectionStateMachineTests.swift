import NetsimConnection
import NetsimCore
import NetsimTestSupport
import Testing

/// The connection lifecycle without sockets or a clock: chunks are strings, instants are
/// seconds, and each test feeds the machine what the proxy's channels and device model would
/// report, then checks the actions it returns.
@Suite("Connection state machine", .computes)
struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine<String, Double>

    /// A connection with both sides connected, as the proxy has it once the upstream answered.
    static func openConnection(bufferLimit: Int = 1000) -> Machine {
        var machine = Machine(bufferLimit: bufferLimit)
        machine.attached(.client)
        machine.attached(.upstream)
        #expect(machine.activated(.client) == [])
        #expect(machine.activated(.upstream) == [.resumeReading(.client)])
        #expect(machine.lifecycle == .open)
        return machine
    }

    /// Everything due at `now` in `direction`, as a pass to a writable destination takes it.
    static func deliver(
        _ machine: inout Machine, _ direction: Direction, now: Double, writable: Bool = true
    ) -> [Machine.Line.Item] {
        var items: [Machine.Line.Item] = []
        while let item = machine.nextDelivery(direction, now: now, destinationWritable: writable) { items.append(item) }
        return items
    }

    static func roomy(_: Direction) -> Bool { true }

    // MARK: Opening

    @Test("the client is not read until the upstream connects")
    func clientHeldWhileDialing() {
        var machine = Machine(bufferLimit: 1000)
        machine.attached(.client)
        #expect(machine.activated(.client) == [])
        #expect(machine.mayRead(from: .client, destinationWritable: true, linkHasRoom: Self.roomy) == .hold)
        machine.attached(.upstream)
        #expect(machine.activated(.upstream) == [.resumeReading(.client)])
        #expect(machine.mayRead(from: .client, destinationWritable: true, linkHasRoom: Self.roomy) == .read)
    }

    @Test("an unreachable upstream resets the client at once and finishes the connection once the client goes")
    func upstreamUnreachable() {
        var machine = Machine(bufferLimit: 1000)
        machine.attached(.client)
        _ = machine.activated(.client)
        machine.attached(.upstream)
        #expect(machine.upstreamUnreachable() == [.reportUpstreamRefused, .abort(.client)])
        #expect(machine.lifecycle == .closing)
        #expect(machine.inactive(.client) == [.finish(cleanly: false)])
    }

    /// Regression (a86e88e): a failed upstream connect left its connection record behind when
    /// the client was not active yet, since a channel that never became active gets no
    /// `channelInactive`.
    @Test("an unreachable upstream before the client is active finishes the connection there and then")
    func upstreamUnreachableBeforeTheClientIsActive() {
        var machine = Machine(bufferLimit: 1000)
        machine.attached(.client)
        machine.attached(.upstream)
        #expect(machine.upstreamUnreachable() == [.reportUpstreamRefused, .abort(.client), .finish(cleanly: false)])
        // The client's activation, still on its way, closes it.
        #expect(machine.activated(.client) == [.close(.client)])
    }

    // MARK: Bytes

    @Test("bytes go in order at the model's times, through the timer unless due already")
    func bytesInOrder() {
        var machine = Self.openConnection()
        #expect(machine.bytesRead(from: .client) == .forward(.up))
        #expect(
            machine.bytesScheduled("a", byteCount: 1, .up, verdict: .deliver(at: 5), now: 0) == [.armTimer(.up, at: 5)])
        // The timer is armed: the second chunk waits behind the first, even with an earlier time.
        #expect(machine.bytesScheduled("b", byteCount: 1, .up, verdict: .deliver(at: 3), now: 0) == [])
        #expect(machine.bytesWaiting(.up) == 2)
        #expect(Self.deliver(&machine, .up, now: 4) == [])
        #expect(machine.timerFired(.up) == [.deliver(.up)])
        #expect(Self.deliver(&machine, .up, now: 5) == [.data("a", byteCount: 1), .data("b", byteCount: 1)])
        #expect(
            machine.deliveryPassEnded(.up, destinationWritable: true, linkHasRoom: Self.roomy) == [
                .resumeReading(.client)
            ])
        // Already due (an unshaped link): delivered at once, without the timer's extra hop.
        #expect(machine.bytesScheduled("c", byteCount: 1, .up, verdict: .deliver(at: 6), now: 6) == [.deliver(.up)])
    }

    @Test("an outage ended early moves the latest items earlier, in order, and re-arms the timer")
    func replannedDeliveries() {
        var machine = Self.openConnection()
        _ = machine.bytesScheduled("before", byteCount: 6, .up, verdict: .deliver(at: 2), now: 0)
        _ = machine.bytesScheduled("held", byteCount: 4, .up, verdict: .deliver(at: 40), now: 1)
        #expect(machine.endScheduled(.up, verdict: .deliver(at: 40.5), now: 1) == [])
        #expect(machine.timerFired(.up) == [.deliver(.up)])
        #expect(Self.deliver(&machine, .up, now: 2) == [.data("before", byteCount: 6)])
        #expect(
            machine.deliveryPassEnded(.up, destinationWritable: true, linkHasRoom: Self.roomy) == [
                .armTimer(.up, at: 40), .resumeReading(.client),
            ])
        // Ended at 20: the held chunk and the FIN now come at 21.3 and, never before it, 21.
        #expect(machine.replanned(.up, dues: [21.3, 21], now: 20) == [.cancelTimer(.up), .armTimer(.up, at: 21.3)])
        #expect(machine.timerFired(.up) == [.deliver(.up)])
        #expect(Self.deliver(&machine, .up, now: 21.3) == [.data("held", byteCount: 4), .end])
        // Nothing to move: more dues than items waiting.
        #expect(machine.replanned(.up, dues: [1, 2], now: 22) == [])
    }

    @Test("a RST among the latest items keeps them where they are")
    func replanSkipsAReset() {
        var line = DelayLine<String, Double>()
        line.append(.data("a", byteCount: 1), due: 40)
        line.append(.reset, due: 41)
        let replanned = line.replanLatest([20, 21])
        #expect(!replanned)
        #expect(line.nextDue == 40)
    }

    @Test("a side is held while its line is full, its destination unwritable, or the link's queue full")
    func backpressure() {
        var machine = Self.openConnection(bufferLimit: 10)
        _ = machine.bytesScheduled("0123456789", byteCount: 10, .up, verdict: .deliver(at: 5), now: 0)
        #expect(machine.mayRead(from: .client, destinationWritable: true, linkHasRoom: Self.roomy) == .hold)
        #expect(machine.mayRead(from: .upstream, destinationWritable: false, linkHasRoom: Self.roomy) == .hold)
        // A full link queue asks once to be woken, then holds quietly until it is.
        #expect(
            machine.mayRead(from: .upstream, destinationWritable: true) { _ in false } == .holdUntilLinkHasRoom(.down))
        #expect(machine.mayRead(from: .upstream, destinationWritable: true) { _ in false } == .hold)
        #expect(machine.linkMayHaveRoom(.down, destinationWritable: true) { _ in false } == [.waitForRoom(.down)])
        #expect(
            machine.linkMayHaveRoom(.down, destinationWritable: true, linkHasRoom: Self.roomy) == [
                .resumeReading(.upstream)
            ])
    }

    /// Regression (8539449): a delivery pass to an unwritable peer re-armed its timer and spun;
    /// delivery resumes when the peer becomes writable again.
    @Test("an unwritable destination stops the pass and resumes it when writable, without a timer")
    func unwritableDestination() {
        var machine = Self.openConnection()
        _ = machine.bytesScheduled("a", byteCount: 1, .down, verdict: .deliver(at: 1), now: 2)
        #expect(Self.deliver(&machine, .down, now: 2, writable: false) == [])
        #expect(machine.deliveryPassEnded(.down, destinationWritable: false, linkHasRoom: Self.roomy) == [])
        #expect(machine.writabilityChanged(of: .client, isWritable: false) == [])
        #expect(
            machine.writabilityChanged(of: .client, isWritable: true) == [.deliver(.down), .resumeReading(.upstream)])
        #expect(Self.deliver(&machine, .down, now: 2) == [.data("a", byteCount: 1)])
    }

    // MARK: Half-close

    @Test("the client's half-close reaches the upstream after its bytes; the upstream's bytes still flow")
    func clientHalfClose() {
        var machine = Self.openConnection()
        _ = machine.bytesScheduled("request", byteCount: 7, .up, verdict: .deliver(at: 1), now: 0)
        #expect(machine.inputClosed(on: .client) == [.sendEnd(.up)])
        // The FIN gets an earlier time from the model, yet stays behind the bytes.
        #expect(machine.endScheduled(.up, verdict: .deliver(at: 0.5), now: 0) == [])
        #expect(Self.deliver(&machine, .up, now: 1) == [.data("request", byteCount: 7), .end])
        // Another FIN from the same side (a repeated event) is not passed on twice.
        #expect(machine.inputClosed(on: .client) == [])
        #expect(machine.outputClosed(towards: .upstream) == [])
        #expect(machine.lifecycle == .open)
        #expect(machine.bytesRead(from: .upstream) == .forward(.down))
        _ = machine.bytesScheduled("reply", byteCount: 5, .down, verdict: .deliver(at: 2), now: 1.5)
        #expect(Self.deliver(&machine, .down, now: 2) == [.data("reply", byteCount: 5)])
    }

    @Test("the upstream's half-close reaches the client; the client may still send")
    func upstreamHalfClose() {
        var machine = Self.openConnection()
        #expect(machine.inputClosed(on: .upstream) == [.sendEnd(.down)])
        #expect(machine.endScheduled(.down, verdict: .deliver(at: 1), now: 0) == [.armTimer(.down, at: 1)])
        #expect(machine.timerFired(.down) == [.deliver(.down)])
        #expect(Self.deliver(&machine, .down, now: 1) == [.end])
        #expect(machine.outputClosed(towards: .client) == [])
        #expect(machine.bytesRead(from: .client) == .forward(.up))
    }

    /// Regression (8539449): the connection was fully closed at the first FIN, cutting the other
    /// direction short.
    @Test("both FINs passed on close both sides, and the connection finishes cleanly")
    func bothFins() {
        var machine = Self.openConnection()
        #expect(machine.inputClosed(on: .client) == [.sendEnd(.up)])
        _ = machine.endScheduled(.up, verdict: .deliver(at: 1), now: 1)
        #expect(Self.deliver(&machine, .up, now: 1) == [.end])
        #expect(machine.outputClosed(towards: .upstream) == [])
        #expect(machine.inputClosed(on: .upstream) == [.sendEnd(.down)])
        _ = machine.endScheduled(.down, verdict: .deliver(at: 2), now: 2)
        #expect(Self.deliver(&machine, .down, now: 2) == [.end])
        #expect(machine.outputClosed(towards: .client) == [.close(.client), .close(.upstream)])
        #expect(machine.lifecycle == .closing)
        #expect(machine.inactive(.client) == [.close(.upstream)])
        #expect(machine.inactive(.upstream) == [.finish(cleanly: true)])
    }

    /// Regression (3ae25a5): a side gone without a FIN was taken for a reset, and echoed bytes
    /// were cut short; NIO closes a channel whose output is shut without an input-closed event.
    @Test("a side gone cleanly without its FIN event passes a FIN on, after its bytes")
    func goneWithoutFinEvent() {
        var machine = Self.openConnection()
        _ = machine.bytesScheduled("last", byteCount: 4, .down, verdict: .deliver(at: 1), now: 0)
        #expect(machine.inactive(.upstream) == [.sendEnd(.down), .resumeReading(.client)])
        _ = machine.endScheduled(.down, verdict: .deliver(at: 1), now: 0)
        #expect(Self.deliver(&machine, .down, now: 1) == [.data("last", byteCount: 4), .end])
        // Its FIN reached the client, and the upstream is gone: the connection is over.
        #expect(machine.outputClosed(towards: .client) == [.close(.client)])
    }

    // MARK: Resets

    @Test("a reset from the device aborts both sides and drops what waits")
    func deviceReset() {
        var machine = Self.openConnection()
        _ = machine.bytesScheduled("a", byteCount: 1, .up, verdict: .deliver(at: 5), now: 0)
        #expect(machine.reset() == [.cancelTimer(.up), .abort(.client), .abort(.upstream), .reportReset])
        #expect(machine.lifecycle == .closing)
        #expect(machine.bytesWaiting(.up) == 0)
        #expect(machine.reset() == [])
        #expect(machine.bytesRead(from: .client) == .drop([]))
        // The client's abort reports it gone before the upstream's abort comes: a RST still.
        #expect(machine.inactive(.client) == [.abort(.upstream)])
        #expect(machine.inactive(.upstream) == [.finish(cleanly: false)])
    }

    @Test("the model's reset verdict for a chunk resets the connection")
    func resetVerdict() {
        var machine = Self.openConnection()
        #expect(
            machine.bytesScheduled("a", byteCount: 1, .up, verdict: .reset, now: 0) == [
                .abort(.client), .abort(.upstream), .reportReset,
            ])
    }

    /// Regression (a86e88e): an upstream's RST reached the client as a FIN.
    @Test("an upstream's RST reaches the client as a RST, after the bytes before it")
    func upstreamReset() {
        var machine = Self.openConnection()
        _ = machine.bytesScheduled("a", byteCount: 1, .down, verdict: .deliver(at: 2), now: 0)
        machine.failedWithReset(.upstream)
        #expect(machine.inactive(.upstream) == [.sendReset(.down), .resumeReading(.client)])
        // The RST skips the link's queue (due at 1), but not the bytes still before it.
        #expect(machine.resetScheduled(.down, due: 1, now: 0) == [])
        #expect(machine.timerFired(.down) == [.deliver(.down)])
        #expect(Self.deliver(&machine, .down, now: 2) == [.data("a", byteCount: 1), .reset])
        #expect(machine.lifecycle == .closing)
        #expect(machine.inactive(.client) == [.finish(cleanly: false)])
    }

    @Test("a client's RST drops what it had not sent and reaches the upstream as a RST")
    func clientReset() {
        var machine = Self.openConnection()
        _ = machine.bytesScheduled("unsent", byteCount: 6, .up, verdict: .deliver(at: 2), now: 0)
        _ = machine.bytesScheduled("reply", byteCount: 5, .down, verdict: .deliver(at: 2), now: 0)
        machine.failedWithReset(.client)
        #expect(
            machine.inactive(.client) == [
                .cancelTimer(.down), .cancelTimer(.up), .sendReset(.up), .resumeReading(.upstream),
            ])
        #expect(machine.resetScheduled(.up, due: 1, now: 0) == [.armTimer(.up, at: 1)])
        #expect(Self.deliver(&machine, .up, now: 1) == [.reset])
    }

    /// Regression (3ae25a5): a RST queued after dropped bytes waited for the dropped bytes' time,
    /// and one for a peer that stopped reading waited for it to become writable.
    @Test("a RST is never held by dropped bytes or by an unwritable peer")
    func resetNeverStuck() {
        var machine = Self.openConnection()
        _ = machine.bytesScheduled("late", byteCount: 4, .up, verdict: .deliver(at: 100), now: 0)
        machine.failedWithReset(.client)
        _ = machine.inactive(.client)
        #expect(machine.resetScheduled(.up, due: 1, now: 0) == [.armTimer(.up, at: 1)])
        #expect(Self.deliver(&machine, .up, now: 1, writable: false) == [.reset])
    }

    @Test("a RST next in line keeps its timer armed when the peer stops taking bytes")
    func resetTimerWithUnwritablePeer() {
        var machine = Self.openConnection()
        _ = machine.bytesScheduled("a", byteCount: 1, .down, verdict: .deliver(at: 1), now: 0)
        machine.failedWithReset(.upstream)
        _ = machine.inactive(.upstream)
        #expect(machine.resetScheduled(.down, due: 2, now: 0) == [])
        #expect(machine.timerFired(.down) == [.deliver(.down)])
        #expect(Self.deliver(&machine, .down, now: 1) == [.data("a", byteCount: 1)])
        // The client stopped reading after "a": data would wait for it, the RST does not.
        #expect(
            machine.deliveryPassEnded(.down, destinationWritable: false, linkHasRoom: Self.roomy) == [
                .armTimer(.down, at: 2)
            ])
        #expect(Self.deliver(&machine, .down, now: 2, writable: false) == [.reset])
    }

    /// Regression (a86e88e): a client that left while the upstream still sent pinned the
    /// upstream: nothing read it any more.
    @Test("a gone side never pins the other: what the other sends is read, dropped and answered with one RST")
    func goneSideNeverPins() {
        var machine = Self.openConnection()
        _ = machine.inputClosed(on: .client)
        _ = machine.endScheduled(.up, verdict: .deliver(at: 0), now: 0)
        _ = Self.deliver(&machine, .up, now: 0)
        #expect(machine.inactive(.client) == [.resumeReading(.upstream)])
        #expect(machine.mayRead(from: .upstream, destinationWritable: false) { _ in false } == .read)
        // The RST goes up, to the upstream, once: it is the gone client's stack answering.
        #expect(machine.bytesRead(from: .upstream) == .drop([.sendReset(.up)]))
        #expect(machine.resetScheduled(.up, due: 1, now: 0) == [.armTimer(.up, at: 1)])
        #expect(machine.bytesRead(from: .upstream) == .drop([]))
    }

    // MARK: Silence

    @Test("a blackhole drops what waits, tells nobody, and reads each side until its bytes are swallowed")
    func blackhole() {
        var machine = Self.openConnection()
        _ = machine.bytesScheduled("a", byteCount: 1, .down, verdict: .deliver(at: 5), now: 0)
        #expect(
            machine.silence() == [
                .cancelTimer(.down), .reportSilenced, .resumeReading(.client), .resumeReading(.upstream),
            ])
        #expect(machine.lifecycle == .silenced)
        #expect(machine.mayRead(from: .client, destinationWritable: false) { _ in false } == .read)
        // The client's bytes go nowhere: its TCP will give up on them (armed once).
        #expect(machine.bytesRead(from: .client) == .drop([.armGiveUp(.client)]))
        #expect(machine.bytesRead(from: .client) == .drop([]))
        #expect(Self.deliver(&machine, .down, now: 10) == [])
        // A second silence from the device changes nothing.
        #expect(machine.silence() == [])
        // Each side gives up on its own; nothing is passed on.
        #expect(machine.inactive(.client) == [])
        #expect(machine.inactive(.upstream) == [.finish(cleanly: false)])
    }

    /// Found by a blackhole soak: 2,000 silenced connections held 180 KB each, their clients'
    /// bytes read into buffers only to be dropped, and a client that closed kept its socket
    /// until its give-up, 924.6 s later.
    @Test("a silenced side is held once its bytes are swallowed, and failed at once when it closes")
    func silencedSidesHoldNoBuffers() {
        var machine = Self.openConnection()
        _ = machine.silence()
        #expect(machine.bytesRead(from: .client) == .drop([.armGiveUp(.client)]))
        // Its later bytes wait in its own socket, as unacknowledged bytes wait in its TCP.
        #expect(machine.mayRead(from: .client, destinationWritable: true, linkHasRoom: Self.roomy) == .hold)
        #expect(machine.mayRead(from: .upstream, destinationWritable: true, linkHasRoom: Self.roomy) == .read)
        // The client closes: its FIN can never be acknowledged, and it is failed now.
        #expect(machine.inputClosed(on: .client) == [.abort(.client)])
        #expect(machine.inactive(.client) == [])
        // The server is told nothing and keeps its socket until it closes or gives up itself.
        #expect(machine.inputClosed(on: .upstream) == [.abort(.upstream)])
        #expect(machine.inactive(.upstream) == [.finish(cleanly: false)])
    }

    @Test("a connection forgotten by the NAT goes silent at the model's discard verdict")
    func natExpiry() {
        var machine = Self.openConnection()
        #expect(machine.bytesRead(from: .client) == .forward(.up))
        #expect(
            machine.bytesScheduled("after idle", byteCount: 10, .up, verdict: .discard, now: 600) == [
                .reportSilenced, .resumeReading(.client), .resumeReading(.upstream), .armGiveUp(.client),
            ])
        #expect(machine.lifecycle == .silenced)
        #expect(machine.bytesWaiting(.up) == 0)
        // A FIN after the expiry is discarded too: the server, which closed, is failed at once.
        #expect(machine.endScheduled(.down, verdict: .discard, now: 601) == [.abort(.upstream)])
    }

    /// The proxy's sides are loopback sockets whose TCP never times out; a real phone's gives up
    /// on bytes a dead path swallows after `tcp_retries2` (924.6 s). Found by `netsim tune
    /// keepalive --verify`: a grpc-swift client waiting on a connection silenced before its
    /// HTTP/2 handshake completed waited for ever, where the model's reconnected.
    @Test("a side whose bytes a blackhole swallowed fails when its TCP would give up")
    func giveUpAfterTheBlackholeSwallowedBytes() {
        var machine = Self.openConnection()
        _ = machine.silence()
        #expect(machine.gaveUp(.client) == [.abort(.client)])
        #expect(machine.bytesRead(from: .upstream) == .drop([.armGiveUp(.upstream)]))
        #expect(machine.inactive(.client) == [])
        #expect(machine.gaveUp(.client) == [])
        #expect(machine.gaveUp(.upstream) == [.abort(.upstream)])
        #expect(machine.inactive(.upstream) == [.finish(cleanly: false)])
        // Once the connection is over a late give-up does nothing.
        #expect(machine.gaveUp(.upstream) == [])
    }

    @Test("a blackhole while dialing keeps the client read and dropped")
    func blackholeWhileDialing() {
        var machine = Machine(bufferLimit: 1000)
        machine.attached(.client)
        _ = machine.activated(.client)
        #expect(machine.silence() == [.reportSilenced, .resumeReading(.client)])
        machine.attached(.upstream)
        #expect(machine.activated(.upstream) == [])
        #expect(machine.bytesRead(from: .client) == .drop([.armGiveUp(.client)]))
    }

    // MARK: Closing

    /// A connection the end of the run cuts unfinished resets both sides, so that a client
    /// reading to EOF never takes the truncated transfer for the whole; a side reported gone
    /// first (its close is synchronous) leaves a RST for the other too.
    @Test("the run's end resets both sides of an unfinished connection and drops what waits")
    func cutWhileBytesDue() {
        var machine = Self.openConnection()
        _ = machine.bytesScheduled("a", byteCount: 1, .up, verdict: .deliver(at: 5), now: 0)
        _ = machine.bytesScheduled("b", byteCount: 1, .down, verdict: .deliver(at: 6), now: 0)
        #expect(machine.cut() == [.cancelTimer(.up), .cancelTimer(.down), .abort(.client), .abort(.upstream)])
        #expect(Self.deliver(&machine, .up, now: 10) == [])
        #expect(machine.timerFired(.up) == [.deliver(.up)])
        #expect(machine.delivers == false)
        #expect(machine.inactive(.client) == [.abort(.upstream)])
        #expect(machine.inactive(.upstream) == [.finish(cleanly: false)])
    }

    @Test("the run's end resets a half-closed, a silenced and a dialing connection, and leaves a closing one")
    func cutInEveryLifecycle() {
        var halfClosed = Self.openConnection()
        _ = halfClosed.inputClosed(on: .client)
        #expect(halfClosed.cut() == [.abort(.client), .abort(.upstream)])
        var silenced = Self.openConnection()
        _ = silenced.silence()
        #expect(silenced.cut() == [.abort(.client), .abort(.upstream)])
        var dialing = Machine(bufferLimit: 100)
        dialing.attached(.client)
        _ = dialing.activated(.client)
        dialing.attached(.upstream)
        #expect(dialing.cut() == [.abort(.client), .abort(.upstream)])
        var reset = Self.openConnection()
        _ = reset.reset()
        #expect(reset.cut() == [])
    }

    @Test("a side gone while its peer's bytes are due: they are dropped, its own still go")
    func goneWhileBytesDue() {
        var machine = Self.openConnection()
        _ = machine.bytesScheduled("to upstream", byteCount: 11, .up, verdict: .deliver(at: 5), now: 0)
        _ = machine.bytesScheduled("to client", byteCount: 9, .down, verdict: .deliver(at: 5), now: 0)
        #expect(machine.inactive(.client) == [.cancelTimer(.down), .sendEnd(.up), .resumeReading(.upstream)])
        #expect(machine.bytesWaiting(.down) == 0)
        _ = machine.endScheduled(.up, verdict: .deliver(at: 5), now: 0)
        #expect(Self.deliver(&machine, .up, now: 5) == [.data("to upstream", byteCount: 11), .end])
    }
}

@Suite("Delay line", .computes)
struct DelayLineTests {
    @Test("items leave in order, each no earlier than those before it, and count their bytes")
    func order() {
        var line = DelayLine<String, Double>()
        line.append(.data("a", byteCount: 1), due: 5)
        line.append(.data("bc", byteCount: 2), due: 3)
        line.append(.end, due: 4)
        #expect(line.bytes == 3)
        #expect(line.nextDue == 5)
        #expect(line.popDue(now: 4.9) == nil)
        #expect(line.popDue(now: 5) == .data("a", byteCount: 1))
        #expect(line.popDue(now: 5) == .data("bc", byteCount: 2))
        #expect(line.popDue(now: 5) == .end)
        #expect(line.isEmpty)
        #expect(line.bytes == 0)
    }

    @Test("many items pass through in order across the queue's compaction")
    func manyItems() {
        var line = DelayLine<Int, Double>()
        var popped: [Int] = []
        for round in 0..<10 {
            for index in 0..<100 { line.append(.data(round * 100 + index, byteCount: 1), due: Double(round)) }
            for _ in 0..<70 {
                if case .data(let value, _) = line.popDue(now: Double(round)) { popped.append(value) }
            }
        }
        while case .data(let value, _) = line.popDue(now: 10) { popped.append(value) }
        #expect(popped == Array(0..<1000))
        #expect(line.bytes == 0)
    }

    @Test("what is queued after removeAll is not held back by what was dropped")
    func removeAllForgetsTheLastTime() {
        var line = DelayLine<String, Double>()
        line.append(.data("dropped", byteCount: 7), due: 100)
        line.removeAll()
        line.append(.reset, due: 1)
        #expect(line.nextIsReset)
        #expect(line.popDue(now: 1) == .reset)
    }
}

extension ConnectionStateMachineTests {
    /// Clean closes were never recorded (`finished: false`, no FIN in the capture).
    /// The second FIN goes to a side whose input is closed; NIO closes that channel fully, and
    /// its `inactive` came before the output close's completion. Both FINs were passed on.
    @Test("both FINs passed on finish cleanly even when the last side goes before its close completes")
    func secondFinToAHalfClosedSide() {
        var machine = Self.openConnection()
        // The server answers and closes first.
        #expect(machine.inputClosed(on: .upstream) == [.sendEnd(.down)])
        _ = machine.endScheduled(.down, verdict: .deliver(at: 1), now: 1)
        #expect(Self.deliver(&machine, .down, now: 1) == [.end])
        #expect(machine.outputClosed(towards: .client) == [])
        // The client reads the FIN and closes: its channel is gone at once (both halves shut).
        #expect(machine.inputClosed(on: .client) == [.sendEnd(.up)])
        #expect(machine.endScheduled(.up, verdict: .deliver(at: 2), now: 2) == [.deliver(.up)])
        #expect(machine.inactive(.client) == [.resumeReading(.upstream)])
        #expect(Self.deliver(&machine, .up, now: 2) == [.end])
        // The upstream's output close became a full close: it is gone before that close completes.
        #expect(machine.inactive(.upstream) == [.finish(cleanly: true)])
        #expect(machine.outputClosed(towards: .upstream) == [])
    }

    @Test("a side reset after both FINs were handed over does not finish cleanly")
    func finsThenReset() {
        var machine = Self.openConnection()
        _ = machine.inputClosed(on: .upstream)
        _ = machine.endScheduled(.down, verdict: .deliver(at: 1), now: 1)
        _ = Self.deliver(&machine, .down, now: 1)
        _ = machine.inputClosed(on: .client)
        _ = machine.endScheduled(.up, verdict: .deliver(at: 2), now: 2)
        _ = Self.deliver(&machine, .up, now: 2)
        machine.failedWithReset(.client)
        _ = machine.inactive(.client)
        #expect(machine.inactive(.upstream) == [.finish(cleanly: false)])
    }
}
