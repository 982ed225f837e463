import Logging
import NIOCore
import NIOPosix
import NetsimConnection
import NetsimCore

/// One emulated phone inside the proxy: the pure `DeviceModel` driven by the wall clock, and
/// every connection of every forward rule and front end that `PhoneAssignment` gives it. All of it lives on one event loop, so the model is
/// never shared between threads and its answers come in the order the bytes arrived.
final class EmulatedDevice {
    let loop: any EventLoop
    let clock: ProxyClock
    let options: ProxyOptions
    /// Opens upstream connections: sockets, or a test's channels.
    private let dialer: UpstreamDialer
    /// Where the front ends' clients may go: `options.access`, with netsim's own listeners
    /// added as they are bound.
    private var access: AccessPolicy
    let logger: Logger
    /// Where what the phone does is published (`GET /events`).
    let events: PhoneEventPublisher
    /// The model, journaled while a triggered outage may still end early (`endOutage`).
    var phone: ReplannableDevice
    var model: DeviceModel { phone.model }
    var connections: [ConnectionID: ProxiedConnection] = [:]
    var timelineTimer: Scheduled<Void>?
    /// What the report, `/status` and `/metrics` count beside the model's figures.
    var tally = PhoneTally()
    var stopped = false
    private var warnedOfConnectionLimit = false
    /// Connections waiting for room on a full link queue, and the one timer per direction
    /// that wakes them when the model says the backlog has drained under the limit.
    private var roomWaiters = PerDirection<[ProxiedConnection]>(up: [], down: [])
    var roomTimers = PerDirection<Scheduled<Void>?>(up: nil, down: nil)

    /// What the phone does, as `GET /events` streams it, and the timer that looks again when
    /// the follower says (the radio's next change, connectivity's return).
    var follower: PhoneEventFollower
    var followTimer: Scheduled<Void>?
    var followTimerDue = Double.infinity

    /// The phone's UDP datagrams so far, and those waiting, bounded by `options.bufferLimit`.
    var datagrams: DatagramLedger

    /// What the device did on planned times while an outage may still end early (`HeldEffects`).
    typealias Held = HeldEffects<ProxiedConnection, MovableTimer>
    var held = Held()

    /// This phone's number in a run of several (`NetsimProxy.phoneCount`); nil in a one-phone run.
    let number: Int?
    /// This phone's seed (the run's + its number - 1), for its report.
    let seed: UInt64

    init(
        model: DeviceModel, phone number: Int?, seed: UInt64, loop: any EventLoop, clock: ProxyClock, options: ProxyOptions,
        events: PhoneEventPublisher, logger: Logger, dialer: UpstreamDialer = .sockets
    ) {
        self.number = number
        self.seed = seed
        self.phone = ReplannableDevice(model)
        self.loop = loop
        self.clock = clock
        self.options = options
        self.dialer = dialer
        self.datagrams = DatagramLedger(limit: options.bufferLimit)
        self.access = options.access
        self.events = events
        self.logger = logger
        self.follower = PhoneEventFollower(radioState: model.radioState(at: 0))
    }

    // MARK: Connections

    /// Takes a freshly accepted client channel (on this device's loop) and dials its upstream.
    func accept(_ client: Channel, upstream: SocketAddress) throws {
        guard hasRoomForAConnection() else {
            // After the accept has registered the channel (the initializer runs before it).
            loop.assumeIsolated().execute { ProxiedConnection.abort(client) }
            return
        }
        let connection = open(from: client, to: upstream)
        try connection.attach(client, as: .client)
        connectUpstream(of: connection, to: upstream)
    }

    /// Refuses `listener` as a front end's destination from now on.
    func protect(_ listener: OwnListener) {
        access.ownListeners.append(listener)
    }

    /// Dials `destination` for a front end's client whose handshake named it, as the phone
    /// would: its address found first (`resolve`), then connected.
    /// `completion` gets the connection once its upstream is connected and active: the client
    /// joins it then (`ProxiedConnection.join`), after the front end has replied.
    func dial(_ destination: HostPort, from client: Channel, completion: @escaping (Result<ProxiedConnection, DialRefusal>) -> Void) {
        resolve(destination, for: .connection) { [self] resolved in
            switch resolved {
            case .success(let address): connect(client, to: address, for: destination, completion)
            case .failure(let refusal): completion(.failure(refusal))
            }
        }
    }

    /// Finds the address of a front end's destination as the phone would: a name is looked up
    /// first, the lookup crossing the emulated link (`DeviceModel.lookup`) while the system
    /// resolver answers for real, whichever is later. The steps, and which of them `access`
    /// refuses (with a log line that says what `purpose` was refused), are `DialPlan`'s.
    func resolve(
        _ destination: HostPort, for purpose: DialPurpose, completion: @escaping (Result<SocketAddress, DialRefusal>) -> Void
    ) {
        switch DialPlan(destination: destination, access: access).first {
        case .refuse(let refusal):
            refuse(purpose, to: destination, refusal, completion)
        case .connect:
            do {
                completion(.success(try SocketAddress(ipAddress: destination.host, port: destination.port)))
            } catch {
                refuse(purpose, to: destination, .unresolvable, completion)
            }
        case .lookUp(let name):
            lookUp(name, for: destination) { [self] resolved in
                // The policy as it is now: listeners bound meanwhile are protected too.
                let plan = DialPlan(destination: destination, access: access)
                let step = plan.afterLookup(resolvedTo: resolved?.ipAddress.flatMap(IPAddressBytes.init))
                guard let resolved, case .connect = step else {
                    let refusal = if case .refuse(let why) = step { why } else { DialRefusal.unresolvable }
                    return refuse(purpose, to: destination, refusal, completion, resolvedTo: resolved)
                }
                completion(.success(resolved))
            }
        }
    }

    /// Looks `name` up as the phone's resolver would: the query and its answer cross the
    /// emulated link (`DeviceModel.lookup`, which an early end of an outage may move) while the
    /// system resolver answers for real; `answered` gets its address, or nil, whichever is later.
    private func lookUp(_ name: String, for destination: HostPort, answered: @escaping (SocketAddress?) -> Void) {
        let now = clock.now()
        applyTimeline(upTo: now)
        let ticket = phone.nextTicket
        let answerTime = publishingWakeUp(by: .lookup, of: nil, to: destination.description, .up) { $0.lookup(at: now) }
        let answer = MovableTimer(loop: loop, at: clock.deadline(answerTime))
        if let ticket { held.hold(.lookup(answer, answeredAt: answerTime), answeredBy: ticket) }
        let resolved = NIOThreadPool.singleton.runIfActive(eventLoop: loop) { [port = destination.port] in
            Result { try SocketAddress.makeAddressResolvingHost(name, port: port) }
        }
        resolved.and(answer.fired.futureResult).assumeIsolated().whenComplete { outcome in
            guard case .success((.success(let address), _)) = outcome else { return answered(nil) }
            answered(address)
        }
    }

    private func connect(
        _ client: Channel, to upstream: SocketAddress, for destination: HostPort,
        _ completion: @escaping (Result<ProxiedConnection, DialRefusal>) -> Void
    ) {
        guard client.isActive else { return completion(.failure(.clientLeft)) }
        guard hasRoomForAConnection() else { return completion(.failure(.busy)) }
        let connection = open(from: client, to: upstream, named: destination)
        connection.whenUpstreamActive = { completion(.success(connection)) }
        connectUpstream(of: connection, to: upstream).assumeIsolated().whenFailure { _ in
            completion(.failure(.unreachable))
        }
    }

    private func refuse<Success>(
        _ purpose: DialPurpose, to destination: HostPort, _ refusal: DialRefusal, _ completion: (Result<Success, DialRefusal>) -> Void,
        resolvedTo address: SocketAddress? = nil
    ) {
        let target = address.map { "\(destination) (\($0.ipAddress ?? "?"))" } ?? "\(destination)"
        switch refusal {
        case .notAllowed(let why): logger.warning("refused \(purpose.rawValue) to \(target): \(why)")
        case .unresolvable: logger.warning("refused \(purpose.rawValue) to \(target): the name does not resolve")
        case .unreachable, .busy, .clientLeft: break
        }
        completion(.failure(refusal))
    }

    /// Whether another connection fits under `ProxyOptions.maximumConnections`; the first time
    /// one does not, says so.
    private func hasRoomForAConnection() -> Bool {
        guard connections.count >= options.maximumConnections else { return true }
        if !warnedOfConnectionLimit {
            warnedOfConnectionLimit = true
            logger.warning(
                "\(options.maximumConnections) connections open: resetting new ones until some close (each needs two of the open-file limit; raise it with ulimit -n)"
            )
        }
        return false
    }

    /// A new connection of the device from `client` to `upstream`: its SYN crosses the radio.
    private func open(from client: Channel, to upstream: SocketAddress, named destination: HostPort? = nil) -> ProxiedConnection {
        let now = clock.now()
        applyTimeline(upTo: now)
        let id = phone.openConnection(at: now)
        events.publish(.connectionOpened(at: now, connection: id))
        let fallback = destination.map(\.description) ?? "\(upstream.ipAddress ?? "?"):\(upstream.port ?? 0)"
        let ticket = phone.nextTicket
        let handshake = publishingWakeUp(by: .handshake, of: id, to: fallback, .up) { $0.handshake(on: id, at: now) }
        let opening = Held.Opening(
            connection: id, clientPort: client.remoteAddress?.port ?? 0, upstreamAddress: upstream.ipAddress,
            upstreamPort: upstream.port)
        if let ticket {
            held.hold(.opened(opening, handshake: handshake), answeredBy: ticket)
        } else {
            capture(opening, handshake: handshake)
        }
        modelChanged(at: now)
        let connection = ProxiedConnection(
            id: id, device: self, destination: DestinationNamer(fallback: fallback, port: destination?.port ?? upstream.port ?? 0),
            openedAt: now)
        connections[id] = connection
        tally.connectionOpened()
        let target = destination.map { "\($0) (\(upstream))" } ?? "\(upstream)"
        logger.debug("connection \(id) from \(client.remoteAddress?.description ?? "?") to \(target)")
        return connection
    }

    /// Dials the connection's upstream; if it cannot be reached, the connection is closed.
    @discardableResult
    private func connectUpstream(of connection: ProxiedConnection, to upstream: SocketAddress) -> EventLoopFuture<any Channel> {
        let bound = NIOLoopBound(connection, eventLoop: loop)
        let connected = dialer.dial(loop, upstream) { channel in
            channel.eventLoop.makeCompletedFuture { try bound.value.attach(channel, as: .upstream) }
        }
        connected.assumeIsolated().whenFailure { [self] error in
            logger.warning("connection \(connection.id): upstream \(upstream) unreachable (\(error)); closing the client connection")
            connection.upstreamUnreachable()
        }
        return connected
    }

    func send(_ buffer: ByteBuffer, _ direction: Direction, on connection: ProxiedConnection) -> SendVerdict {
        let now = clock.now()
        applyTimeline(upTo: now)
        if direction == .up, !connection.destination.isSettled {
            buffer.withUnsafeReadableBytes { connection.destination.look(at: $0) }
            if connection.destination.isSettled { tally.rename(wakeUpsOf: connection.id, to: connection.destination.name) }
        }
        let ticket = phone.nextTicket
        let verdict = publishingWakeUp(by: .data, of: connection.id, to: connection.destination.name, direction) {
            $0.send(buffer.readableBytes, direction, on: connection.id, at: now)
        }
        if case .deliver(let delivery) = verdict {
            let payload = options.observer.map { _ in Array(buffer.readableBytesView) }
            if let ticket {
                countDestination(of: connection)
                held.hold(.chunk(connection, direction, payload: payload, delivery, readAt: now), answeredBy: ticket)
            } else {
                carried(payload, direction, on: connection, delivery, readAt: now)
            }
        }
        modelChanged(at: now)
        return verdict
    }

    /// A chunk's delivery as planned: the capture sees it on air, the report counts its waits.
    private func carried(
        _ payload: [UInt8]?, _ direction: Direction, on connection: ProxiedConnection, _ delivery: Delivery, readAt: Double
    ) {
        if let payload { options.observer?.carried(connection.id, direction, payload, onAir: delivery.onAir, at: readAt) }
        account(delivery, direction, on: connection, at: clock.now())
    }

    /// Runs `call` on the model and, if its bytes woke the radio, says so on the event stream,
    /// naming what woke it.
    func publishingWakeUp<Result>(
        by cause: WakeCause, of connection: ConnectionID?, to destination: String, _ direction: Direction,
        _ call: (inout ReplannableDevice) -> Result
    ) -> Result {
        let before = model.wakeUps
        let ticket = phone.nextTicket
        let result = call(&phone)
        let wokeAt = model.wakeUps > before ? model.latestWakeUp : nil
        if let ticket {
            let candidate = Held.WakeCandidate(
                cause: cause, connection: connection, destination: destination, direction: direction, wokeAt: wokeAt)
            held.hold(.wakeUp(candidate), answeredBy: ticket)
        } else if let wokeAt {
            publishWakeUp(WakeUp(at: wokeAt, cause: cause, connection: connection, destination: destination, direction: direction))
        }
        return result
    }

    private func publishWakeUp(_ wake: WakeUp) {
        tally.wokeUp(wake)
        events.publish(.radioWoken(wake))
    }

    /// Counts a chunk's waits under its connection's destination; a FIN is a chunk of no bytes,
    /// as the radio's waits and the chunk delays count it.
    private func account(_ delivery: Delivery, _ direction: Direction, on connection: ProxiedConnection, at now: Double) {
        countDestination(of: connection)
        tally.carried(delivery, direction, to: connection.destination.name, now: now)
    }

    /// Counts `connection` under its destination, once, at its first chunk.
    private func countDestination(of connection: ProxiedConnection) {
        guard !connection.countedInDestinations else { return }
        connection.countedInDestinations = true
        tally.firstChunk(to: connection.destination.name)
    }

    /// The FIN of a half-close, crossing the path as a header-only packet.
    func sendEnd(_ direction: Direction, on connection: ProxiedConnection) -> SendVerdict {
        let now = clock.now()
        applyTimeline(upTo: now)
        let ticket = phone.nextTicket
        let verdict = publishingWakeUp(by: .close, of: connection.id, to: connection.destination.name, direction) {
            $0.send(0, direction, on: connection.id, at: now)
        }
        if case .deliver(let delivery) = verdict {
            if let ticket {
                countDestination(of: connection)
                held.hold(.end(connection, direction, delivery), answeredBy: ticket)
            } else {
                endCarried(direction, on: connection, delivery)
            }
        }
        modelChanged(at: now)
        return verdict
    }

    /// A FIN's delivery as planned: it is on air then (for the capture's close), and counts.
    private func endCarried(_ direction: Direction, on connection: ProxiedConnection, _ delivery: Delivery) {
        connection.lastFinOnAir = max(connection.lastFinOnAir, delivery.onAir.end)
        account(delivery, direction, on: connection, at: clock.now())
    }

    func linkHasRoom(_ direction: Direction) -> Bool {
        guard let limit = model.queueLimit(direction) else { return true }
        return phone.backlog(direction, at: clock.now()) < limit
    }

    /// Wakes `connection` (`linkMayHaveRoom`) once the link's queue in `direction` drains
    /// under its limit. Every waiter is woken then and checks again: one that finds the queue
    /// full once more waits again, for the drain time the queue then has.
    func waitForRoom(_ direction: Direction, _ connection: ProxiedConnection) {
        roomWaiters[direction].append(connection)
        guard roomTimers[direction] == nil else { return }
        armRoomTimer(direction)
    }

    /// Wakes the room waiters in `direction` when the queue, as it is now, next has room.
    private func armRoomTimer(_ direction: Direction) {
        roomTimers[direction]?.cancel()
        let now = clock.now()
        let roomAt = phone.queueRoomTime(direction, at: now) ?? now
        roomTimers[direction] = loop.assumeIsolated().scheduleTask(deadline: clock.deadline(roomAt)) { [self] in
            wakeRoomWaiters(direction)
        }
    }

    /// Moves the deliveries a link change or a reset re-timed (`DeviceModel.takeRetimedDeliveries`),
    /// and the wake-ups of connections waiting for the queue to have room, which moved with them.
    private func moveRetimedDeliveries() {
        let retimed = phone.takeRetimedDeliveries()
        guard !retimed.isEmpty else { return }
        for moved in retimed {
            connections[moved.connection]?.replanned(moved.direction, dues: moved.dues)
        }
        for direction in Direction.allCases where roomTimers[direction] != nil { armRoomTimer(direction) }
    }

    func wakeRoomWaiters(_ direction: Direction) {
        roomTimers[direction]?.cancel()
        roomTimers[direction] = nil
        let waiters = roomWaiters[direction]
        roomWaiters[direction] = []
        for waiter in waiters { waiter.linkMayHaveRoom(direction) }
    }

    /// `bytes` were handed to the receiving socket, after waiting `readerWait` emulated seconds
    /// for it to take them (0 when it took them when the link delivered them).
    func delivered(_ bytes: Int, _ direction: Direction, readerWait: Double) {
        tally.delivered(bytes, direction)
        if readerWait > 0 { tally.waitedForReader(bytes, direction, seconds: readerWait) }
    }

    func connectionWasReset(_ connection: ProxiedConnection) {
        tally.connectionReset()
        captureClosed(connection.id, reset: true, at: clock.now())
    }

    /// When a RST sent now in `direction` arrives: after the link's one-way delay, without
    /// queueing behind data. A capture shows it now.
    func resetArrival(_ direction: Direction, on connection: ProxiedConnection) -> Double {
        let now = clock.now()
        captureClosed(connection.id, reset: true, at: now)
        return now + (direction == .up ? model.network.up.delay : model.network.down.delay)
    }

    /// The upstream answered the connection's SYN with a RST, or never answered: a capture
    /// shows the reset, and forgets the connection.
    func upstreamRefused(_ connection: ProxiedConnection) {
        captureClosed(connection.id, reset: true, at: clock.now())
    }

    func connectionWasSilenced(_ connection: ProxiedConnection) {
        tally.connectionSilenced()
    }

    /// The connection is over. A capture shows its FINs only if both were passed on: a
    /// blackholed or reset connection, or one cut at the end of the run, shows none.
    func remove(_ connection: ProxiedConnection, finished: Bool) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        phone.closeConnection(connection.id)
        tally.connectionClosed()
        let now = clock.now()
        modelChanged(at: now)
        events.publish(.connectionClosed(at: now, connection: connection.id, finished: finished))
        if finished { captureClosed(connection.id, reset: false, at: connection.lastFinOnAir) }
    }

    // MARK: Held while an outage may end early

    private func capture(_ opening: Held.Opening, handshake: LinkSchedule.Transmission) {
        options.observer?.opened(
            opening.connection, clientPort: opening.clientPort, upstreamAddress: opening.upstreamAddress,
            upstreamPort: opening.upstreamPort, handshakeOnAir: handshake.start)
    }

    private func captureClosed(_ connection: ConnectionID, reset: Bool, at time: Double) {
        if phone.nextTicket != nil {
            held.hold(.closed(connection, reset: reset, at: time), answeredBy: nil)
        } else {
            options.observer?.closed(connection, reset: reset, at: time)
        }
    }

    /// Does what the held effects say, with the times `replan` gives where an outage ended
    /// early, else with the times first planned; returns how many deliveries moved.
    @discardableResult
    func releaseHeldEffects(_ replan: ReplannableDevice.Replan?) -> Int {
        let release = held.release(replan)
        for effect in release.effects {
            switch effect {
            case .opened(let opening, let handshake):
                capture(opening, handshake: handshake)
            case .chunk(let connection, let direction, let payload, let delivery, let readAt):
                carried(payload, direction, on: connection, delivery, readAt: readAt)
            case .end(let connection, let direction, let delivery):
                endCarried(direction, on: connection, delivery)
            case .closed(let connection, let reset, let time):
                options.observer?.closed(connection, reset: reset, at: time)
            case .wakeUp(let candidate):
                guard let at = candidate.wokeAt else { break }
                // Named as the connection is now: its first bytes may have named it meanwhile.
                let name = candidate.connection.flatMap { connections[$0]?.destination.name } ?? candidate.destination
                publishWakeUp(
                    WakeUp(
                        at: at, cause: candidate.cause, connection: candidate.connection, destination: name, direction: candidate.direction)
                )
            case .lookup(let answer, let answeredAt):
                if replan != nil { answer.move(to: clock.deadline(answeredAt)) }
            case .datagram(let timer, let delivery, let capture):
                if let capture { options.observer?.datagram(capture, onAir: delivery.onAir) }
                if replan != nil { timer.move(to: clock.deadline(delivery.at)) }
            }
        }
        for (connection, dues) in release.dues {
            for direction in Direction.allCases where !dues[direction].isEmpty {
                connection.replanned(direction, dues: dues[direction])
            }
        }
        return release.movedDeliveries
    }

    // MARK: Publishing what the phone does

    /// Publishes what the model did by `time` (`PhoneEventFollower`), and looks again when
    /// there is next something to say.
    func modelChanged(at time: Double) {
        // The journal closed (its outage ran its course, or it grew too long): the answers stand.
        if phone.nextTicket == nil, !held.isEmpty { releaseHeldEffects(nil) }
        moveRetimedDeliveries()
        let recorded = phone.takeRecentEvents()
        for event in follower.look(at: model, recorded: recorded, through: time) {
            events.publish(event)
        }
        armFollowTimer()
    }

    /// Looks again when the follower says. A timer already due earlier stays: it looks, finds
    /// traffic has moved the radio's change later, and arms for then (one wake-up per tail
    /// stage, not a timer per chunk).
    private func armFollowTimer() {
        guard !stopped, let next = follower.nextLook(at: model), next < followTimerDue else { return }
        followTimer?.cancel()
        followTimerDue = next
        followTimer = loop.assumeIsolated().scheduleTask(deadline: clock.deadline(next)) { [self] in
            followTimer = nil
            followTimerDue = .infinity
            applyTimeline(upTo: max(clock.now(), next))
        }
    }

    // MARK: Stopping

    /// Stops the timeline and resets every connection still open (cut unfinished); the run
    /// ended at `time`.
    func stop(at time: Double) {
        _ = phone.closeJournal(through: .infinity)
        releaseHeldEffects(nil)
        options.observer?.runEnded(at: time)
        stopped = true
        timelineTimer?.cancel()
        followTimer?.cancel()
        for direction in Direction.allCases {
            roomTimers[direction]?.cancel()
            roomWaiters[direction] = []
        }
        for connection in connections.values { connection.cut() }
    }
}
