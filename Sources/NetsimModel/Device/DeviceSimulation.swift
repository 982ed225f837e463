import NetsimCore

/// One phone and its app for one transport, played in virtual time: the workload creates
/// events at the server and messages in the app, the transport's client and server state
/// machines put frames on connections, and every frame crosses the phone's `DeviceModel`
/// exactly as the live proxy sends a chunk (radio waits, serialization, delay, loss, outages,
/// NAT) and arrives when the model says. A connection's death is learnt as real peers learn it:
/// a RST, the peer's FIN, a probe left unanswered, a request timeout, or TCP giving up on
/// unacknowledged data; a dead idle connection with nothing to send stays silent for ever.
struct DeviceSimulation<Client: TransportClientModel>: Sendable {
    /// Plain values only, so the buffers of writes copy them without reference counting.
    struct Write: Sendable {
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
        case spareReceived(Frame)
        case spareEnded(ConnectionEnd)
    }

    /// An input to the server, whose actions are carried out at once (`tellServer`).
    enum ServerInput {
        case createEvent
        case received(Frame, on: ConnectionID)
        case timerFired(ServerTimer)
        case connectionEnded(ConnectionID)
        case migrated(ConnectionID)
    }

    enum Occurrence: Sendable {
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
        /// The app (`inbox`) finished handling an event.
        case appFinished
    }

    var device: DeviceModel
    var queue = EventQueue<Occurrence>()
    private(set) var ledger: AppLedger
    private(set) var server: ModelServer
    private var client: Client
    let wire: WireFormat
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
    var mergedFrames: [UInt64: [Frame]] = [:]
    private var mergedKeys: UInt64 = 0
    private var current: ConnectionID?
    /// The client's spare connection (`TransportAction.openSpareConnection`), if it has one.
    private var spare: ConnectionID?
    var links = ConnectionTable<ModelLink>()
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
    var quicPaths = ConnectionTable<QUICPath>()
    /// QUIC packets on their way or waiting to be sent again, by key.
    var packets: [UInt64: Packet] = [:]
    var packetKeys: UInt64 = 0
    /// The phone's address changes seen (handovers), to tell the client of the next.
    private var addressChangesSeen = 0
    var datagrams = DatagramFigures()
    var natExpiriesWithNetwork = 0
    private var tally = DeviceOutcome.Tally()
    var bytes = PerDirection<Int>(up: 0, down: 0)
    private var segments = SegmentCounts()
    var now = 0.0
    /// Occurrences handled, for the engine's throughput figure.
    private(set) var steps = 0
    /// Whether `run` keeps `pingMarks` (the keepalive tuner's scenarios do).
    var marksPings = false
    /// The device's figures when the client's ping timer fired first and last (each before
    /// it was handled): the starts of its first and last keepalive periods.
    private(set) var pingMarks: (first: (time: Double, remains: DeviceRemains), last: (time: Double, remains: DeviceRemains))?
    /// A push client's app with a consumer: its buffer and pace; nil: each event is handled at
    /// once as it arrives.
    private var inbox: AppInbox?
    /// A pulling app's flow control, on the server's side (`FlowWindow`).
    private var window: FlowWindow?
    /// A REST app with a consumer works through each poll's answer at its pace.
    private let restConsumer: ClientSettings.Consumer?
    /// With a consumer, the server's queue is watched: the last event handed to the app's
    /// connection (pushed, or answered to a poll), as the live `EventStore` marks it.
    private let watchesServerQueue: Bool
    private var sentThrough: UInt64 = 0
    /// REST with a consumer: when the app will have handled the last poll's answer (whose
    /// events the ledger already has, timed then); the run is not settled before.
    private var appBusyUntil = 0.0

    /// `consumer` and `receiveBuffer`: the app's pace, and what a push client (`receiveBuffer`
    /// given) holds between the network and the app; REST's pace is per poll's answer. Without
    /// a consumer each event is handled as it arrives.
    init(
        device: DeviceModel, client: Client, server: ModelServer, wire: WireFormat, times: DeviceTimes, outboxLimit: Int,
        consumer: ClientSettings.Consumer? = nil, receiveBuffer: ClientSettings.ReceiveBuffer? = nil
    ) {
        self.device = device
        self.client = client
        self.server = server
        self.wire = wire
        self.times = times
        self.ledger = AppLedger(outboxLimit: outboxLimit)
        self.overDatagrams = wire.encoding.isQUIC
        watchesServerQueue = consumer != nil
        if let receiveBuffer {
            restConsumer = nil
            inbox = AppInbox(receiveBuffer, consumer: consumer)
            if inbox?.mode == .pull {
                let isGRPC = wire.encoding == .transport(.grpc)
                window = FlowWindow(capacity: isGRPC ? FlowWindow.http2InitialWindowBytes : FlowWindow.socketBufferBytes)
            }
        } else {
            restConsumer = consumer
        }
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
        eventsEnded && messagesEnded && now >= appBusyUntil && ledger.isSettled(skippedThrough: server.record.skippedThrough)
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
            if watchesServerQueue {
                // As live notes it: the new event and those before it not yet handed over.
                let created = UInt64(server.eventsCreated + 1)
                server.noteQueued(Int(created - min(created, sentThrough)))
            }
            tellServer(.createEvent)
        case .produceMessage:
            scheduleNextMessage()
            _ = ledger.produceMessage(at: now)
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
            guard let link = links[id] else { return }
            if direction == .down, !link.clientOpen {
                // The server's FIN reaches a client that closed first: the last of the connection.
                if !link.serverOpen { forgetClosed(id) }
                return
            }
            guard !link.path.isSilenced else { return }
            if direction == .up {
                guard links[id]?.serverOpen == true else { return }
                tellServer(.connectionEnded(id))
                closeSide(.down, of: id)
            } else {
                guard links[id]?.clientOpen == true else { return }
                closeSide(.up, of: id)
                clientLost(id, .closedByPeer)
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
                guard links[id]?.clientOpen == true else { return }
                if id == spare {
                    abandon(id)
                    clientLost(id, .timedOut)
                    return
                }
                guard id == current else { return }
                recordDetection(of: id)
                abandon(id)
                clientLost(id, .timedOut)
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
        case .appFinished:
            appFinished()
        }
    }

    mutating func arrive(_ frame: Frame, _ direction: Direction, on id: ConnectionID) {
        if direction == .up {
            guard links[id]?.serverOpen == true else { return }
            switch frame {
            case .postRequest(let message), .message(let message):
                if let createdAt = server.messageArrived(message, at: now) { arrived(createdAt: createdAt) }
            case .messageBatch(let first, let last):
                for message in first...last {
                    if let createdAt = server.messageArrived(message, at: now) { arrived(createdAt: createdAt) }
                }
            default:
                break
            }
            tellServer(.received(frame, on: id))
            return
        }
        if id == spare {
            if links[id]?.clientOpen == true { tellClient(.spareReceived(frame)) }
            return
        }
        guard id == current, links[id]?.clientOpen == true, client.delivers(frame) else { return }
        switch frame {
        case .event(let sequence) where inbox != nil:
            inboxReceived(sequence, on: id)
        case .event(let sequence):
            deliverEvents(sequence...sequence)
        case .pollResponse(let first, let last, _) where last >= first:
            if let restConsumer {
                consumeAnswer(first...last, at: restConsumer.eventsPerSecond)
            } else {
                deliverEvents(first...last)
            }
        case .ack(let message), .postResponse(let message):
            ledger.acknowledge(message)
        case .acks(let first, let last):
            for message in first...last { ledger.acknowledge(message) }
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

    /// A REST app with a consumer works through a poll's answer at `rate` events a second, as the
    /// live `LiveRESTTransport` does: event `i` (from 0) reaches the app `(i + 1) / rate` seconds
    /// after the answer. The client polls again once it has handled the last
    /// (`RESTPollingClientModel`'s consumer). The answer is what the app holds meanwhile.
    private mutating func consumeAnswer(_ sequences: ClosedRange<UInt64>, at rate: Double) {
        ledger.noteBuffered(events: sequences.count, bytes: sequences.count * wire.eventPayloadBytes)
        appBusyUntil = now + Double(sequences.count) / rate
        for (index, sequence) in sequences.enumerated() {
            let time = now + Double(index + 1) / rate
            if let createdAt = ledger.receive(sequence: sequence, at: time) { arrived(createdAt: createdAt, at: time) }
        }
    }

    /// Event `sequence` came off connection `id` into the app's inbox.
    private mutating func inboxReceived(_ sequence: UInt64, on id: ConnectionID) {
        // Mutated in place (`inbox!`): a copy would copy its buffer at every event.
        guard inbox != nil else { return }
        let event = AppInbox.Event(
            sequence: sequence, payloadBytes: wire.eventPayloadBytes, windowBytes: flowControlledBytes(of: sequence), connection: id)
        if inbox!.mode != .pull { ledger.readOffNetwork(sequence) }
        let arrival = inbox!.arrived(event, at: now)
        ledger.noteInbox(peakEvents: inbox!.peakEvents, peakBytes: inbox!.peakBytes, drops: inbox!.drops)
        if let until = arrival.handlingUntil { queue.schedule(.appFinished, at: until) }
        if let read = arrival.read { windowOpened(by: read) }
    }

    /// The app handled its event: it reaches the ledger now, and the app takes the next.
    private mutating func appFinished() {
        guard inbox != nil else { return }
        let (done, next) = inbox!.finish(at: now)
        ledger.noteInbox(peakEvents: inbox!.peakEvents, peakBytes: inbox!.peakBytes, drops: inbox!.drops)
        if let done { deliverEvents(done.sequence...done.sequence) }
        guard let next else { return }
        queue.schedule(.appFinished, at: next.handlingUntil)
        if next.read { windowOpened(by: next.event) }
    }

    /// A pulling app read `event` off its connection: the bytes go back to the server's window,
    /// and what it held back goes now.
    private mutating func windowOpened(by event: AppInbox.Event) {
        guard window != nil else { return }
        let released = window!.read(event.windowBytes, on: event.connection)
        for sequence in released where links[event.connection]?.serverOpen == true {
            sentThrough = sequence
            transmit(.event(sequence), .down, on: event.connection)
        }
    }

    /// The bytes of event `sequence` that flow control counts: the DATA frame's payload on
    /// HTTP/2 (the gRPC message), the TCP payload on a WebSocket.
    private func flowControlledBytes(of sequence: UInt64) -> Int {
        let bytes = wire.bytes(.event(sequence), at: now)
        return wire.encoding == .transport(.grpc) ? bytes - WireFormat.frameHeader : bytes
    }

    /// An event or message created at `createdAt` arrived now, for the first time.
    private mutating func arrived(createdAt: Double) {
        arrived(createdAt: createdAt, at: now)
    }

    /// An event or message created at `createdAt` arrives at `time` (now, or while the app works
    /// through a poll's answer), for the first time.
    private mutating func arrived(createdAt: Double, at time: Double) {
        // Every return before now is listed: the timeline applies each event at its time.
        if device.events.count > eventsSeenForReturns {
            recoveries.addReturns(RecoveryTimes.connectivityReturns(device.events[eventsSeenForReturns...], origin: 0))
            eventsSeenForReturns = device.events.count
        }
        recoveries.arrived(createdAt: createdAt, at: time)
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
        case .spareReceived(let frame): client.spareReceived(frame, now: now, ledger: &ledger, into: &clientActions)
        case .spareEnded(let end): client.spareEnded(end, now: now, ledger: &ledger, into: &clientActions)
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
                if let old = spare { closeSide(.up, of: old) }
                let id = openConnection()
                spare = id
                transmit(.preface, .up, on: id)
            case .closeSpareConnection:
                guard let id = spare else { continue }
                spare = nil
                closeSide(.up, of: id)
            case .promoteSpareConnection:
                guard let id = spare else { continue }
                spare = nil
                current = id
                links[id]?.promotedAt = now
            case .send(let frame):
                guard let id = current, links[id]?.clientOpen == true else { continue }
                transmit(frame, .up, on: id)
            case .sendOnSpare(let frame):
                guard let id = spare, links[id]?.clientOpen == true else { continue }
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
    mutating func tellServer(_ input: ServerInput) {
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
                if watchesServerQueue, !handOver(frame, on: id) { continue }
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

    /// With a consumer, the server hands `frame` to connection `id`: false when the window holds
    /// an event back (it stays in the server's queue). Marks what was handed over.
    private mutating func handOver(_ frame: Frame, on id: ConnectionID) -> Bool {
        switch frame {
        case .event(let sequence):
            if window != nil {
                let bytes = flowControlledBytes(of: sequence)
                guard window!.offer(sequence, bytes: bytes, on: id) else { return false }
            }
            sentThrough = sequence
        case .pollResponse(let first, let last, _):
            sentThrough = last >= first ? last : first - 1
        default:
            break
        }
        return true
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
    mutating func write(
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
    mutating func dropMergedFrames(of write: Write) {
        if write.more != 0 { mergedFrames[write.more] = nil }
    }

    /// A FIN from one side: passed on if the path still carries it.
    private mutating func closeSide(_ direction: Direction, of id: ConnectionID) {
        guard var link = links[id] else { return }
        if direction == .up {
            guard link.clientOpen else { return }
            link.clientOpen = false
            inbox?.connectionEnded(id)
        } else {
            guard link.serverOpen else { return }
            link.serverOpen = false
        }
        links[id] = link
        flush()
        // A QUIC connection is dropped silently: nothing crosses the path.
        var finOnItsWay = false
        if !overDatagrams, case .deliver(let delivery) = device.send(0, direction, on: id, at: now) {
            queue.schedule(.finArrival(id, direction), at: delivery.at)
            finOnItsWay = true
        }
        // A server that closes after a client that closed first still has its last answer and
        // its FIN on the way: they reach the proxy's socket to the client, which takes the first
        // write (and the live bench counts it, as the phone's radio carried it). The connection
        // is forgotten when that FIN arrives.
        if !link.clientOpen && !link.serverOpen && !(finOnItsWay && direction == .down) {
            forgetClosed(id)
        }
    }

    /// Forgets a connection both sides have closed.
    private mutating func forgetClosed(_ id: ConnectionID) {
        links[id] = nil
        window?.connectionEnded(id)
        if overDatagrams {
            quicPaths[id] = nil
            device.closeDatagramFlow(id)
            for (key, packet) in packets where packet.write.connection == id { forget(packet: key) }
        } else {
            device.closeConnection(id)
        }
        tally.closed += 1
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

    /// When the NAT forgot the connection, if that is what killed it: now, when it forgot it
    /// before the connection became the app's (`ModelLink.promotedAt`).
    private func natExpiry(_ link: ModelLink) -> Double? {
        guard let timeout = device.profile.nat?.idleTimeout, now - link.lastActivity > timeout else { return nil }
        let expiry = link.lastActivity + timeout
        if let promotedAt = link.promotedAt, promotedAt > expiry { return now }
        return expiry
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
        clientLost(id, .reset)
    }

    /// Tells the client that `id`, its connection or its spare (grpc-swift 2's second
    /// connection), ended, and forgets it as such; nothing if it is neither, as for a
    /// connection the client already let go.
    private mutating func clientLost(_ id: ConnectionID, _ end: ConnectionEnd) {
        inbox?.connectionEnded(id)
        if id == current {
            current = nil
            tellClient(.connectionEnded(end))
        } else if id == spare {
            spare = nil
            tellClient(.spareEnded(end))
        }
    }

    /// Forgets a connection both sides have given up.
    private mutating func abandon(_ id: ConnectionID) {
        guard links.removeValue(forKey: id) != nil else { return }
        inbox?.connectionEnded(id)
        window?.connectionEnded(id)
        device.closeConnection(id)
    }

    mutating func recordDetection(of id: ConnectionID) {
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
}
