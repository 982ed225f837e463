import Logging
import NIOCore
import NetsimCore

/// One client connection and its upstream, carried through the device's radio and links.
///
/// Bytes read from one side are handed to the device model, which says when they reach the
/// other side; they wait in that direction's `DelayLine` until then. A side is read only while
/// the line it feeds has room, its destination is writable and the emulated link's queue is
/// under its limit. A FIN travels like data, after the bytes before it, and so does a RST: a
/// side that is reset (ECONNRESET) is passed on as a RST (SO_LINGER 0), and a side that sends to
/// a side that is gone gets a RST, as the gone side's TCP stack would answer. Lives on its
/// device's event loop, like everything of that device.
final class ProxiedConnection {
    enum Side: CaseIterable {
        /// The app, on the phone.
        case client
        /// The server the app talks to.
        case upstream

        /// The direction of the bytes this side sends.
        var direction: Direction { self == .client ? .up : .down }
        var opposite: Side { self == .client ? .upstream : .client }
    }

    private enum State {
        /// Dialing the upstream: the client is held unread.
        case connecting
        case open
        /// Blackholed or forgotten by the NAT: bytes are read and dropped, nothing reaches either
        /// side, nobody is told.
        case silenced
        /// Reset or fully closed: waiting for both channels to go.
        case closing
    }

    /// One direction: what waits to be delivered and the timer that delivers it.
    private struct Flow {
        var line = DelayLine()
        var timer: Scheduled<Void>?
        var sawEnd = false
        /// The FIN was written after every byte before it.
        var closedOutput = false
    }

    let id: ConnectionID
    private unowned let device: EmulatedDevice
    private var state = State.connecting
    private var channels = BothSides<Channel?>(client: nil, upstream: nil)
    private var handlers = BothSides<ProxySideHandler?>(client: nil, upstream: nil)
    private var flows = BothDirections(up: Flow(), down: Flow())
    /// The sides whose channel is active (connected and not yet closed).
    private var active: Set<Side> = []
    /// The sides that were reset (ECONNRESET or EPIPE): their going is passed on as a RST.
    private var aborted = BothSides(client: false, upstream: false)
    /// The sides a RST is on its way to: what they still send is dropped.
    private var resetQueued = BothSides(client: false, upstream: false)
    /// Waiting for the device to say the link's queue has room, per direction.
    private var waitingForRoom = BothDirections(up: false, down: false)
    /// When the later of the connection's FINs was on the emulated radio (for captures).
    var lastFinOnAir = -Double.infinity

    init(id: ConnectionID, device: EmulatedDevice) {
        self.id = id
        self.device = device
    }

    /// Adds this side's handler to its channel. Call on the device's event loop. The side
    /// counts as open only once its channel is active (`activated`): an upstream channel is
    /// attached before its connect, which may never succeed.
    func attach(_ channel: Channel, as side: Side) throws {
        let handler = ProxySideHandler(side: side, connection: self)
        try channel.pipeline.syncOperations.addHandler(handler)
        channels[side] = channel
        handlers[side] = handler
    }

    /// The upstream could not be reached (refused, reset at once, timed out, no file
    /// descriptor): the client is reset at once, so that the app sees an error as it would
    /// connecting directly, not an empty reply. A channel that never became active gets no
    /// `channelInactive`, so the connection is finished here if the client is not active yet.
    func upstreamUnreachable() {
        state = .closing
        channels[.upstream] = nil
        handlers[.upstream] = nil
        device.upstreamRefused(self)
        if let client = channels[.client] { Self.abort(client) }
        if active.isEmpty { finish() }
    }

    // MARK: Events from the handlers

    func activated(_ side: Side) {
        guard state != .closing else {
            // The connection ended before this side connected (the client left while dialing).
            channels[side]?.close(promise: nil)
            return
        }
        active.insert(side)
        if side == .upstream, state == .connecting {
            state = .open
            handlers[.client]?.resumeReading()
        }
    }

    func received(_ buffer: ByteBuffer, from side: Side) {
        guard state == .open else { return }
        guard channels[side.opposite] != nil else {
            // Bytes for a side that is gone: its stack would answer them with a RST.
            if !resetQueued[side] { passEnding(.reset, from: side.opposite) }
            return
        }
        let direction = side.direction
        switch device.send(buffer, direction, on: self) {
        case .deliver(let delivery):
            flows[direction].line.append(.data(buffer), due: device.clock.deadline(delivery.at))
            armDelivery(direction)
        case .discard:
            silence()
        case .reset:
            reset()
        }
    }

    func mayRead(from side: Side) -> Bool {
        switch state {
        case .connecting, .closing: return false
        case .silenced: return true
        case .open: break
        }
        // The other side is gone: read and drop, so that this side is never left blocked.
        guard channels[side.opposite] != nil else { return true }
        let direction = side.direction
        guard flows[direction].line.bytes < device.options.bufferLimit,
            channels[side.opposite]?.isWritable ?? false
        else { return false }
        guard device.linkHasRoom(direction) else {
            if !waitingForRoom[direction] {
                waitingForRoom[direction] = true
                device.waitForRoom(direction, self)
            }
            return false
        }
        return true
    }

    /// The link's queue in `direction` may have room again (see `EmulatedDevice.waitForRoom`).
    func linkMayHaveRoom(_ direction: Direction) {
        waitingForRoom[direction] = false
        let side: Side = direction == .up ? .client : .upstream
        if mayRead(from: side) { handlers[side]?.resumeReading() }
    }

    func writabilityChanged(of side: Side) {
        guard channels[side]?.isWritable == true else { return }
        deliverDue(side.opposite.direction)
        handlers[side.opposite]?.resumeReading()
    }

    func inputClosed(on side: Side) {
        guard state == .open, !flows[side.direction].sawEnd else { return }
        passEnding(.end, from: side)
    }

    func inactive(_ side: Side) {
        active.remove(side)
        channels[side] = nil
        handlers[side] = nil
        if active.isEmpty {
            finish()
            return
        }
        guard state == .open else {
            if state == .closing { channels[side.opposite]?.close(promise: nil) }
            return
        }
        // Nothing more can reach this side; what it sent still goes, then its FIN or its RST.
        // Except when the phone's app aborts: its stack drops what it had not sent yet (the
        // server's bytes, read by the proxy, had already left the server).
        dropLine(side.opposite.direction)
        if aborted[side] {
            if side == .client { dropLine(side.direction) }
            passEnding(.reset, from: side)
        } else if !flows[side.direction].sawEnd {
            passEnding(.end, from: side)
        }
        // What the other side still sends is read and answered with a RST (see `received`).
        handlers[side.opposite]?.resumeReading()
    }

    func failed(_ side: Side, _ error: any Error) {
        if let errno = (error as? IOError)?.errnoCode, errno == ECONNRESET || errno == EPIPE {
            aborted[side] = true
        }
        device.logger.debug("connection \(id): \(side) side failed: \(error)")
    }

    // MARK: Actions from the device

    /// Both sides get a RST and nothing queued is delivered.
    func reset() {
        guard state != .closing else { return }
        state = .closing
        dropQueues()
        for channel in channels.present() { Self.abort(channel) }
        device.connectionWasReset(self)
    }

    /// Closes with a RST instead of a FIN: SO_LINGER with a zero timeout.
    static func abort(_ channel: Channel) {
        guard let socket = channel as? any SocketOptionProvider else {
            channel.close(promise: nil)
            return
        }
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Nothing reaches either side any more and nobody is told; both sides are read and
    /// dropped so that neither blocks, until each gives up on its own.
    func silence() {
        guard state == .open || state == .connecting else { return }
        state = .silenced
        dropQueues()
        device.connectionWasSilenced(self)
        for handler in handlers.present() { handler.resumeReading() }
    }

    /// Closes both sides now (the run is over).
    func close() {
        dropQueues()
        state = .closing
        for channel in channels.present() { channel.close(promise: nil) }
    }

    // MARK: Delivery

    /// Passes `side`'s FIN (`.end`) or RST (`.reset`) on to the other side, after the bytes
    /// before it. A FIN is a packet like data: it crosses the radio and queues on the link. A
    /// RST skips the link's queue (an aborting stack discards what it had not sent): it
    /// arrives after the one-way delay, or after the bytes still before it if they are later.
    private func passEnding(_ ending: DelayLine.Item, from side: Side) {
        let direction = side.direction
        switch ending {
        case .end: flows[direction].sawEnd = true
        case .data: return
        case .reset:
            resetQueued[side.opposite] = true
            let arrival = device.resetArrival(direction, on: self)
            flows[direction].line.append(.reset, due: device.clock.deadline(arrival))
            armDelivery(direction)
            return
        }
        switch device.sendEnd(direction, on: self) {
        case .deliver(let delivery):
            flows[direction].line.append(ending, due: device.clock.deadline(delivery.at))
            armDelivery(direction)
        case .discard:
            silence()
        case .reset:
            reset()
        }
    }

    /// Delivers what is due now, or arms the timer for the next item. `immediately: false`
    /// always goes through the timer (from within a delivery pass, so passes never nest).
    private func armDelivery(_ direction: Direction, immediately: Bool = true) {
        guard flows[direction].timer == nil, let due = flows[direction].line.nextDue else { return }
        // Already due (an unshaped link): deliver now rather than through a timer's extra hop.
        if immediately, due <= NIODeadline.now() {
            deliverDue(direction)
            return
        }
        flows[direction].timer = device.loop.assumeIsolated().scheduleTask(deadline: due) { [self] in
            flows[direction].timer = nil
            deliverDue(direction)
        }
    }

    private func deliverDue(_ direction: Direction) {
        guard state == .open else { return }
        let source: Side = direction == .up ? .client : .upstream
        guard let destination = channels[source.opposite] else { return }
        let now = NIODeadline.now()
        var wrote = false
        // A RST does not wait for the destination to take bytes: a peer that stopped reading
        // must still get it.
        while destination.isWritable || flows[direction].line.nextIsReset, let item = flows[direction].line.popDue(now: now) {
            switch item {
            case .data(let buffer):
                device.delivered(buffer.readableBytes, direction)
                destination.write(buffer, promise: nil)
                wrote = true
            case .end:
                wrote = false
                // The FIN goes only after every byte before it is written: on a channel whose
                // input is already closed, NIO turns an output close into a full close, which
                // fails pending writes. A zero-length write completes after all earlier ones.
                destination.writeAndFlush(ByteBuffer()).assumeIsolated().whenComplete { [self] _ in
                    destination.close(mode: .output).assumeIsolated().whenComplete { [self] _ in
                        outputClosed(towards: source.opposite)
                    }
                }
            case .reset:
                // As for a FIN, the RST goes after every byte before it has been written. The
                // other side is gone already: nothing is left to carry.
                state = .closing
                if destination.isWritable {
                    destination.writeAndFlush(ByteBuffer()).whenComplete { _ in Self.abort(destination) }
                } else {
                    Self.abort(destination)
                }
                return
            }
        }
        if wrote { destination.flush() }
        // An unwritable destination resumes delivery through `writabilityChanged`, except for
        // a RST, which goes at its time whatever the destination takes.
        guard destination.isWritable || flows[direction].line.nextIsReset else { return }
        armDelivery(direction, immediately: false)
        if mayRead(from: source) { handlers[source]?.resumeReading() }
    }

    /// A FIN reached `side`. Once both directions have passed theirs on, or the side that sent
    /// this one is gone, the connection is over.
    private func outputClosed(towards side: Side) {
        flows[side.opposite.direction].closedOutput = true
        if !active.contains(side.opposite) || (flows.up.closedOutput && flows.down.closedOutput) {
            state = .closing
            for channel in channels.present() { channel.close(promise: nil) }
        }
    }

    private func dropQueues() {
        for direction in Direction.allCases { dropLine(direction) }
    }

    /// Drops what waits in `direction`, and its delivery timer with it.
    private func dropLine(_ direction: Direction) {
        flows[direction].timer?.cancel()
        flows[direction].timer = nil
        flows[direction].line.removeAll()
    }

    private func finish() {
        dropQueues()
        let finished = flows.up.closedOutput && flows.down.closedOutput
        state = .closing
        device.remove(self, finished: finished)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(Musl)
    import Musl
#endif

/// One value per side of a connection: two stored properties rather than a dictionary, since
/// they are read for every chunk.
struct BothSides<Value> {
    var client: Value
    var upstream: Value

    subscript(side: ProxiedConnection.Side) -> Value {
        get { side == .client ? client : upstream }
        _modify {
            if side == .client { yield &client } else { yield &upstream }
        }
    }
}

extension BothSides {
    /// The sides that hold something.
    func present<Wrapped>() -> [Wrapped] where Value == Wrapped? {
        [client, upstream].compactMap { $0 }
    }
}

/// One value per direction of a connection.
struct BothDirections<Value> {
    var up: Value
    var down: Value

    /// Mutates in place (a get/set pair would copy a delay line's buffer on every change).
    subscript(direction: Direction) -> Value {
        get { direction == .up ? up : down }
        _modify {
            if direction == .up { yield &up } else { yield &down }
        }
    }
}

