import Logging
import NIOCore
import NetsimConnection
import NetsimCore

/// One client connection and its upstream, carried through the device's radio and links.
///
/// The lifecycle (what is forwarded, when a FIN or a RST is passed on, when a side may read,
/// when the connection is over) is `ConnectionStateMachine`; this class only does what its
/// actions say: reads, writes, closes, timers, and asking the device model. Lives on its
/// device's event loop, like everything of that device.
final class ProxiedConnection {
    typealias Side = ConnectionSide
    typealias StateMachine = ConnectionStateMachine<ByteBuffer, NIODeadline>

    let id: ConnectionID
    private unowned let device: EmulatedDevice
    private var machine: StateMachine
    private var channels = PerDirection<Channel?>(up: nil, down: nil)
    private var handlers = PerDirection<ProxySideHandler?>(up: nil, down: nil)
    private var timers = PerDirection<Scheduled<Void>?>(up: nil, down: nil)
    /// Per direction, whether the last delivery pass stopped, items waiting, because the
    /// destination took no more: what the next pass delivers waited for the reader from its
    /// due time on, not for the link.
    private var heldByReader = PerDirection(up: false, down: false)
    /// Each side's TCP give-up on bytes a silenced path swallowed (`Action.armGiveUp`).
    private var giveUps = PerDirection<Scheduled<Void>?>(up: nil, down: nil)
    /// When the later of the connection's FINs was on the emulated radio (for captures).
    var lastFinOnAir = -Double.infinity
    /// The destination's name in the run report, from the client's first bytes if they give it.
    var destination: DestinationNamer
    /// Whether the report's destinations count this connection yet (at its first chunk).
    var countedInDestinations = false
    /// When the client's connection was accepted, in emulated seconds (for `/status`).
    let openedAt: Double
    /// The bytes written to each side so far (for `/status`).
    private(set) var bytesDelivered = PerDirection(up: 0, down: 0)
    /// Called once the upstream's channel is active and the connection open: a front end's
    /// client joins it then (`join`). NIO succeeds a connect's future before the channel is
    /// active, when the connection cannot yet carry the bytes the client sent early.
    var whenUpstreamActive: (() -> Void)?

    init(id: ConnectionID, device: EmulatedDevice, destination: DestinationNamer, openedAt: Double) {
        self.id = id
        self.openedAt = openedAt
        self.device = device
        self.destination = destination
        self.machine = StateMachine(bufferLimit: device.options.bufferLimit)
    }

    /// Adds this side's handler to its channel. Call on the device's event loop. The side
    /// counts as open only once its channel is active (`activated`): an upstream channel is
    /// attached before its connect, which may never succeed.
    func attach(_ channel: Channel, as side: Side) throws {
        let handler = ProxySideHandler(side: side, connection: self)
        try channel.pipeline.syncOperations.addHandler(handler)
        if side == .client { Self.boundUnread(channel, to: device.options.receiveWindow) }
        channels[side] = channel
        handlers[side] = handler
        machine.attached(side)
    }

    /// A front end's client joins its connection once the upstream is connected
    /// (`whenUpstreamActive`) and the front end has replied (`EmulatedDevice.dial`). Its channel is active already, so no
    /// `channelActive` comes; what the server sent meanwhile is delivered now, and reading
    /// starts. The front end's handlers are still in the pipeline, ahead of this side's:
    /// what they buffered reaches the connection as they leave.
    func join(_ client: Channel) throws {
        try attach(client, as: .client)
        activated(.client)
        writabilityChanged(of: .client)
    }

    /// A front end's client left before it could join: the upstream gets a FIN.
    func clientLeft() {
        inactive(.client)
    }

    /// The upstream could not be reached: the client is reset at once (see
    /// `ConnectionStateMachine.upstreamUnreachable`).
    func upstreamUnreachable() {
        forget(.upstream)
        execute(machine.upstreamUnreachable())
    }

    /// The bytes read in `direction` and not yet delivered (for metrics).
    func bytesWaiting(_ direction: Direction) -> Int {
        machine.bytesWaiting(direction)
    }

    // MARK: Events from the handlers

    func activated(_ side: Side) {
        execute(machine.activated(side))
        if side == .upstream, let whenUpstreamActive {
            self.whenUpstreamActive = nil
            whenUpstreamActive()
        }
    }

    func received(_ buffer: ByteBuffer, from side: Side) {
        switch machine.bytesRead(from: side) {
        case .drop(let actions):
            execute(actions)
        case .forward(let direction):
            let verdict = device.send(buffer, direction, on: self)
            execute(
                machine.bytesScheduled(
                    buffer, byteCount: buffer.readableBytes, direction, verdict: machineVerdict(verdict), now: device.clock.loopNow))
        }
    }

    func mayRead(from side: Side) -> Bool {
        let decision = machine.mayRead(
            from: side, destinationWritable: channels[side.opposite]?.isWritable ?? false,
            linkHasRoom: device.linkHasRoom)
        switch decision {
        case .read: return true
        case .hold: return false
        case .holdUntilLinkHasRoom(let direction):
            device.waitForRoom(direction, self)
            return false
        }
    }

    /// The link's queue in `direction` may have room again (see `EmulatedDevice.waitForRoom`).
    func linkMayHaveRoom(_ direction: Direction) {
        execute(
            machine.linkMayHaveRoom(
                direction, destinationWritable: channels[direction.destination]?.isWritable ?? false,
                linkHasRoom: device.linkHasRoom))
    }

    func writabilityChanged(of side: Side) {
        execute(machine.writabilityChanged(of: side, isWritable: channels[side]?.isWritable ?? false))
    }

    func inputClosed(on side: Side) {
        execute(machine.inputClosed(on: side))
    }

    func inactive(_ side: Side) {
        forget(side)
        execute(machine.inactive(side))
    }

    func failed(_ side: Side, _ error: any Error) {
        if let errno = (error as? IOError)?.errnoCode, errno == ECONNRESET || errno == EPIPE {
            machine.failedWithReset(side)
        }
        device.logger.debug("connection \(id): \(side) side failed: \(error)")
    }

    // MARK: Actions from the device

    /// Both sides get a RST and nothing queued is delivered.
    func reset() {
        execute(machine.reset())
    }

    /// Nothing reaches either side any more and nobody is told.
    func silence() {
        execute(machine.silence())
    }

    /// An outage ended early: the latest `dues.count` items queued in `direction` (what the
    /// outage held) arrive at these times instead, still in order.
    func replanned(_ direction: Direction, dues: [Double]) {
        execute(machine.replanned(direction, dues: dues.map(device.clock.deadline), now: device.clock.loopNow))
    }

    /// Resets both sides now (the run is over; see `ConnectionStateMachine.cut`).
    func cut() {
        execute(machine.cut())
    }

    /// Bounds what the client's socket holds that its app has not read to about `window`
    /// (`ProxyOptions.receiveWindow`): the channel stops being writable above half of it, and
    /// the kernel's send buffer holds the other half.
    private static func boundUnread(_ channel: Channel, to window: Int) {
        channel.setOption(ChannelOptions.writeBufferWaterMark, value: .init(low: window / 4, high: window / 2)).whenFailure { _ in }
        channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(window / 4)).whenFailure { _ in }
    }

    /// Closes with a RST instead of a FIN: SO_LINGER with a zero timeout.
    static func abort(_ channel: Channel) {
        guard let socket = channel as? any SocketOptionProvider else {
            channel.close(promise: nil)
            return
        }
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
    }

    // MARK: Doing the machine's actions

    private func execute(_ actions: [StateMachine.Action]) {
        for action in actions { execute(action) }
    }

    private func execute(_ action: StateMachine.Action) {
        switch action {
        case .sendEnd(let direction):
            let verdict = device.sendEnd(direction, on: self)
            execute(machine.endScheduled(direction, verdict: machineVerdict(verdict), now: device.clock.loopNow))
        case .sendReset(let direction):
            let arrival = device.resetArrival(direction, on: self)
            execute(machine.resetScheduled(direction, due: device.clock.deadline(arrival), now: device.clock.loopNow))
        case .deliver(let direction):
            deliverDue(direction)
        case .armTimer(let direction, let due):
            timers[direction] = device.loop.assumeIsolated().scheduleTask(deadline: due) { [self] in
                timers[direction] = nil
                execute(machine.timerFired(direction))
            }
        case .cancelTimer(let direction):
            timers[direction]?.cancel()
            timers[direction] = nil
        case .resumeReading(let side):
            handlers[side]?.resumeReading()
        case .waitForRoom(let direction):
            device.waitForRoom(direction, self)
        case .close(let side):
            channels[side]?.close(promise: nil)
        case .abort(let side):
            if let channel = channels[side] { Self.abort(channel) }
        case .armGiveUp(let side):
            let due = device.clock.deadline(device.clock.now() + tcpRetransmissionGiveUpSeconds)
            giveUps[side] = device.loop.assumeIsolated().scheduleTask(deadline: due) { [self] in
                giveUps[side] = nil
                execute(machine.gaveUp(side))
            }
        case .reportReset:
            device.connectionWasReset(self)
        case .reportSilenced:
            device.connectionWasSilenced(self)
        case .reportUpstreamRefused:
            device.upstreamRefused(self)
        case .finish(let cleanly):
            for side in Side.allCases {
                giveUps[side]?.cancel()
                giveUps[side] = nil
            }
            device.remove(self, finished: cleanly)
        }
    }

    /// Writes what is due in `direction`, item by item while its destination takes bytes.
    private func deliverDue(_ direction: Direction) {
        guard machine.delivers, let destination = channels[direction.destination] else { return }
        let now = device.clock.loopNow
        var wrote = false
        var due = machine.nextDue(direction)
        while let item = machine.nextDelivery(direction, now: now, destinationWritable: destination.isWritable) {
            switch item {
            case .data(let buffer, let byteCount):
                bytesDelivered[direction] += byteCount
                let waited = heldByReader[direction] ? due.map { device.clock.seconds(from: $0, to: now) } ?? 0 : 0
                device.delivered(byteCount, direction, readerWait: waited)
                destination.write(buffer, promise: nil)
                wrote = true
            case .end:
                wrote = false
                // The FIN goes only after every byte before it is written: on a channel whose
                // input is already closed, NIO turns an output close into a full close, which
                // fails pending writes. A zero-length write completes after all earlier ones.
                destination.writeAndFlush(ByteBuffer()).assumeIsolated().whenComplete { [self] _ in
                    destination.close(mode: .output).assumeIsolated().whenComplete { [self] _ in
                        execute(machine.outputClosed(towards: direction.destination))
                    }
                }
            case .reset:
                // As for a FIN, the RST goes after every byte before it has been written. The
                // other side is gone already: nothing is left to carry.
                if destination.isWritable {
                    destination.writeAndFlush(ByteBuffer()).whenComplete { _ in Self.abort(destination) }
                } else {
                    Self.abort(destination)
                }
                return
            }
            due = machine.nextDue(direction)
        }
        if wrote { destination.flush() }
        // Unwritable with items waiting: no timer is armed for them, and those due by the time
        // it is writable again waited for the reader (see `deliveryPassEnded`).
        heldByReader[direction] = !destination.isWritable && machine.nextDue(direction) != nil
        execute(
            machine.deliveryPassEnded(
                direction, destinationWritable: destination.isWritable, linkHasRoom: device.linkHasRoom))
    }

    /// A side's channel is gone, or never came: nothing more is done with it.
    private func forget(_ side: Side) {
        channels[side] = nil
        handlers[side] = nil
    }

    /// The device model's verdict in the machine's terms: a delivery time on the wall clock.
    private func machineVerdict(_ verdict: SendVerdict) -> StateMachine.Verdict {
        switch verdict {
        case .deliver(let delivery): .deliver(at: device.clock.deadline(delivery.at))
        case .discard: .discard
        case .reset: .reset
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
