import Logging
import NIOCore
import NIOPosix
import NetsimConnection
import NetsimCore

/// One emulated phone inside the proxy: the pure `DeviceModel` driven by the wall clock, and
/// every connection of every forward rule. All of it lives on one event loop, so the model is
/// never shared between threads and its answers come in the order the bytes arrived.
final class EmulatedDevice {
    let loop: any EventLoop
    let clock: ProxyClock
    let options: ProxyOptions
    /// Where the front ends' clients may go: `options.access`, with netsim's own listeners
    /// added as they are bound.
    private var access: AccessPolicy
    let logger: Logger
    /// Where what the phone does is published (`GET /events`).
    let events: PhoneEventHub
    private var model: DeviceModel
    private var connections: [ConnectionID: ProxiedConnection] = [:]
    private var timelineTimer: Scheduled<Void>?
    private(set) var counters = ConnectionCounters()
    private var bytesDelivered = PerDirection<Int>(up: 0, down: 0)
    private var segmentsDelivered = SegmentCounts()
    private var destinationWaits = DestinationWaitLedger()
    private var stopped = false
    private var warnedOfConnectionLimit = false
    /// Connections waiting for room on a full link queue, and the one timer per direction
    /// that wakes them when the model says the backlog has drained under the limit.
    private var roomWaiters = PerDirection<[ProxiedConnection]>(up: [], down: [])
    private var roomTimers = PerDirection<Scheduled<Void>?>(up: nil, down: nil)

    /// What the phone does, as `GET /events` streams it, and the timer that looks again when
    /// the follower says (the radio's next change, connectivity's return).
    private var follower: PhoneEventFollower
    private var followTimer: Scheduled<Void>?
    private var followTimerDue = Double.infinity
    /// The latest wake-ups, for `/status` (`ProxyStatus.wakeUpListLimit` of them at most).
    private var recentWakeUps: [WakeUp] = []

    init(model: DeviceModel, loop: any EventLoop, clock: ProxyClock, options: ProxyOptions, events: PhoneEventHub, logger: Logger) {
        self.model = model
        self.loop = loop
        self.clock = clock
        self.options = options
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
    /// would: a name is looked up first, the lookup crossing the emulated link
    /// (`DeviceModel.lookup`) while the system resolver answers for real, whichever is later.
    /// `access` decides on the name before the lookup (a name no rule can allow is not looked
    /// up) and on the address it resolved to, which is what is dialed.
    /// `completion` gets the connection once its upstream is connected and active: the client
    /// joins it then (`ProxiedConnection.join`), after the front end has replied.
    func dial(_ destination: HostPort, from client: Channel, completion: @escaping (Result<ProxiedConnection, DialRefusal>) -> Void) {
        let literal = IPAddressBytes(destination.host)
        let name = literal == nil ? destination.host : nil
        if case .refused(let why) = access.decision(name: name, address: literal, port: destination.port) {
            return refuse(destination, .notAllowed(why), completion)
        }
        guard literal == nil else {
            do {
                let address = try SocketAddress(ipAddress: destination.host, port: destination.port)
                return connect(client, to: address, for: destination, completion)
            } catch {
                return refuse(destination, .unresolvable, completion)
            }
        }
        let now = clock.now()
        applyTimeline(upTo: now)
        let answerTime = publishingWakeUp(by: .lookup, of: nil, to: destination.description, .up) { $0.lookup(at: now) }
        let answered = loop.scheduleTask(deadline: clock.deadline(answerTime)) {}.futureResult
        let resolved = NIOThreadPool.singleton.runIfActive(eventLoop: loop) { [host = destination.host, port = destination.port] in
            Result { try SocketAddress.makeAddressResolvingHost(host, port: port) }
        }
        resolved.and(answered).assumeIsolated().whenComplete { [self] outcome in
            guard case .success((.success(let address), _)) = outcome, let resolved = address.ipAddress.flatMap(IPAddressBytes.init)
            else {
                return refuse(destination, .unresolvable, completion)
            }
            if case .refused(let why) = access.decision(name: name, address: resolved, port: destination.port) {
                return refuse(destination, .notAllowed(why), completion, resolvedTo: address)
            }
            connect(client, to: address, for: destination, completion)
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

    private func refuse(
        _ destination: HostPort, _ refusal: DialRefusal, _ completion: (Result<ProxiedConnection, DialRefusal>) -> Void,
        resolvedTo address: SocketAddress? = nil
    ) {
        let target = address.map { "\(destination) (\($0.ipAddress ?? "?"))" } ?? "\(destination)"
        switch refusal {
        case .notAllowed(let why): logger.warning("refused a connection to \(target): \(why)")
        case .unresolvable: logger.warning("refused a connection to \(target): the name does not resolve")
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
        let id = model.openConnection(at: now)
        events.publish(.connectionOpened(at: now, connection: id))
        let fallback = destination.map(\.description) ?? "\(upstream.ipAddress ?? "?"):\(upstream.port ?? 0)"
        let handshake = publishingWakeUp(by: .handshake, of: id, to: fallback, .up) { $0.handshake(on: id, at: now) }
        modelChanged(at: now)
        options.observer?.opened(
            id, clientPort: client.remoteAddress?.port ?? 0, upstreamAddress: upstream.ipAddress,
            upstreamPort: upstream.port, handshakeOnAir: handshake.start)
        let connection = ProxiedConnection(
            id: id, device: self, destination: DestinationNamer(fallback: fallback, port: destination?.port ?? upstream.port ?? 0),
            openedAt: now)
        connections[id] = connection
        counters.opened += 1
        let target = destination.map { "\($0) (\(upstream))" } ?? "\(upstream)"
        logger.debug("connection \(id) from \(client.remoteAddress?.description ?? "?") to \(target)")
        return connection
    }

    /// Dials the connection's upstream; if it cannot be reached, the connection is closed.
    @discardableResult
    private func connectUpstream(of connection: ProxiedConnection, to upstream: SocketAddress) -> EventLoopFuture<any Channel> {
        let bound = NIOLoopBound(connection, eventLoop: loop)
        let connected = ClientBootstrap(group: loop)
            .channelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try bound.value.attach(channel, as: .upstream) }
            }
            .connect(to: upstream)
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
            if connection.destination.isSettled { renameWakeUps(of: connection) }
        }
        let verdict = publishingWakeUp(by: .data, of: connection.id, to: connection.destination.name, direction) {
            $0.send(buffer.readableBytes, direction, on: connection.id, at: now)
        }
        modelChanged(at: now)
        if case .deliver(let delivery) = verdict {
            options.observer?.carried(
                connection.id, direction, Array(buffer.readableBytesView), onAir: delivery.onAir, at: now)
            account(delivery, direction, on: connection, at: now)
        }
        return verdict
    }

    /// Runs `call` on the model and, if its bytes woke the radio, says so on the event stream,
    /// naming what woke it.
    private func publishingWakeUp<Result>(
        by cause: WakeCause, of connection: ConnectionID?, to destination: String, _ direction: Direction,
        _ call: (inout DeviceModel) -> Result
    ) -> Result {
        let before = model.wakeUps
        let result = call(&model)
        if model.wakeUps > before {
            let wake = WakeUp(at: model.latestWakeUp, cause: cause, connection: connection, destination: destination, direction: direction)
            if recentWakeUps.count == ProxyStatus.wakeUpListLimit { recentWakeUps.removeFirst() }
            recentWakeUps.append(wake)
            events.publish(.radioWoken(wake))
        }
        return result
    }

    /// Gives the recent wake-ups of `connection` (its SYN's, read before its first bytes named
    /// it) the name those bytes settled on, so `/status` names them as the report does.
    private func renameWakeUps(of connection: ProxiedConnection) {
        for index in recentWakeUps.indices where recentWakeUps[index].connection == connection.id {
            recentWakeUps[index].destination = connection.destination.name
        }
    }

    /// Counts a chunk's waits under its connection's destination; a FIN is a chunk of no bytes,
    /// as the radio's waits and the chunk delays count it.
    private func account(_ delivery: Delivery, _ direction: Direction, on connection: ProxiedConnection, at now: Double) {
        let name = connection.destination.name
        if !connection.countedInDestinations {
            connection.countedInDestinations = true
            destinationWaits.connectionOpened(to: name)
        }
        destinationWaits.settle(through: now)
        destinationWaits.add(name, direction, deliveredAt: delivery.at, waits: delivery.waits)
    }

    /// The FIN of a half-close, crossing the path as a header-only packet.
    func sendEnd(_ direction: Direction, on connection: ProxiedConnection) -> SendVerdict {
        let now = clock.now()
        applyTimeline(upTo: now)
        let verdict = publishingWakeUp(by: .close, of: connection.id, to: connection.destination.name, direction) {
            $0.send(0, direction, on: connection.id, at: now)
        }
        modelChanged(at: now)
        if case .deliver(let delivery) = verdict {
            connection.lastFinOnAir = max(connection.lastFinOnAir, delivery.onAir.end)
            account(delivery, direction, on: connection, at: now)
        }
        return verdict
    }

    func linkHasRoom(_ direction: Direction) -> Bool {
        guard let limit = model.queueLimit(direction) else { return true }
        return model.backlog(direction, at: clock.now()) < limit
    }

    /// Wakes `connection` (`linkMayHaveRoom`) once the link's queue in `direction` drains
    /// under its limit. Every waiter is woken then and checks again: one that finds the queue
    /// full once more waits again, for the drain time the queue then has.
    func waitForRoom(_ direction: Direction, _ connection: ProxiedConnection) {
        roomWaiters[direction].append(connection)
        guard roomTimers[direction] == nil else { return }
        let now = clock.now()
        let roomAt = model.queueRoomTime(direction, at: now) ?? now
        roomTimers[direction] = loop.assumeIsolated().scheduleTask(deadline: clock.deadline(roomAt)) { [self] in
            roomTimers[direction] = nil
            let waiters = roomWaiters[direction]
            roomWaiters[direction] = []
            for waiter in waiters { waiter.linkMayHaveRoom(direction) }
        }
    }

    func delivered(_ bytes: Int, _ direction: Direction) {
        if direction == .up { bytesDelivered.up += bytes } else { bytesDelivered.down += bytes }
        segmentsDelivered.add(bytes, direction)
    }

    func connectionWasReset(_ connection: ProxiedConnection) {
        counters.reset += 1
        options.observer?.closed(connection.id, reset: true, at: clock.now())
    }

    /// When a RST sent now in `direction` arrives: after the link's one-way delay, without
    /// queueing behind data. A capture shows it now.
    func resetArrival(_ direction: Direction, on connection: ProxiedConnection) -> Double {
        let now = clock.now()
        options.observer?.closed(connection.id, reset: true, at: now)
        return now + (direction == .up ? model.network.up.delay : model.network.down.delay)
    }

    /// The upstream answered the connection's SYN with a RST, or never answered: a capture
    /// shows the reset, and forgets the connection.
    func upstreamRefused(_ connection: ProxiedConnection) {
        options.observer?.closed(connection.id, reset: true, at: clock.now())
    }

    func connectionWasSilenced(_ connection: ProxiedConnection) {
        counters.blackholed += 1
    }

    /// The connection is over. A capture shows its FINs only if both were passed on: a
    /// blackholed or reset connection, or one cut at the end of the run, shows none.
    func remove(_ connection: ProxiedConnection, finished: Bool) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        model.closeConnection(connection.id)
        counters.closed += 1
        let now = clock.now()
        modelChanged(at: now)
        events.publish(.connectionClosed(at: now, connection: connection.id, finished: finished))
        if finished { options.observer?.closed(connection.id, reset: false, at: connection.lastFinOnAir) }
    }

    // MARK: Timeline

    func startTimeline() {
        scheduleNextEvent()
    }

    /// Applies an event now (the admin API), with the same effects a scripted one has.
    func trigger(_ kind: TimelineEvent.Kind) -> DeviceEvent? {
        let now = clock.now()
        applyTimeline(upTo: now)
        perform(model.trigger(kind, at: now))
        modelChanged(at: now)
        return model.lastEvent
    }

    /// Takes back the latest `set` step the admin API (or the test API) made; nil if none is left.
    func undoSet() -> DeviceEvent? {
        let now = clock.now()
        applyTimeline(upTo: now)
        guard model.undoSet(at: now) else { return nil }
        modelChanged(at: now)
        return model.lastEvent
    }

    private func scheduleNextEvent() {
        timelineTimer?.cancel()
        guard !stopped, let next = model.nextEventTime else { return }
        timelineTimer = loop.assumeIsolated().scheduleTask(deadline: clock.deadline(next)) { [self] in
            applyTimeline(upTo: max(clock.now(), next))
            scheduleNextEvent()
        }
    }

    /// The most timeline events one pass applies. Events still due wait for the timeline
    /// timer's next pass, so that other work on the event loop (reads, the admin API, the
    /// stop) gets its turn between passes however many events a timeline piles up.
    static let eventsPerPass = 64

    private func applyTimeline(upTo time: Double) {
        let before = model.events.count
        perform(model.advance(to: time, limit: Self.eventsPerPass))
        for event in model.events[before...] {
            logger.info("\(event)")
        }
        if before < DeviceModel.eventListLimit, model.events.count == DeviceModel.eventListLimit {
            logger.info("\(DeviceModel.eventListLimit) events: later ones are counted in the report, not listed or logged")
        }
        modelChanged(at: time)
    }

    private func perform(_ actions: [DeviceAction]) {
        for action in actions {
            switch action {
            case .reset(let ids): for id in ids { connections[id]?.reset() }
            case .silence(let ids): for id in ids { connections[id]?.silence() }
            }
        }
    }

    // MARK: Publishing what the phone does

    /// Publishes what the model did by `time` (`PhoneEventFollower`), and looks again when
    /// there is next something to say.
    private func modelChanged(at time: Double) {
        let recorded = model.takeRecentEvents()
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

    // MARK: Status and report

    func status() -> ProxyStatus {
        let now = clock.now()
        let listed = connections.keys.sorted().prefix(ProxyStatus.connectionListLimit).compactMap { id in
            connections[id].map { connection in
                ProxyStatus.ConnectionStatus(
                    id: id, destination: connection.destination.name, openedAt: connection.openedAt,
                    bytes: connection.bytesDelivered,
                    queuedBytes: PerDirection(up: connection.bytesWaiting(.up), down: connection.bytesWaiting(.down)))
            }
        }
        return ProxyStatus(
            elapsedSeconds: now, network: model.network.name, networks: model.profile.networks.map(\.name),
            radioState: model.radioState(at: now), radio: model.radioReport(until: now), openConnections: connections.count,
            bytes: bytesDelivered,
            queuedBytes: queuedBytes, disconnected: model.isDisconnected(at: now), lastEvent: model.lastEvent,
            link: model.network.linkFigures, connections: listed, recentWakeUps: recentWakeUps)
    }

    /// Bytes read and not yet delivered, over every open connection.
    private var queuedBytes: PerDirection<Int> {
        var queued = PerDirection(up: 0, down: 0)
        for connection in connections.values {
            queued.up += connection.bytesWaiting(.up)
            queued.down += connection.bytesWaiting(.down)
        }
        return queued
    }

    func metricsSnapshot() -> ProxyMetrics.Snapshot {
        let now = clock.now()
        let radio = model.radioReport(until: now)
        let queued = queuedBytes
        return ProxyMetrics.Snapshot(
            bytes: bytesDelivered, connectionsOpened: counters.opened, openConnections: connections.count,
            radioState: model.radioState(at: now), wakeSeconds: radio.wakeSeconds, promotions: radio.promotions,
            energyJoules: radio.energyJoules, queuedBytes: queued, eventCounts: model.eventCounts)
    }

    func report(profile: String, seed: UInt64) -> RunReport {
        let now = clock.now()
        return RunReport(
            netsimVersion: NetsimVersion.current, profile: profile, seed: seed, durationSeconds: now,
            connections: counters, bytes: bytesDelivered, segments: segmentsDelivered, radio: model.radioReport(until: now),
            radioLatency: model.radioWaits(until: now), chunkDelays: model.chunkDelays(until: now),
            destinations: destinationWaits.figures(until: now), events: model.events,
            eventCounts: model.eventCounts,
            eventsNotListed: model.eventCounts.values.reduce(0, +) - model.events.count)
    }

    /// Stops the timeline and closes every connection; the run ended at `time`.
    func stop(at time: Double) {
        options.observer?.runEnded(at: time)
        stopped = true
        timelineTimer?.cancel()
        followTimer?.cancel()
        for direction in Direction.allCases {
            roomTimers[direction]?.cancel()
            roomWaiters[direction] = []
        }
        for connection in connections.values { connection.close() }
    }
}
