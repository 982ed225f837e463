import NetsimCore

/// The lifecycle of one proxied connection: a client, its upstream, and the bytes between them
/// carried through the device's radio and links. A value type with no sockets and no clock: the
/// proxy's `ProxiedConnection` feeds it what its channels and the device model report, and does
/// the I/O the returned actions ask for, in their order.
///
/// Bytes read from one side go to the device model, which says when they reach the other side;
/// they wait in that direction's `DelayLine` until then, and leave in the order they came. A
/// side is read only while the line it feeds has room, its destination is writable and the
/// emulated link's queue is under its limit. A FIN travels like data, after the bytes before
/// it, and so does a RST: a side that is reset (ECONNRESET) is passed on as a RST, and a side
/// that sends to a side that is gone gets a RST, as the gone side's TCP stack would answer. A
/// side that is gone never pins the other: what the other still sends is read and dropped.
///
/// Asking the device model has effects of its own (a capture records the packet), so the
/// machine never asks it: an action (`.sendEnd`, `.sendReset`) or a `ReadDisposition.forward`
/// names the question, and the answer comes back as an input (`endScheduled`, `resetScheduled`,
/// `bytesScheduled`).
package struct ConnectionStateMachine<Chunk, Instant: Comparable> {
    package typealias Side = ConnectionSide
    package typealias Line = DelayLine<Chunk, Instant>

    package enum Lifecycle: Equatable, Sendable {
        /// Dialing the upstream: the client is held unread.
        case connecting
        case open
        /// Blackholed or forgotten by the NAT: nothing reaches either side and nobody is told. A
        /// side is read until its first bytes are swallowed; then it is held, its bytes waiting
        /// in its own socket as a sender's unacknowledged bytes wait in its TCP, and it fails
        /// when its TCP would give up retransmitting them. A side whose FIN arrives is reset at
        /// once (`inputClosed`).
        case silenced
        /// Reset or fully closed: waiting for both channels to go.
        case closing
    }

    /// The device model's answer for a chunk or a FIN.
    package enum Verdict: Equatable {
        /// It reaches the other side at this time.
        case deliver(at: Instant)
        /// The connection is blackholed or forgotten by the NAT.
        case discard
        /// The connection is reset.
        case reset
    }

    /// What the connection does, in the order given.
    package enum Action: Equatable {
        /// Ask the device model when the FIN in this direction arrives; answer with `endScheduled`.
        case sendEnd(Direction)
        /// Ask the device model when a RST in this direction arrives; answer with `resetScheduled`.
        case sendReset(Direction)
        /// Run a delivery pass in this direction now (`nextDelivery` until nil, then
        /// `deliveryPassEnded`).
        case deliver(Direction)
        /// Arm this direction's delivery timer; when it fires, call `timerFired`.
        case armTimer(Direction, at: Instant)
        case cancelTimer(Direction)
        /// Let a read held back on this side go ahead.
        case resumeReading(Side)
        /// Ask the device to call `linkMayHaveRoom` once the link's queue in this direction drains
        /// under its limit.
        case waitForRoom(Direction)
        /// Close this side's channel (with a FIN).
        case close(Side)
        /// Close this side's channel with a RST (SO_LINGER 0).
        case abort(Side)
        /// The silenced path swallowed this side's bytes: its TCP retransmits them until it
        /// gives up. Call `gaveUp` `tcpRetransmissionGiveUpSeconds` of emulated time from now.
        case armGiveUp(Side)
        /// Tell the device the connection was reset (its counters, a capture).
        case reportReset
        /// Tell the device the connection was blackholed or forgotten by the NAT.
        case reportSilenced
        /// Tell the device the upstream could not be reached (a capture shows a reset).
        case reportUpstreamRefused
        /// Both channels are gone: the device forgets the connection. `cleanly` when both FINs
        /// were passed on.
        case finish(cleanly: Bool)
    }

    /// What becomes of bytes just read.
    package enum ReadDisposition: Equatable {
        /// They go on in this direction: ask the device model when they arrive, and answer with
        /// `bytesScheduled`.
        case forward(Direction)
        /// They are dropped; then these actions (a RST for a sender whose peer is gone).
        case drop([Action])
    }

    /// Whether a side may read now.
    package enum ReadDecision: Equatable {
        case read
        case hold
        /// Hold, and ask the device to wake the connection when the link's queue in this
        /// direction has room (`Action.waitForRoom`).
        case holdUntilLinkHasRoom(Direction)
    }

    /// One direction: what waits to be delivered and whether its timer is armed.
    private struct Flow {
        var line = Line()
        var timerArmed = false
        var sawEnd = false
        /// The FIN was handed to the destination for writing, after every byte before it.
        var endHandedOver = false
        /// The FIN was written after every byte before it.
        var closedOutput = false
    }

    /// The most bytes a direction's line holds before its source is no longer read.
    package let bufferLimit: Int
    package var lifecycle: Lifecycle {
        switch phase {
        case .closing: .closing
        case _ where path.isSilenced: .silenced
        case .connecting: .connecting
        case .open: .open
        }
    }
    /// The lifecycle but for silence, which is the path's (`path`) until the connection closes.
    private var phase = Phase.connecting
    private enum Phase { case connecting, open, closing }
    /// The rules of a silenced path and of writes to a gone side, which the model engine's
    /// connections follow too.
    private var path = ConnectionPath()
    /// The sides with a channel (attached and not yet gone).
    private var attached = PerDirection(up: false, down: false)
    /// The sides whose channel is active (connected and not yet closed).
    private var active = PerDirection(up: false, down: false)
    /// The sides that were reset (ECONNRESET or EPIPE): their going is passed on as a RST.
    private var aborted = PerDirection(up: false, down: false)
    /// Both sides are being reset (`reset`, `cut`): a side still there when the other goes gets
    /// a RST too, not a FIN. Closing one channel reports it gone at once, before the other's
    /// abort comes.
    private var resettingBoth = false
    /// Waiting for the device to say the link's queue has room, per direction.
    private var waitingForRoom = PerDirection(up: false, down: false)
    private var flows = PerDirection(up: Flow(), down: Flow())

    package init(bufferLimit: Int) {
        self.bufferLimit = bufferLimit
    }

    /// The bytes waiting in a direction's line.
    package func bytesWaiting(_ direction: Direction) -> Int { flows[direction].line.bytes }

    /// When the next item in a direction's line is due.
    package func nextDue(_ direction: Direction) -> Instant? { flows[direction].line.nextDue }

    // MARK: Channels

    /// A side got its channel. It counts as open only once the channel is active (`activated`):
    /// an upstream channel is attached before its connect, which may never succeed.
    package mutating func attached(_ side: Side) {
        attached[side] = true
    }

    package mutating func activated(_ side: Side) -> [Action] {
        guard lifecycle != .closing else {
            // The connection ended before this side connected (the client left while dialing).
            return attached[side] ? [.close(side)] : []
        }
        active[side] = true
        guard side == .upstream, lifecycle == .connecting else { return [] }
        phase = .open
        return [.resumeReading(.client)]
    }

    /// The upstream could not be reached (refused, reset at once, timed out, no file
    /// descriptor): the client is reset at once, so that the app sees an error as it would
    /// connecting directly, not an empty reply. A channel that never became active gets no
    /// `inactive`, so the connection is finished here if the client is not active yet.
    package mutating func upstreamUnreachable() -> [Action] {
        phase = .closing
        attached[.upstream] = false
        var actions: [Action] = [.reportUpstreamRefused]
        if attached[.client] { actions.append(.abort(.client)) }
        if !active[.client], !active[.upstream] { actions += finish() }
        return actions
    }

    /// A side's channel failed with ECONNRESET or EPIPE: when it goes, a RST is passed on.
    package mutating func failedWithReset(_ side: Side) {
        aborted[side] = true
    }

    /// A side sent its FIN (a half-close). On a silenced connection the FIN can never be
    /// acknowledged: the side's TCP would retransmit it until it gives up and then fail, which an
    /// app that closed never sees. The side is failed now rather than held (with its socket)
    /// for the 924.6 s of its give-up; an app that only half-closed and still reads sees that
    /// failure early.
    package mutating func inputClosed(on side: Side) -> [Action] {
        if lifecycle == .silenced { return finSwallowed(from: side) }
        guard lifecycle == .open, !flows[side.direction].sawEnd else { return [] }
        return passEnd(from: side)
    }

    /// A side's channel is gone.
    package mutating func inactive(_ side: Side) -> [Action] {
        active[side] = false
        attached[side] = false
        if !active[.client], !active[.upstream] { return finish() }
        guard lifecycle == .open else {
            guard lifecycle == .closing, attached[side.opposite] else { return [] }
            return [resettingBoth ? .abort(side.opposite) : .close(side.opposite)]
        }
        // Nothing more can reach this side; what it sent still goes, then its FIN or its RST.
        // Except when the phone's app aborts: its stack drops what it had not sent yet (the
        // server's bytes, read by the proxy, had already left the server).
        var actions = dropLine(side.opposite.direction)
        if aborted[side] {
            if side == .client { actions += dropLine(side.direction) }
            actions += passReset(from: side)
        } else if !flows[side.direction].sawEnd {
            // Gone without its FIN event and not reset: a clean close all the same (NIO closes a
            // channel whose output is shut without an input-closed event).
            actions += passEnd(from: side)
        }
        // What the other side still sends is read and answered with a RST (see `bytesRead`).
        actions.append(.resumeReading(side.opposite))
        return actions
    }

    /// A side's channel became writable or unwritable.
    package mutating func writabilityChanged(of side: Side, isWritable: Bool) -> [Action] {
        guard attached[side], isWritable else { return [] }
        return [.deliver(side.opposite.direction), .resumeReading(side.opposite)]
    }

    // MARK: Reading

    /// Bytes were read from `side`.
    package mutating func bytesRead(from side: Side) -> ReadDisposition {
        guard lifecycle == .open else { return .drop(lifecycle == .silenced ? swallowed(from: side) : []) }
        guard attached[side.opposite] else {
            // Bytes for a side that is gone: its stack would answer them with a RST.
            return .drop(path.isResetOwed(to: side) ? [] : passReset(from: side.opposite))
        }
        return .forward(side.direction)
    }

    /// The device model's answer for bytes `bytesRead` forwarded.
    package mutating func bytesScheduled(
        _ chunk: Chunk, byteCount: Int, _ direction: Direction, verdict: Verdict, now: Instant
    ) -> [Action] {
        schedule(.data(chunk, byteCount: byteCount), direction, verdict: verdict, now: now)
    }

    /// The device model's answer for a FIN (`Action.sendEnd`).
    package mutating func endScheduled(_ direction: Direction, verdict: Verdict, now: Instant) -> [Action] {
        schedule(.end, direction, verdict: verdict, now: now)
    }

    /// When a RST (`Action.sendReset`) arrives: it skips the link's queue (an aborting stack
    /// discards what it had not sent), so it arrives after the one-way delay, or after the bytes
    /// still before it if they are later.
    package mutating func resetScheduled(_ direction: Direction, due: Instant, now: Instant) -> [Action] {
        flows[direction].line.append(.reset, due: due)
        return armDelivery(direction, now: now)
    }

    /// Whether `side` may read now. `destinationWritable`: whether the other side's channel
    /// takes bytes; `linkHasRoom`: whether the emulated link's queue in a direction is under its
    /// limit (asked last, only when everything else allows the read).
    package mutating func mayRead(
        from side: Side, destinationWritable: Bool, linkHasRoom: (Direction) -> Bool
    ) -> ReadDecision {
        switch lifecycle {
        case .connecting, .closing: return .hold
        // Read until the first swallowed bytes arm the give-up; reading more would only fill
        // buffers with bytes that go nowhere. A FIN or a RST is still seen (NIO reads to the
        // end of a closed input whether or not a read is pending).
        case .silenced: return path.isGivingUp(side) ? .hold : .read
        case .open: break
        }
        // The other side is gone: read and drop, so that this side is never left blocked.
        guard attached[side.opposite] else { return .read }
        let direction = side.direction
        guard flows[direction].line.bytes < bufferLimit, destinationWritable else { return .hold }
        guard linkHasRoom(direction) else {
            guard !waitingForRoom[direction] else { return .hold }
            waitingForRoom[direction] = true
            return .holdUntilLinkHasRoom(direction)
        }
        return .read
    }

    /// The link's queue in `direction` may have room again (after `Action.waitForRoom`).
    package mutating func linkMayHaveRoom(
        _ direction: Direction, destinationWritable: Bool, linkHasRoom: (Direction) -> Bool
    ) -> [Action] {
        waitingForRoom[direction] = false
        return readActions(from: direction.source, destinationWritable: destinationWritable, linkHasRoom: linkHasRoom)
    }

    // MARK: Delivery

    /// The device planned the latest `dues.count` items queued in `direction` again (an outage
    /// ended early): they leave at these times, still in order and never before the items
    /// ahead of them. Nothing changes if fewer items wait, or a RST is among them.
    package mutating func replanned(_ direction: Direction, dues: [Instant], now: Instant) -> [Action] {
        guard flows[direction].line.replanLatest(dues) else { return [] }
        var actions: [Action] = []
        if flows[direction].timerArmed {
            flows[direction].timerArmed = false
            actions.append(.cancelTimer(direction))
        }
        return actions + armDelivery(direction, now: now)
    }

    /// A direction's delivery timer fired.
    package mutating func timerFired(_ direction: Direction) -> [Action] {
        flows[direction].timerArmed = false
        return [.deliver(direction)]
    }

    /// Whether a delivery pass may run: only an open connection delivers.
    package var delivers: Bool { lifecycle == .open }

    /// The next item of a delivery pass in `direction`, or nil when the pass is over. Data and
    /// FINs wait for a writable destination; a RST does not (a peer that stopped reading must
    /// still get it), and ends the connection: the pass stops there.
    package mutating func nextDelivery(_ direction: Direction, now: Instant, destinationWritable: Bool) -> Line.Item? {
        guard lifecycle == .open, destinationWritable || flows[direction].line.nextIsReset,
            let item = flows[direction].line.popDue(now: now)
        else { return nil }
        switch item {
        case .reset: phase = .closing
        case .end: flows[direction].endHandedOver = true
        case .data: break
        }
        return item
    }

    /// A delivery pass ended without a RST. An unwritable destination resumes delivery through
    /// `writabilityChanged` (so the pass does not spin on it), except for a RST, which goes at its
    /// time whatever the destination takes.
    package mutating func deliveryPassEnded(
        _ direction: Direction, destinationWritable: Bool, linkHasRoom: (Direction) -> Bool
    ) -> [Action] {
        guard destinationWritable || flows[direction].line.nextIsReset else { return [] }
        // Through the timer even if due already, so that passes never nest.
        return armDelivery(direction, now: nil)
            + readActions(from: direction.source, destinationWritable: destinationWritable, linkHasRoom: linkHasRoom)
    }

    /// A FIN was written to `side` after every byte before it. Once both directions have passed
    /// theirs on, or the side that sent this one is gone, the connection is over.
    package mutating func outputClosed(towards side: Side) -> [Action] {
        flows[side.opposite.direction].closedOutput = true
        guard !active[side.opposite] || (flows.up.closedOutput && flows.down.closedOutput) else { return [] }
        phase = .closing
        return Side.allCases.filter { attached[$0] }.map { .close($0) }
    }

    // MARK: From the device

    /// Both sides get a RST and nothing queued is delivered.
    package mutating func reset() -> [Action] {
        guard lifecycle != .closing else { return [] }
        phase = .closing
        resettingBoth = true
        return dropQueues() + Side.allCases.filter { attached[$0] }.map { .abort($0) } + [.reportReset]
    }

    /// Nothing reaches either side any more and nobody is told; what waits is dropped. Each
    /// side is read until its first bytes are swallowed (see `Lifecycle.silenced`), and fails
    /// when its TCP gives up on them or when it closes.
    package mutating func silence() -> [Action] {
        guard lifecycle == .open || lifecycle == .connecting else { return [] }
        path.silence()
        return dropQueues() + [.reportSilenced] + Side.allCases.filter { attached[$0] }.map { .resumeReading($0) }
    }

    /// A side's TCP gave up retransmitting what the silenced path swallowed (`tcp_retries2`,
    /// after `Action.armGiveUp`): its connection fails. A RST on its loopback socket is the
    /// closest a proxy comes to the ETIMEDOUT the app would see; the other side is left to its
    /// own timers.
    package mutating func gaveUp(_ side: Side) -> [Action] {
        guard lifecycle == .silenced, attached[side] else { return [] }
        return [.abort(side)]
    }

    /// The run is over: a connection still here was cut unfinished (one whose FINs were both
    /// passed on is closing already). What waits is dropped and both sides get a RST, so that
    /// neither app takes what it got for the whole: a FIN would tell a client reading to EOF
    /// (a plain download, an HTTP/1.0 body) that the truncated transfer is complete.
    package mutating func cut() -> [Action] {
        guard lifecycle != .closing else { return [] }
        let actions = dropQueues()
        phase = .closing
        resettingBoth = true
        return actions + Side.allCases.filter { attached[$0] }.map { .abort($0) }
    }

    // MARK: Helpers

    /// The silenced path swallowed bytes from `side`: the first time, its give-up is armed (as
    /// the model engine arms it when a send is discarded).
    private mutating func swallowed(from side: Side) -> [Action] {
        guard attached[side], path.swallowed(from: side) else { return [] }
        return [.armGiveUp(side)]
    }

    /// The silenced path swallowed `side`'s FIN: the side is failed at once (see `inputClosed`).
    private mutating func finSwallowed(from side: Side) -> [Action] {
        attached[side] ? [.abort(side)] : []
    }

    private mutating func passEnd(from side: Side) -> [Action] {
        flows[side.direction].sawEnd = true
        return [.sendEnd(side.direction)]
    }

    private mutating func passReset(from side: Side) -> [Action] {
        path.owesReset(to: side.opposite)
        return [.sendReset(side.direction)]
    }

    private mutating func schedule(
        _ item: Line.Item, _ direction: Direction, verdict: Verdict, now: Instant
    ) -> [Action] {
        switch verdict {
        case .deliver(let due):
            flows[direction].line.append(item, due: due)
            return armDelivery(direction, now: now)
        case .discard:
            if case .end = item { return silence() + finSwallowed(from: direction.source) }
            return silence() + swallowed(from: direction.source)
        case .reset:
            return reset()
        }
    }

    /// Delivers what is due at `now` at once (an unshaped link: no timer's extra hop), or arms
    /// the timer for the next item. Without `now`, always through the timer.
    private mutating func armDelivery(_ direction: Direction, now: Instant?) -> [Action] {
        guard !flows[direction].timerArmed, let due = flows[direction].line.nextDue else { return [] }
        if let now, due <= now { return [.deliver(direction)] }
        flows[direction].timerArmed = true
        return [.armTimer(direction, at: due)]
    }

    private mutating func readActions(
        from side: Side, destinationWritable: Bool, linkHasRoom: (Direction) -> Bool
    ) -> [Action] {
        switch mayRead(from: side, destinationWritable: destinationWritable, linkHasRoom: linkHasRoom) {
        case .read: return [.resumeReading(side)]
        case .hold: return []
        case .holdUntilLinkHasRoom(let direction): return [.waitForRoom(direction)]
        }
    }

    private mutating func dropQueues() -> [Action] {
        dropLine(.up) + dropLine(.down)
    }

    /// Drops what waits in `direction`, and its delivery timer with it.
    private mutating func dropLine(_ direction: Direction) -> [Action] {
        flows[direction].line.removeAll()
        guard flows[direction].timerArmed else { return [] }
        flows[direction].timerArmed = false
        return [.cancelTimer(direction)]
    }

    /// Clean when both FINs were passed on. The second FIN goes to a side whose input is
    /// already closed, where NIO turns the output close into a full close, and its going can
    /// come before the close's completion (`closedOutput`): a FIN handed over counts, unless a
    /// side was reset.
    private mutating func finish() -> [Action] {
        let actions = dropQueues()
        let finished = flows.up.endHandedOver && flows.down.endHandedOver && !aborted[.client] && !aborted[.upstream]
        phase = .closing
        return actions + [.finish(cleanly: finished)]
    }
}
