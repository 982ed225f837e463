import NetsimCore

/// One connection as both ends see it.
struct ModelLink: Sendable {
    var clientOpen = true
    var serverOpen = true
    /// When the profile killed it silently (blackhole, NAT expiry), for detection times.
    var diedAt: Double?
    /// Silenced (the path swallows everything on it from now on, bytes already on their way
    /// included, as the proxy drops its queues), the sides whose give-up is armed, and the
    /// sides a write to a closed receiver earned a RST: the rules the proxy's connections follow.
    var path = ConnectionPath()
    /// The last time bytes crossed it, for the NAT's idle timer.
    var lastActivity: Double

    /// Uplink bytes got through at `time`: they refresh the NAT's mapping then, never backwards.
    mutating func bytesGotThrough(at time: Double) {
        lastActivity = max(lastActivity, time)
    }
}

/// What one modelled device left behind: the same figures a live device's proxy, app ledger
/// and server record give the bench's analysis.
public struct DeviceOutcome: Sendable {
    public var app: AppRecord
    public var server: ServerRecord
    public var connections: Tally
    /// Payload bytes delivered, and the chunks and segments they made, per direction.
    public var bytes: PerDirection<Int>
    public var segments: SegmentCounts
    /// QUIC: the UDP datagrams each way, delivered and dropped, and the remappings the server
    /// followed (their payload is in `bytes` too); nil over TCP.
    public var datagrams: DatagramFigures?
    /// QUIC: NAT mappings that expired while the phone had a network, so a keepalive could have
    /// kept them (one that expires in an outage is the outage's); nil over TCP, where a
    /// connection the path already killed records no expiry.
    public var natExpiriesWithNetwork: Int?
    public var radio: RadioReport
    public var radioLatency: RadioWaitTotals
    /// The first `DeviceModel.eventListLimit` profile events, and every event by kind.
    public var events: [DeviceEvent]
    public var eventCounts: [DeviceEvent.Kind: Int]
    public var durationSeconds: Double
    /// For a connection the app still held at the end although it had died: how long it had
    /// been dead (a detection time that is at least this).
    public var undetectedDeathSeconds: Double?

    public struct Tally: Sendable, Equatable, Codable {
        public var opened = 0
        public var closed = 0
        public var reset = 0
        public var blackholed = 0
    }
}

/// A finished device's app and server records, handed over as soon as it stops. They hold
/// tallies, not a record per event or message, so a device's memory does not grow with the
/// run's length while it plays either.
public struct DeviceRecords: Sendable {
    public var app: AppRecord
    public var server: ServerRecord
    /// The profile's events as the device met them.
    public var events: [DeviceEvent]
    /// Per return of the network, the time until what it held up had arrived.
    public var recoveries: [Double]

    /// The deliveries as a fleet's analysis pools them. The model's servers always send from
    /// the app's resume point, so no event is skipped.
    public var deliveryFigures: DeliveryFigures {
        DeliveryFigures(
            app: app, skippedThrough: 0,
            messages: .init(
                sent: app.messagesProduced, delivered: server.messages.arrived,
                unrecoverable: app.droppedMessageIDs.count { !server.messages.hasArrived($0) },
                duplicated: server.messages.duplicates, outOfOrder: server.messages.outOfOrder),
            uplink: server.messages.latencies, recoveries: recoveries)
    }
}

/// A finished device without its records: its radio's history, whose report runs on to the
/// fleet's stop, its profile events and its counters. A value a shard of a model run writes
/// down for the merge (`Codable`), so nothing of the device's simulation state is kept.
public struct DeviceRemains: Sendable, Codable {
    var radio: RadioHistory
    var events: [DeviceEvent]
    var eventCounts: [DeviceEvent.Kind: Int]
    var connections: DeviceOutcome.Tally
    var bytes: PerDirection<Int>
    var segments: SegmentCounts
    var datagrams: DatagramFigures?
    var natExpiriesWithNetwork: Int?
    /// When the app's connection died, if it still held it dead at the stop.
    var diedAt: Double?

    /// The outcome at `end`, with empty app and server records (they were handed over).
    public func outcome(until end: Double) -> DeviceOutcome {
        DeviceOutcome(
            app: AppRecord(), server: ServerRecord(), connections: connections, bytes: bytes,
            segments: segments, datagrams: datagrams, natExpiriesWithNetwork: natExpiriesWithNetwork, radio: radio.report(until: end),
            radioLatency: radio.waits(until: end),
            events: events, eventCounts: eventCounts, durationSeconds: end, undetectedDeathSeconds: diedAt.map { end - $0 })
    }
}

/// One phone and its app for one transport, played in virtual time: the workload creates
/// events at the server and messages in the app, the transport's client and server state
/// machines put frames on connections, and every frame crosses the phone's `DeviceModel`
/// exactly as the live proxy sends a chunk (radio waits, serialization, delay, loss, outages,
/// NAT) and arrives when the model says. A connection's death is learnt as real peers learn it:
/// a RST, the peer's FIN, a probe left unanswered, a request timeout, or TCP giving up on
/// unacknowledged data; a dead idle connection with nothing to send stays silent for ever.
struct DeviceSimulation<Client: TransportClientModel>: Sendable {
    /// Plain values only, so the buffers of writes copy them without reference counting.
    private struct Write: Sendable {
        var connection: ConnectionID
        var direction: Direction
        var bytes: Int
        /// The frames whose last byte is in this write: the first inline (the usual case), any
        /// more merged behind it in `mergedFrames` under this key (0: none).
        var frame: Frame?
        var more: UInt64 = 0
        /// A write of its own (one of a frame's several writes), never merged with the one before.
        var separate: Bool
    }

    /// An input to the client, whose actions are carried out at once (`tellClient`).
    private enum ClientInput {
        case start
        case received(Frame)
        case messageProduced
        case timerFired(TransportTimer)
        case connectionEnded(ConnectionEnd)
        case networkChanged(available: Bool)
        case addressChanged
    }

    /// An input to the server, whose actions are carried out at once (`tellServer`).
    private enum ServerInput {
        case createEvent
        case received(Frame, on: ConnectionID)
        case timerFired(ServerTimer)
        case connectionEnded(ConnectionID)
        case migrated(ConnectionID)
    }

    private enum Occurrence: Sendable {
        case createEvent
        case produceMessage
        /// A write arrives, with the frame it completes and the key of any more in
        /// `mergedFrames` (0: none). Plain values only, so the agenda moves them without
        /// reference counting.
        case arrival(ConnectionID, Direction, bytes: Int, frame: Frame?, more: UInt64)
        /// A FIN crossing in `direction` reaches the other side.
        case finArrival(ConnectionID, Direction)
        case timeline
        case networkCheck
        /// The sender of `direction` gives up retransmitting.
        case retransmissionGiveUp(ConnectionID, Direction)
        /// QUIC: the datagram of packet `key` (in `packets`) arrives.
        case packetArrival(UInt64)
        /// QUIC: the sender's probe timeout for a lost packet fires: it sends the frames again.
        case packetLost(UInt64)
    }

    private(set) var device: DeviceModel
    private var queue = EventQueue<Occurrence>()
    private(set) var ledger: AppLedger
    private(set) var server: ModelServer
    private var client: Client
    private let wire: WireFormat
    /// The workload's times, drawn as they come due.
    private var times: DeviceTimes
    private var eventsEnded = false
    private var messagesEnded = false
    /// Per return of the network, the wait for what it held up, folded as items arrive.
    private var recoveries = RecoveryTimes()
    /// The device's events already looked at for network returns.
    private var eventsSeenForReturns = 0
    /// Writes made while handling the current occurrence, not yet on the path: frames written
    /// back to back on one connection leave as one chunk, as the proxy reads them.
    private var unsent: [Write] = []
    /// While a flush puts `unsent` on the path: how many are on it, and where the writes made
    /// meanwhile (by a reset's reconnection, say) begin; those leave after, in chunks of their own.
    private var flushed = 0
    private var sealed = 0
    /// Frames that arrive behind the first one of a merged write, by the write's key.
    private var mergedFrames: [UInt64: [Frame]] = [:]
    private var mergedKeys: UInt64 = 0
    private var current: ConnectionID?
    private var links = ConnectionTable<ModelLink>()
    /// What the client and the server asked for and is not yet carried out. Carrying out an
    /// action can give a machine another input (a reset tells both), whose actions are
    /// appended, carried out and dropped before the rest of the first input's: each buffer is a
    /// stack, kept from occurrence to occurrence, so handling one allocates no array.
    private var clientActions: [TransportAction] = []
    private var serverActions: [ServerAction] = []
    /// The armed timers, kept beside the agenda rather than in it: a timer cancelled or set
    /// again (a REST request's timeout, every poll) then leaves no entry behind for the agenda
    /// to order and pop. The client's by `TransportTimer.rawValue`.
    private var clientTimers = [Deadline?](repeating: nil, count: TransportTimer.allCases.count)
    private var serverTimers: [(timer: ServerTimer, deadline: Deadline)] = []
    private var networkAvailable = true
    /// QUIC: connections are UDP flows (`DeviceModel.sendDatagram`) with their own loss
    /// recovery, not TCP connections.
    private let overDatagrams: Bool
    private var quicPaths = ConnectionTable<QUICPath>()
    /// QUIC packets on their way or waiting to be sent again, by key.
    private var packets: [UInt64: Packet] = [:]
    private var packetKeys: UInt64 = 0
    /// The phone's address changes seen (handovers), to tell the client of the next.
    private var addressChangesSeen = 0
    private var datagrams = DatagramFigures()
    private var natExpiriesWithNetwork = 0
    private var tally = DeviceOutcome.Tally()
    private var bytes = PerDirection<Int>(up: 0, down: 0)
    private var segments = SegmentCounts()
    private(set) var now = 0.0
    /// Occurrences handled, for the engine's throughput figure.
    private(set) var steps = 0
    /// Whether `run` keeps `pingMarks` (the keepalive tuner's scenarios do).
    var marksPings = false
    /// The device's figures when the client's ping timer fired first and last (each before
    /// it was handled): the starts of its first and last keepalive periods.
    private(set) var pingMarks: (first: (time: Double, remains: DeviceRemains), last: (time: Double, remains: DeviceRemains))?

    init(
        device: DeviceModel, client: Client, server: ModelServer, wire: WireFormat, times: DeviceTimes, outboxLimit: Int
    ) {
        self.device = device
        self.client = client
        self.server = server
        self.wire = wire
        self.times = times
        self.ledger = AppLedger(outboxLimit: outboxLimit)
        self.overDatagrams = wire.encoding.isQUIC
    }

    /// Plays the workload until `duration`, then drains until every event and message is
    /// through or `drainDeadline`; returns when it stopped.
    mutating func run(duration: Double, drainDeadline: Double) -> Double {
        scheduleNextEvent()
        scheduleNextMessage()
        if let next = device.nextEventTime { queue.schedule(.timeline, at: next) }
        tellClient(.start)
        flush()
        while let (deadline, due) = nextDue() {
            if deadline.time > duration, isSettled || deadline.time > drainDeadline { break }
            now = deadline.time
            steps += 1
            switch due {
            case .agenda:
                if let (_, occurrence) = queue.next() { handle(occurrence) }
            case .clientTimer(let timer):
                clientTimers[timer.rawValue] = nil
                if marksPings, timer == .ping {
                    let mark = (now, remains)
                    pingMarks = (pingMarks?.first ?? mark, mark)
                }
                tellClient(.timerFired(timer))
            case .serverTimer(let index):
                tellServer(.timerFired(serverTimers.remove(at: index).timer))
            }
            flush()
        }
        if now < duration { now = duration }
        return isSettled ? now : max(now, drainDeadline)
    }

    var isSettled: Bool {
        eventsEnded && messagesEnded && ledger.isSettled
    }

    /// The device's figures, its radio up to `end`.
    func outcome(until end: Double) -> DeviceOutcome {
        var outcome = remains.outcome(until: end)
        outcome.app = ledger.record
        outcome.server = server.record
        return outcome
    }

    /// What the fleet's analysis pools: the app's and the server's records, the recovery times
    /// and the timeline's events.
    var records: DeviceRecords {
        DeviceRecords(app: ledger.record, server: server.record, events: device.events, recoveries: recoveries.times)
    }

    /// What the device's radio report needs at the fleet's stop, which may come after this
    /// device settled; nothing that grows with the run's length.
    var remains: DeviceRemains {
        DeviceRemains(
            radio: device.radioHistory, events: device.events, eventCounts: device.eventCounts, connections: tally, bytes: bytes,
            segments: segments, datagrams: overDatagrams ? datagrams : nil,
            natExpiriesWithNetwork: overDatagrams ? natExpiriesWithNetwork : nil,
            diedAt: current.flatMap { links[$0]?.diedAt })
    }

    // MARK: Occurrences

    /// When an armed timer fires, with the agenda's order number it took when it was set.
    private struct Deadline {
        var time: Double
        var order: UInt64

        func precedes(_ other: Deadline) -> Bool {
            time < other.time || (time == other.time && order < other.order)
        }
    }

    private enum Due {
        case agenda
        case clientTimer(TransportTimer)
        /// The timer at this index of `serverTimers`.
        case serverTimer(Int)
    }

    /// What comes next: the agenda's next occurrence or an armed timer, whichever is first by
    /// time and then by order number, as if the timers were in the agenda. Inlined into the
    /// loop: called from it as a method, it was handed a copy of the whole simulation (2.8 KB,
    /// a memcpy per occurrence).
    @inline(__always)
    private func nextDue() -> (Deadline, Due)? {
        var next: (Deadline, Due)?
        if let key = queue.nextKey { next = (Deadline(time: key.time, order: key.order), .agenda) }
        for raw in clientTimers.indices {
            guard let deadline = clientTimers[raw], Self.comesFirst(deadline, before: next),
                let timer = TransportTimer(rawValue: raw)
            else { continue }
            next = (deadline, .clientTimer(timer))
        }
        for index in serverTimers.indices {
            let deadline = serverTimers[index].deadline
            if Self.comesFirst(deadline, before: next) { next = (deadline, .serverTimer(index)) }
        }
        return next
    }

    private static func comesFirst(_ deadline: Deadline, before next: (Deadline, Due)?) -> Bool {
        guard let next else { return true }
        return deadline.precedes(next.0)
    }

    /// Arms a timer for `time` (never before now), as if it were scheduled in the agenda now.
    private mutating func deadline(at time: Double) -> Deadline {
        Deadline(time: max(time, now), order: queue.takeOrder())
    }

    private mutating func handle(_ occurrence: Occurrence) {
        switch occurrence {
        case .createEvent:
            scheduleNextEvent()
            ledger.eventCreated(at: now)
            tellServer(.createEvent)
        case .produceMessage:
            scheduleNextMessage()
            _ = ledger.produceMessage()
            server.messageProduced(at: now)
            tellClient(.messageProduced)
        case .arrival(let id, let direction, let size, let first, let more):
            let rest = more == 0 ? [] : mergedFrames.removeValue(forKey: more) ?? []
            guard var link = links[id], !link.path.isSilenced else { return }
            if direction == .up ? link.serverOpen : link.clientOpen {
                count(size, direction)
                if let first { arrive(first, direction, on: id) }
                for frame in rest { arrive(frame, direction, on: id) }
            } else if link.path.owesReset(to: direction.source) {
                // The proxy's first write to a socket its owner has closed still succeeds (the
                // kernel takes it and the peer answers with a RST); later ones fail, and the
                // live report counts only what was written.
                links[id] = link
                count(size, direction)
            }
        case .finArrival(let id, let direction):
            guard links[id]?.path.isSilenced == false else { return }
            if direction == .up {
                guard links[id]?.serverOpen == true else { return }
                tellServer(.connectionEnded(id))
                closeSide(.down, of: id)
            } else {
                guard links[id]?.clientOpen == true else { return }
                closeSide(.up, of: id)
                if id == current {
                    current = nil
                    tellClient(.connectionEnded(.closedByPeer))
                }
            }
        case .timeline:
            applyTimeline()
            if let next = device.nextEventTime { queue.schedule(.timeline, at: next) }
        case .networkCheck:
            if overDatagrams, device.addressChanges != addressChangesSeen {
                addressChangesSeen = device.addressChanges
                // Until the client sends from its new address the server cannot reach it.
                if let id = current, links[id]?.diedAt == nil { links[id]?.diedAt = now }
                tellClient(.addressChanged)
            }
            let available = !device.isDisconnected(at: now)
            guard available != networkAvailable else { return }
            // A QUIC connection outlives an outage, but the server cannot reach the phone in it.
            if overDatagrams, !available, let id = current, links[id]?.diedAt == nil { links[id]?.diedAt = now }
            networkAvailable = available
            tellClient(.networkChanged(available: available))
        case .retransmissionGiveUp(let id, let direction):
            guard links[id] != nil else { return }
            if direction == .up {
                guard id == current, links[id]?.clientOpen == true else { return }
                recordDetection(of: id)
                abandon(id)
                current = nil
                tellClient(.connectionEnded(.timedOut))
            } else {
                tellServer(.connectionEnded(id))
                abandon(id)
            }
        case .packetArrival(let key):
            packetArrived(key)
        case .packetLost(let key):
            guard let packet = packets[key] else { return }
            let direction = packet.write.direction
            guard let link = links[packet.write.connection], direction == .up ? link.clientOpen : link.serverOpen else {
                forget(packet: key)
                return
            }
            send(packet: key)
        }
    }

    private mutating func arrive(_ frame: Frame, _ direction: Direction, on id: ConnectionID) {
        if direction == .up {
            guard links[id]?.serverOpen == true else { return }
            switch frame {
            case .postRequest(let message), .message(let message):
                if let createdAt = server.messageArrived(message, at: now) { arrived(createdAt: createdAt) }
            default:
                break
            }
            tellServer(.received(frame, on: id))
            return
        }
        guard id == current, links[id]?.clientOpen == true, client.delivers(frame) else { return }
        switch frame {
        case .event(let sequence):
            deliverEvents(sequence...sequence)
        case .pollResponse(let first, let last) where last >= first:
            deliverEvents(first...last)
        case .ack(let message), .postResponse(let message):
            ledger.acknowledge(message)
        default:
            break
        }
        tellClient(.received(frame))
    }

    private mutating func deliverEvents(_ sequences: ClosedRange<UInt64>) {
        for sequence in sequences {
            if let createdAt = ledger.receive(sequence: sequence, at: now) { arrived(createdAt: createdAt) }
        }
    }

    /// An event or message created at `createdAt` arrived now, for the first time.
    private mutating func arrived(createdAt: Double) {
        // Every return before now is listed: the timeline applies each event at its time.
        if device.events.count > eventsSeenForReturns {
            recoveries.addReturns(RecoveryTimes.connectivityReturns(device.events[eventsSeenForReturns...], origin: 0))
            eventsSeenForReturns = device.events.count
        }
        recoveries.arrived(createdAt: createdAt, at: now)
    }

    private mutating func scheduleNextEvent() {
        if let time = times.events.next() { queue.schedule(.createEvent, at: time) } else { eventsEnded = true }
    }

    private mutating func scheduleNextMessage() {
        if let time = times.messages.next() { queue.schedule(.produceMessage, at: time) } else { messagesEnded = true }
    }

    // MARK: Actions

    /// Gives the client an input and carries out what it asks for, in order.
    private mutating func tellClient(_ input: ClientInput) {
        let start = clientActions.count
        switch input {
        case .start: client.start(now: now, ledger: &ledger, into: &clientActions)
        case .received(let frame): client.received(frame, now: now, ledger: &ledger, into: &clientActions)
        case .messageProduced: client.messageProduced(now: now, ledger: &ledger, into: &clientActions)
        case .timerFired(let timer): client.timerFired(timer, now: now, ledger: &ledger, into: &clientActions)
        case .connectionEnded(let end): client.connectionEnded(end, now: now, ledger: &ledger, into: &clientActions)
        case .networkChanged(let available):
            client.networkChanged(available: available, now: now, ledger: &ledger, into: &clientActions)
        case .addressChanged: client.addressChanged(now: now, ledger: &ledger, into: &clientActions)
        }
        // Each action may tell a machine more; what that appends is carried out and dropped
        // before the next of these.
        let end = clientActions.count
        for index in start..<end {
            switch clientActions[index] {
            case .connect:
                if let old = current {
                    recordDetection(of: old)
                    closeSide(.up, of: old)
                }
                current = openConnection()
            case .openSpareConnection:
                transmit(.preface, .up, on: openConnection())
            case .send(let frame):
                guard let id = current, links[id]?.clientOpen == true else { continue }
                transmit(frame, .up, on: id)
            case .closeConnection:
                guard let id = current else { continue }
                recordDetection(of: id)
                current = nil
                closeSide(.up, of: id)
            case .setTimer(let timer, let time):
                clientTimers[timer.rawValue] = deadline(at: time)
            case .cancelTimer(let timer):
                clientTimers[timer.rawValue] = nil
            }
        }
        clientActions.truncate(to: start)
    }

    /// Gives the server an input and carries out what it asks for, in order.
    private mutating func tellServer(_ input: ServerInput) {
        let start = serverActions.count
        switch input {
        case .createEvent: server.createEvent(now: now, into: &serverActions)
        case .received(let frame, let id): server.received(frame, on: id, now: now, into: &serverActions)
        case .timerFired(let timer): server.timerFired(timer, now: now, into: &serverActions)
        case .connectionEnded(let id): server.connectionEnded(id, into: &serverActions)
        case .migrated(let id): server.migrated(id, now: now, into: &serverActions)
        }
        let end = serverActions.count
        for index in start..<end {
            switch serverActions[index] {
            case .send(let frame, let id):
                guard links[id]?.serverOpen == true else { continue }
                transmit(frame, .down, on: id)
            case .close(let id):
                closeSide(.down, of: id)
            case .setTimer(let timer, let time):
                let deadline = deadline(at: time)
                if let index = serverTimers.firstIndex(where: { $0.timer == timer }) {
                    serverTimers[index].deadline = deadline
                } else {
                    serverTimers.append((timer, deadline))
                }
            case .cancelTimer(let timer):
                serverTimers.removeAll { $0.timer == timer }
            }
        }
        serverActions.truncate(to: start)
    }

    // MARK: The path

    /// A new connection; its SYN crosses the radio.
    private mutating func openConnection() -> ConnectionID {
        applyTimeline()
        if overDatagrams {
            let id = device.openDatagramFlow(at: now)
            links[id] = ModelLink(lastActivity: now)
            quicPaths[id] = QUICPath(openedAt: now)
            datagrams.flows += 1
            tally.opened += 1
            return id
        }
        let id = device.openConnection(at: now)
        _ = device.handshake(on: id, at: now)
        links[id] = ModelLink(lastActivity: now)
        tally.opened += 1
        return id
    }

    /// Writes a frame on the connection; it leaves with the frames written just before it on
    /// the same connection and direction, when the current occurrence has been handled.
    private mutating func transmit(_ frame: Frame, _ direction: Direction, on id: ConnectionID) {
        if overDatagrams {
            packetize(frame, direction, on: id)
            return
        }
        let sizes = wire.chunks(frame, at: now)
        for (index, size) in sizes.enumerated() {
            // The peer acts on the frame when its last write arrives.
            write(size, completing: index == sizes.count - 1 ? frame : nil, direction, on: id, separate: sizes.count > 1)
        }
    }

    /// Adds `size` bytes to the writes: behind the last one when it goes the same way on the
    /// same connection and neither is a write of its own (nor, given `capacity`, would the two
    /// be larger than it), else as a write of its own. Inlined: it runs for every write.
    @inline(__always)
    private mutating func write(
        _ size: Int, completing completed: Frame?, _ direction: Direction, on id: ConnectionID, separate: Bool,
        capacity: Int = .max
    ) {
        guard !separate, unsent.count > sealed, let last = unsent.last, !last.separate, last.connection == id,
            last.direction == direction, last.bytes + size <= capacity
        else {
            unsent.append(Write(connection: id, direction: direction, bytes: size, frame: completed, separate: separate))
            return
        }
        unsent[unsent.count - 1].bytes += size
        guard let completed else { return }
        if unsent[unsent.count - 1].frame == nil {
            unsent[unsent.count - 1].frame = completed
        } else {
            if unsent[unsent.count - 1].more == 0 {
                mergedKeys += 1
                unsent[unsent.count - 1].more = mergedKeys
            }
            mergedFrames[unsent[unsent.count - 1].more, default: []].append(completed)
        }
    }

    /// Puts the writes on the path through the device model, as the proxy does the chunks it reads.
    private mutating func flush() {
        while flushed < unsent.count {
            sealed = unsent.count
            applyTimeline()
            while flushed < sealed {
                let write = unsent[flushed]
                flushed += 1
                let id = write.connection
                if overDatagrams {
                    send(packet: newPacket(write))
                    continue
                }
                guard let slot = noteActivity(on: id) else {
                    dropMergedFrames(of: write)
                    continue
                }
                switch device.send(write.bytes, write.direction, on: id, at: now) {
                case .deliver(let delivery):
                    // As the device model: uplink bytes refresh the NAT when they get through.
                    if write.direction == .up { links[slot: slot].bytesGotThrough(at: delivery.at) }
                    queue.schedule(
                        .arrival(id, write.direction, bytes: write.bytes, frame: write.frame, more: write.more), at: delivery.at)
                case .discard:
                    dropMergedFrames(of: write)
                    swallowed(write.direction, on: id)
                case .reset:
                    dropMergedFrames(of: write)
                    reset(id)
                }
            }
        }
        unsent.truncate(to: 0)
        flushed = 0
        sealed = 0
    }

    /// A write that goes nowhere takes its merged frames with it.
    private mutating func dropMergedFrames(of write: Write) {
        if write.more != 0 { mergedFrames[write.more] = nil }
    }

    /// A FIN from one side: passed on if the path still carries it.
    private mutating func closeSide(_ direction: Direction, of id: ConnectionID) {
        guard var link = links[id] else { return }
        if direction == .up {
            guard link.clientOpen else { return }
            link.clientOpen = false
        } else {
            guard link.serverOpen else { return }
            link.serverOpen = false
        }
        links[id] = link
        flush()
        // A QUIC connection is dropped silently: nothing crosses the path.
        if !overDatagrams, case .deliver(let delivery) = device.send(0, direction, on: id, at: now) {
            queue.schedule(.finArrival(id, direction), at: delivery.at)
        }
        if !link.clientOpen && !link.serverOpen {
            links[id] = nil
            if overDatagrams {
                quicPaths[id] = nil
                device.closeDatagramFlow(id)
                for (key, packet) in packets where packet.write.connection == id { forget(packet: key) }
            } else {
                device.closeConnection(id)
            }
            tally.closed += 1
        }
    }

    /// The path swallowed bytes (blackhole or expired NAT): the sender's TCP retransmits and,
    /// past `tcp_retries2`, gives up.
    private mutating func swallowed(_ direction: Direction, on id: ConnectionID) {
        guard var link = links[id] else { return }
        if link.diedAt == nil { link.diedAt = natExpiry(link) ?? now }
        link.path.silence()
        if link.path.swallowed(from: direction.source) {
            queue.schedule(.retransmissionGiveUp(id, direction), at: now + tcpRetransmissionGiveUpSeconds)
        }
        links[id] = link
    }

    /// When the NAT forgot the connection, if that is what killed it.
    private func natExpiry(_ link: ModelLink) -> Double? {
        guard let timeout = device.profile.nat?.idleTimeout, now - link.lastActivity > timeout else { return nil }
        return link.lastActivity + timeout
    }

    /// Bytes are written on `id` now: the NAT's idle timer restarts, unless it already expired.
    /// Returns the connection's slot in `links`; nil when the connection is gone.
    private mutating func noteActivity(on id: ConnectionID) -> Int? {
        guard let slot = links.slot(of: id) else { return nil }
        guard links[slot: slot].diedAt == nil else { return slot }
        if let expiry = natExpiry(links[slot: slot]) {
            links[slot: slot].diedAt = expiry
        } else {
            links[slot: slot].lastActivity = now
        }
        return slot
    }

    /// Both sides get a RST now.
    private mutating func reset(_ id: ConnectionID) {
        guard var link = links[id] else { return }
        if link.diedAt == nil {
            link.diedAt = natExpiry(link) ?? now
            links[id] = link
        }
        recordDetection(of: id)
        tally.reset += 1
        abandon(id)
        tellServer(.connectionEnded(id))
        if id == current {
            current = nil
            tellClient(.connectionEnded(.reset))
        }
    }

    /// Forgets a connection both sides have given up.
    private mutating func abandon(_ id: ConnectionID) {
        guard links.removeValue(forKey: id) != nil else { return }
        device.closeConnection(id)
    }

    private mutating func recordDetection(of id: ConnectionID) {
        guard id == current, let died = links[id]?.diedAt else { return }
        ledger.recordDetection(after: now - died)
    }

    private mutating func applyTimeline() {
        guard let next = device.nextEventTime, next <= now else { return }
        let before = device.events.count
        for action in device.advance(to: now) {
            switch action {
            case .reset(let ids):
                for id in ids { reset(id) }
            case .silence(let ids):
                for id in ids where links[id] != nil {
                    tally.blackholed += 1
                    if links[id]?.diedAt == nil { links[id]?.diedAt = now }
                    links[id]?.path.silence()
                }
            }
        }
        moveRetimedArrivals()
        for event in device.events[before...] {
            queue.schedule(.networkCheck, at: event.at)
            if let gap = event.durationSeconds, gap > 0 { queue.schedule(.networkCheck, at: event.at + gap) }
        }
    }

    /// Moves the arrivals a link change or a dead connection's freed bytes re-timed
    /// (`DeviceModel.takeRetimedDeliveries`), as the proxy moves its delay lines: each send put
    /// one chunk on the link and one arrival (or FIN) on the agenda, so a connection's latest
    /// pending ones in a direction are the chunks that moved.
    private mutating func moveRetimedArrivals() {
        for moved in device.takeRetimedDeliveries() {
            queue.retime(latest: moved.dues) { occurrence in
                switch occurrence {
                case .arrival(let id, let direction, _, _, _), .finArrival(let id, let direction):
                    id == moved.connection && direction == moved.direction
                default: false
                }
            }
        }
    }

    private mutating func count(_ size: Int, _ direction: Direction) {
        guard size > 0 else { return }
        bytes.update(direction) { $0 += size }
        segments.add(size, direction)
    }

    // MARK: QUIC

    /// A QUIC packet on its way, or lost and waiting for its sender's probe timeout.
    private struct Packet: Sendable {
        var write: Write
        /// Its place in the order of its direction (`Frame.travelsInOrder`); nil for control
        /// frames, which the receiver acts on as they arrive.
        var sequence: UInt64?
        /// How many times it was sent and lost.
        var losses = 0
        /// Going up: the NAT mapping it arrived by.
        var mapping = 0
        /// When it was last sent.
        var sentAt = 0.0
    }

    /// Writes a frame as QUIC packets: frames written back to back share a packet up to a
    /// datagram's size, and a frame larger than one is split over several.
    private mutating func packetize(_ frame: Frame, _ direction: Direction, on id: ConnectionID) {
        let capacity = Self.packetCapacity
        if frame == .ping(fromClient: true) { quicPaths[id]?.pingSentAt = now }
        let sizes = wire.chunks(frame, at: now)
        for (index, size) in sizes.enumerated() {
            var left = size
            repeat {
                let piece = min(left, capacity)
                left -= piece
                let last = index == sizes.count - 1 && left == 0
                write(
                    piece, completing: last ? frame : nil, direction, on: id, separate: sizes.count > 1 || size > capacity,
                    capacity: capacity)
            } while left > 0
        }
    }

    /// A packet for `write`, with its place in the order of its direction if it carries
    /// frames that travel in order.
    private mutating func newPacket(_ write: Write) -> UInt64 {
        packetKeys += 1
        let inOrder = write.frame?.travelsInOrder ?? true || (mergedFrames[write.more]?.contains { $0.travelsInOrder } ?? false)
        let sequence = inOrder ? quicPaths[write.connection]?.sequence(write.direction) : nil
        packets[packetKeys] = Packet(write: write, sequence: sequence)
        return packetKeys
    }

    /// Sends the packet's datagram: it arrives, or it is lost and its sender sends it again
    /// after its probe timeout, doubled for each loss in a row (RFC 9002 section 6.2), until
    /// the sender's idle timeout ends the connection.
    private mutating func send(packet key: UInt64) {
        guard let packet = packets[key], let path = quicPaths[packet.write.connection] else {
            forget(packet: key)
            return
        }
        let write = packet.write
        let id = write.connection
        // A mapping the NAT forgot: the server cannot reach the phone since it went.
        if links[id]?.diedAt == nil, let expiredAt = device.udpMappingExpiry(of: id, at: now) {
            links[id]?.diedAt = expiredAt
            if !device.isDisconnected(at: expiredAt) { natExpiriesWithNetwork += 1 }
        }
        packets[key]?.sentAt = now
        let sentTo = write.direction == .down ? path.serverMapping : nil
        let size = write.bytes + WireFormat.quicPacketOverhead
        switch device.sendDatagram(size, write.direction, on: id, mapping: sentTo, at: now) {
        case .deliver(let delivery, let mapping):
            datagrams.count(size, write.direction, droppedBy: nil)
            packets[key]?.mapping = mapping
            queue.schedule(.packetArrival(key), at: delivery.at)
        case .drop(let cause):
            datagrams.count(size, write.direction, droppedBy: cause)
            guard frames(of: write, satisfy: \.isSentAgainWhenLost) else {
                forget(packet: key)
                return
            }
            packets[key]?.losses += 1
            queue.schedule(.packetLost(key), at: now + path.roundTrip.probeTimeout(afterProbes: packet.losses))
        }
    }

    /// Whether a write's frames satisfy a rule of QUIC's (sent again when lost, acknowledged):
    /// its one frame's answer; a write of several merged frames, or a piece of a split one,
    /// carries stream data, which does.
    private func frames(of write: Write, satisfy rule: (Frame) -> Bool) -> Bool {
        guard write.more == 0, let frame = write.frame else { return true }
        return rule(frame)
    }

    /// The frames one packet carries: a datagram of `WireFormat.quicMinimumDatagram`.
    private static var packetCapacity: Int { WireFormat.quicFrames(datagram: WireFormat.quicMinimumDatagram) }

    private mutating func forget(packet key: UInt64) {
        guard let packet = packets.removeValue(forKey: key) else { return }
        dropMergedFrames(of: packet.write)
    }

    /// A packet's datagram arrived. At a server that forgot the connection it draws a stateless
    /// reset; from a new address of the phone it moves the connection there (the server's
    /// path validation follows); stream data is handed over in order.
    private mutating func packetArrived(_ key: UInt64) {
        guard let packet = packets[key], let link = links[packet.write.connection] else {
            forget(packet: key)
            return
        }
        let id = packet.write.connection
        let direction = packet.write.direction
        bytes[direction] += packet.write.bytes + WireFormat.quicPacketOverhead
        if direction == .up {
            guard link.serverOpen else {
                forget(packet: key)
                quicPaths[id]?.serverMapping = packet.mapping
                write(wire.bytes(.statelessReset), completing: .statelessReset, .down, on: id, separate: true)
                return
            }
            // The phone is reachable again once a packet it sent after it became unreachable
            // (an outage, a handover, its NAT mapping gone) gets through.
            if let died = link.diedAt, packet.sentAt >= died {
                recordDetection(of: id)
                links[id]?.diedAt = nil
            }
            if packet.mapping != quicPaths[id]?.serverMapping {
                quicPaths[id]?.serverMapping = packet.mapping
                datagrams.remappings += 1
                tellServer(.migrated(id))
            }
        } else if !link.clientOpen {
            forget(packet: key)
            return
        }
        if frames(of: packet.write, satisfy: \.elicitsAcknowledgement) {
            write(
                wire.bytes(.packetAck), completing: .packetAck, direction == .up ? .down : .up, on: id, separate: false,
                capacity: Self.packetCapacity)
        }
        guard let sequence = packet.sequence else {
            handOver(key)
            return
        }
        for ready in quicPaths[id]?.arrived(sequence: sequence, key: key, direction) ?? [] { handOver(ready) }
    }

    /// The receiver acts on the packet's frames.
    private mutating func handOver(_ key: UInt64) {
        guard let packet = packets.removeValue(forKey: key) else { return }
        let write = packet.write
        let rest = write.more == 0 ? [] : mergedFrames.removeValue(forKey: write.more) ?? []
        for frame in (write.frame.map { [$0] } ?? []) + rest {
            sampleRoundTrip(frame, on: write.connection)
            arrive(frame, write.direction, on: write.connection)
        }
    }

    /// The client's round-trip samples: its first flight's answer, and the first ACK after each
    /// PING (the ACK of the PING when nothing else is in flight, as with a keepalive).
    private mutating func sampleRoundTrip(_ frame: Frame, on id: ConnectionID) {
        guard let path = quicPaths[id] else { return }
        switch frame {
        case .serverHello:
            quicPaths[id]?.sample(roundTrip: now - path.openedAt)
        case .packetAck:
            guard let sentAt = path.pingSentAt else { return }
            quicPaths[id]?.sample(roundTrip: now - sentAt)
            quicPaths[id]?.pingSentAt = nil
        default:
            break
        }
    }
}

extension Frame {
    /// Whether the receiver acknowledges a packet of it (RFC 9000 section 13.2.1): all but an
    /// ACK and a stateless reset. The model acknowledges each at once, where receivers wait up
    /// to `max_ack_delay` (25 ms) for a second packet: the same for traffic sparser than that,
    /// twice the ACKs for a burst.
    var elicitsAcknowledgement: Bool { self != .packetAck && self != .statelessReset }

    /// Whether QUIC sends it again when its packet is lost: not an ACK, a PATH_RESPONSE (RFC
    /// 9000 section 13.3) or a stateless reset.
    var isSentAgainWhenLost: Bool { elicitsAcknowledgement && self != .pathResponse }

    /// Whether QUIC hands the frame over in order: stream data, and the handshake's CRYPTO
    /// frames (so 0-RTT data is not acted on before the ClientHello it depends on). Control
    /// frames (PING, ACK, path validation, a stateless reset) are acted on as they arrive.
    var travelsInOrder: Bool {
        switch self {
        case .clientHello, .serverHello, .clientFinished, .open, .accepted, .event, .message, .ack: true
        default: false
        }
    }
}
