/// One emulated phone: its radio, one link per direction shared by all its connections, the
/// scripted timeline and the carrier NAT. Pure: every method takes the time as an argument,
/// and every random draw comes from the seed, so the same inputs give the same answers.
///
/// The proxy asks `send` when a chunk it read should be delivered, sleeps until then, and acts
/// on the `DeviceAction`s that `advance` returns at timeline events.
public struct DeviceModel: Sendable {
    public let profile: Profile
    private var random: SeededRandom
    private let recordsRadioTimeline: Bool

    public private(set) var network: Network
    /// Each network's parameters as `set` events have changed them.
    private var networks: [String: Network]
    var uplink: LinkDirection
    var downlink: LinkDirection
    var radio: RadioStateMachine?
    private var radioStart: Double
    private var earlierRadioReports: [RadioReport] = []

    var gaps: ConnectivityGaps
    /// Walks the timeline in script time (`gaps.script`, the timeline's clock, says when that is).
    private var cursor: TimelineCursor {
        didSet { nextEventTime = cursor.nextTime.flatMap(gaps.script.emulated) }
    }
    private var connections = ConnectionTable<ConnectionState>()
    /// The UDP flows and their NAT mappings (`sendDatagram`).
    var datagramFlows = DatagramFlows()
    private var nextConnection: ConnectionID = 1

    /// The first `eventListLimit` timeline events that happened, in order, for reports. Later
    /// ones are only counted: a fast repeating timeline or a script hammering the admin API
    /// must not grow the device's memory without bound.
    public private(set) var events: [DeviceEvent] = []
    /// Every event that happened, listed or not, by kind.
    public private(set) var eventCounts: [DeviceEvent.Kind: Int] = [:]
    /// The latest event, listed or not.
    public private(set) var lastEvent: DeviceEvent?
    /// How many events `events` lists at most.
    public static let eventListLimit = 1000
    /// Events not yet taken by `takeRecentEvents`.
    private var recentEvents: [DeviceEvent] = []
    /// Radio waits added to chunks, for reporting radio latency apart from link delay.
    private var radioWaits = RadioWaitLedger()
    /// Each chunk's added delay, when asked for (`recordsChunkDelays`): the proxy's one device
    /// reports it; the model engine's thousands do not pay for it.
    var chunkDelayLedger: ChunkDelayLedger
    /// The `set` steps triggered from outside (`trigger`), latest last, each with the change
    /// that undoes it; at most `undoLimit`. The timeline's own steps are its script, not undone.
    private var triggeredSetSteps: [TriggeredSetStep] = []
    /// How many triggered `set` steps `undoSet` can take back, one after another.
    public static let undoLimit = 64

    /// How late the profile's timeline starts in this device's run (`Timeline.staggerDelay`):
    /// every scripted event and outage that much later; 0 as scripted.
    public let timelineDelay: Double

    public init(
        profile: Profile, seed: UInt64, start: Double = 0, recordsRadioTimeline: Bool = false, recordsChunkDelays: Bool = false,
        timelineDelay: Double = 0
    ) {
        self.profile = profile
        var random = SeededRandom(seed: seed)
        let network = profile.network(named: profile.start) ?? profile.networks[0]
        self.network = network
        self.networks = Dictionary(profile.networks.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.uplink = LinkDirection(network.up, random: random.fork(), start: start)
        self.downlink = LinkDirection(network.down, random: random.fork(), start: start)
        self.recordsRadioTimeline = recordsRadioTimeline
        self.radioStart = start
        self.radio = Self.makeRadio(network.radio, start: start, random: &random, recordsTimeline: recordsRadioTimeline)
        self.random = random
        self.timelineDelay = max(0, timelineDelay)
        var gaps = ConnectivityGaps(scripted: profile.timeline.connectivityGaps, period: profile.timeline.repeatPeriod)
        gaps.script = ScriptClock(delay: timelineDelay)
        self.gaps = gaps
        self.cursor = TimelineCursor(profile.timeline, start: start)
        self.nextEventTime = cursor.nextTime.flatMap(gaps.script.emulated)
        self.timelinePauses = []
        self.chunkDelayLedger = ChunkDelayLedger(isRecording: recordsChunkDelays)
    }

    // MARK: Connections

    public mutating func openConnection(at time: Double) -> ConnectionID {
        let id = nextConnection
        nextConnection += 1
        connections[id] = ConnectionState(lastActivity: time, establishedAt: time)
        return id
    }

    /// The bytes of a SYN on the wire (IPv4 + TCP with options).
    static let handshakeBytes = 60

    /// A connection's opening SYN crossing the radio. A proxy cannot delay the handshake itself
    /// (the client's connect completes at once on loopback), but a real phone's SYN wakes the
    /// radio: the promotion starts at connect and the first bytes wait for what is left of it.
    /// Returns when the SYN was on air. The carrier's NAT sees the SYN when it gets through: an
    /// outage's retransmissions make that later than the connect.
    public mutating func handshake(on connection: ConnectionID, at time: Double) -> LinkSchedule.Transmission {
        settle(through: time)
        let ready = gaps.deliverableTime(time, retransmissionTimeout: retransmissionTimeout)
        if let state = connections[connection] {
            connections[connection]?.lastActivity = max(state.lastActivity, ready)
            connections[connection]?.establishedAt = max(state.establishedAt, ready)
        }
        guard let admission = radio?.admit(at: ready, direction: .up, bytes: Self.handshakeBytes) else {
            return .init(start: ready, end: ready)
        }
        noteWake(admission)
        // No payload: the radio's byte counts are transport payload, as a capture's analysis counts them.
        radio?.transmitted(from: admission.start, to: admission.start, direction: .up, bytes: 0)
        return .init(start: admission.start, end: admission.start)
    }

    /// The bytes of a DNS query and of its answer on the wire: IP and UDP headers, a question,
    /// and for the answer a couple of address records.
    static let lookupQueryBytes = 80
    static let lookupAnswerBytes = 130

    /// A name lookup by the phone's resolver, as a proxy front end resolves a destination: one
    /// UDP query up and its answer down from a resolver on the far end of the link. Like any
    /// packet it wakes the radio (the query pays the promotion or the paging wait), queues
    /// behind other traffic on both links and waits out an outage. It is never lost or
    /// retried (a lost query would cost a resolver timeout of seconds, which the model leaves
    /// out), there is no cache (every lookup crosses the link), and like the handshake its
    /// bytes are not counted as payload. Returns when the answer reaches the app.
    public mutating func lookup(at time: Double) -> Double {
        settle(through: time)
        let timeout = retransmissionTimeout
        let queryReady = gaps.deliverableTime(time, retransmissionTimeout: timeout)
        let query = putOnAir(Self.lookupQueryBytes, .up, readyAt: queryReady, at: time, retransmissionTimeout: timeout, isPayload: false)
        let answerAtRadio = query.transmission.end + uplink.propagationDelay() + downlink.propagationDelay()
        let answerReady = gaps.deliverableTime(answerAtRadio, retransmissionTimeout: timeout)
        let answer = putOnAir(
            Self.lookupAnswerBytes, .down, readyAt: answerReady, at: time, retransmissionTimeout: timeout, isPayload: false)
        return answer.transmission.end
    }

    public mutating func closeConnection(_ id: ConnectionID) {
        connections[id] = nil
        uplink.forget(id)
        downlink.forget(id)
    }

    public var openConnections: Int { connections.count }

    /// When a chunk of `bytes` read at `time` on `connection`, going `direction`, reaches the
    /// other side; or that it goes nowhere because the profile killed the connection.
    public mutating func send(_ bytes: Int, _ direction: Direction, on connection: ConnectionID, at time: Double) -> SendVerdict {
        if !retimed.up.isEmpty || !retimed.down.isEmpty { retimed = PerDirection(up: [:], down: [:]) }
        guard let slot = connections.slot(of: connection) else { return .discard }
        var state = connections[slot: slot]
        switch state.fate {
        case .silenced: return .discard
        case .reset: return .reset
        case .open: break
        }
        if let fate = expireNATMapping(of: connection, &state, at: time, recorded: bytes > 0) {
            return fate == .silenced ? .discard : .reset
        }
        // Never backwards: bytes an outage held may already have refreshed it for later. Written
        // back once, below, when the bytes' own refresh is known.
        state.lastActivity = max(state.lastActivity, time)
        settle(through: time)

        let roundTrip = self.roundTrip
        let timeout = retransmissionTimeout
        switch direction {
        case .up:
            let ready = gaps.deliverableTime(time, retransmissionTimeout: timeout)
            let (admission, transmission) = putOnAir(bytes, .up, readyAt: ready, at: time, retransmissionTimeout: timeout)
            let arrival =
                transmission.end + uplink.propagationDelay()
                + uplink.retransmissionDelay(bytes, roundTrip: roundTrip, retransmissionTimeout: timeout)
            let arrivalThroughGaps = gaps.deliverableTime(arrival, retransmissionTimeout: timeout)
            let delivery = uplink.deliverLastChunkInOrder(on: connection, arrivingAt: arrivalThroughGaps)
            // The carrier's NAT sees the bytes when they get through, not when the app wrote
            // them: bytes an outage held refresh the mapping when TCP's retransmission lands.
            state.lastActivity = max(state.lastActivity, delivery)
            connections[slot: slot] = state
            return .deliver(
                delivered(
                    .up, readAt: time, at: delivery, admission, transmission, outage: (ready - time) + (arrivalThroughGaps - arrival)))
        case .down:
            let atRadio =
                time + downlink.propagationDelay()
                + downlink.retransmissionDelay(bytes, roundTrip: roundTrip, retransmissionTimeout: timeout)
            let ready = gaps.deliverableTime(atRadio, retransmissionTimeout: timeout)
            let (admission, transmission) = putOnAir(bytes, .down, readyAt: ready, at: time, retransmissionTimeout: timeout)
            let delivery = downlink.deliverLastChunkInOrder(on: connection, arrivingAt: transmission.end)
            // The server's retransmission that gets through an outage passes the NAT then.
            state.lastActivity = max(state.lastActivity, ready)
            connections[slot: slot] = state
            return .deliver(delivered(.down, readAt: time, at: delivery, admission, transmission, outage: ready - atRadio))
        }
    }

    /// Bytes (a chunk, a datagram, a lookup) that reach the radio at `ready` go on air in
    /// `direction`: the radio admits them (paging, a promotion, DRX), the link serializes them,
    /// and the radio records the transmission that restarts its tail timers, counting its bytes
    /// only if they are payload (a lookup's are not, as a capture's analysis counts them).
    ///
    /// Bytes the link holds long (a queue an outage stalled) may leave after the radio fell
    /// asleep behind them. They wake it again when the queue goes again
    /// (`stalledQueueWake`), as a phone's retransmission after coverage returns sets up a new
    /// RRC connection: without that, the radio went from IDLE to connected with no promotion,
    /// and whether a phone counted one after an outage hung on which of its chunks happened to
    /// be queued when the outage began.
    ///
    /// `time` is the model's clock, when the call is made: the bytes may leave well after it (a
    /// promotion, an outage's retransmission, a long queue), and what is still queued at `time`
    /// must stay queued for a link change before then to move.
    @inline(__always)
    mutating func putOnAir(
        _ bytes: Int, _ direction: Direction, readyAt ready: Double, at time: Double, retransmissionTimeout: Double,
        isPayload: Bool = true
    ) -> (admission: RadioAdmission, transmission: LinkSchedule.Transmission) {
        var admission = radio?.admit(at: ready, direction: direction, bytes: bytes) ?? RadioAdmission(requested: ready)
        noteWake(admission)
        let leaves =
            direction == .up
            ? uplink.departure(readyAt: admission.start, gaps: gaps, retransmissionTimeout: retransmissionTimeout)
            : downlink.departure(readyAt: admission.start, gaps: gaps, retransmissionTimeout: retransmissionTimeout)
        if leaves > admission.start,
            let wake = stalledQueueWake(ready: admission.start, leaves: leaves, retransmissionTimeout: retransmissionTimeout),
            radio?.isAsleep(at: wake) == true, let again = radio?.admit(at: wake, direction: direction, bytes: bytes)
        {
            noteWake(again)
            admission.wokeAgain(again)
        }
        radioWaits.add(admission)
        let transmission =
            direction == .up
            ? uplink.serialize(bytes, readyAt: admission.start, at: time, gaps: gaps, retransmissionTimeout: retransmissionTimeout)
            : downlink.serialize(bytes, readyAt: admission.start, at: time, gaps: gaps, retransmissionTimeout: retransmissionTimeout)
        radio?.transmitted(from: transmission.start, to: transmission.end, direction: direction, bytes: isPayload ? bytes : 0)
        return (admission, transmission)
    }

    /// When bytes ready at `ready` that leave the link only at `leaves` find the radio asleep
    /// because a connectivity gap stalled the queue ahead of them: when that queue goes again,
    /// at TCP's first retransmission after the gap (the radio wakes for it, and the queue keeps
    /// it awake until these bytes leave), or `leaves` if that is sooner. Nil if no gap lies
    /// between: a queue that is only slow keeps the radio transmitting, and a wake planned at
    /// `leaves`, minutes ahead behind a slow queue, would hold every later admission until then
    /// (the radio decides in time order) for a departure a link change may still move.
    @inline(__always)
    private func stalledQueueWake(ready: Double, leaves: Double, retransmissionTimeout: Double) -> Double? {
        let stall: Double
        if gaps.gap(containing: ready) != nil {
            stall = ready
        } else if let next = gaps.nextGapStart(after: ready), next < leaves {
            stall = next
        } else {
            return nil
        }
        return min(leaves, gaps.deliverableTime(stall, retransmissionTimeout: retransmissionTimeout))
    }

    /// The delivery of bytes read at `time` that arrive at `delivery`, with what they waited
    /// for (the radio, `outage`, the link's queue), counted in the chunk-delay ledger.
    @inline(__always)
    mutating func delivered(
        _ direction: Direction, readAt time: Double, at delivery: Double, _ admission: RadioAdmission,
        _ transmission: LinkSchedule.Transmission, outage: Double
    ) -> Delivery {
        chunkDelayLedger.add(direction, readAt: time, deliveredAt: delivery, radioWait: admission.totalWait)
        let waits = ChunkWaits(admission, outage: outage, queue: transmission.start - admission.start + admission.heldByLink)
        return Delivery(at: delivery, waits: waits, onAir: transmission)
    }

    /// The round trip TCP sees on the current network: both one-way delays.
    private var roundTrip: Double { uplink.parameters.delay + downlink.parameters.delay }

    /// About Linux's RTO: the round trip plus its 200 ms minimum.
    private var retransmissionTimeout: Double { roundTrip + LinkDirection.minimumRetransmissionTimeout }

    /// Bytes waiting for the link in `direction` at `time`.
    public mutating func backlog(_ direction: Direction, at time: Double) -> Int {
        direction == .up ? uplink.backlog(at: time) : downlink.backlog(at: time)
    }

    /// When the link's queue in `direction` next has room under its limit: `time` if it has
    /// room now, nil if the profile sets no limit. Later sends can only make it later.
    public mutating func queueRoomTime(_ direction: Direction, at time: Double) -> Double? {
        guard let limit = queueLimit(direction) else { return nil }
        return direction == .up
            ? uplink.timeBacklogBelow(limit, at: time) : downlink.timeBacklogBelow(limit, at: time)
    }

    /// The link's queue limit in `direction`, if the profile sets one.
    public func queueLimit(_ direction: Direction) -> Int? {
        direction == .up ? uplink.parameters.queueLimit : downlink.parameters.queueLimit
    }

    // MARK: Timeline

    /// When the next scripted event happens, if ever. Stored, kept by `cursor`'s observer: the
    /// model engine reads it before every chunk it sends, and a computed property read from
    /// another module copied the whole device model (1.9 KB) each time.
    public private(set) var nextEventTime: Double?

    /// Applies the scripted events up to `time`, at most `limit` of them (the rest stay due:
    /// `nextEventTime` is then at or before `time`), and says what the proxy must do.
    public mutating func advance(to time: Double, limit: Int = .max) -> [DeviceAction] {
        settle(through: time)
        let script = gaps.script
        guard !script.isIdentity else {
            return cursor.take(through: time, limit: limit).flatMap { apply($0.event.kind, at: $0.time) }
        }
        return cursor.take(through: script.scriptTime(at: time), limit: limit).flatMap { occurrence in
            apply(occurrence.event.kind, at: script.emulated(occurrence.time) ?? time)
        }
    }

    // MARK: Pausing the timeline

    /// The pauses of the timeline (`pauseTimeline`), in order, the first `eventListLimit`.
    public private(set) var timelinePauses: [TimelinePause]

    /// Whether the timeline is paused now.
    public var isTimelinePaused: Bool { gaps.script.pausedAt != nil }

    /// Whether the timeline has events still to come (paused or not).
    public var timelineHasEventsAhead: Bool { cursor.nextTime != nil }

    /// Why the timeline cannot be paused or resumed now.
    public enum TimelinePauseRefusal: Error, Equatable, Sendable, CustomStringConvertible {
        /// The profile scripts no events.
        case empty
        /// The timeline has played all its events (it does not repeat).
        case over
        case alreadyPaused(since: Double)
        case notPaused

        public var description: String {
            switch self {
            case .empty: "the profile's timeline has no events: there is nothing to pause"
            case .over: "the profile's timeline has played all its events: there is nothing left to pause"
            case .alreadyPaused(let since): "the timeline is paused already (since \(Quantity.formatDuration(since)))"
            case .notPaused: "the timeline is not paused"
            }
        }
    }

    /// Stops the profile's timeline at `time` (the admin API's `POST /timeline/pause`): the
    /// events due by then happen first (what they make the proxy do is returned), then no
    /// scripted event or scripted outage begins until `resumeTimeline`, and each begins that
    /// much later (`ScriptClock`). One in force runs its course. Events triggered through the
    /// admin API still happen.
    public mutating func pauseTimeline(at time: Double) throws(TimelinePauseRefusal) -> [DeviceAction] {
        if let pausedAt = gaps.script.pausedAt { throw .alreadyPaused(since: gaps.script.emulated(pausedAt) ?? time) }
        guard !profile.timeline.events.isEmpty else { throw .empty }
        let actions = advance(to: time)
        guard nextEventTime != nil else { throw .over }
        gaps.script.pause(at: time)
        nextEventTime = nil
        if timelinePauses.count < Self.eventListLimit { timelinePauses.append(TimelinePause(at: time)) }
        return actions
    }

    /// Runs the timeline again from `time`, behind by the time it was paused; returns how long
    /// that was.
    public mutating func resumeTimeline(at time: Double) throws(TimelinePauseRefusal) -> Double {
        guard isTimelinePaused else { throw .notPaused }
        settle(through: time)
        let paused = gaps.script.resume(at: time)
        nextEventTime = cursor.nextTime.flatMap(gaps.script.emulated)
        if let last = timelinePauses.indices.last, timelinePauses[last].resumedAt == nil { timelinePauses[last].resumedAt = time }
        return paused
    }

    /// Applies an event now that the timeline did not script (the admin API's triggers).
    public mutating func trigger(_ kind: TimelineEvent.Kind, at time: Double) -> [DeviceAction] {
        let gap = TimelineEvent(at: time, kind: kind).connectivityGap
        if gap > 0 { gaps.add(.init(start: time, end: time + gap, holdsDatagrams: kind.holdsDatagrams)) }
        if case .set(let name, let up, let down) = kind, let target = networks[name ?? network.name] {
            if triggeredSetSteps.count == Self.undoLimit { triggeredSetSteps.removeFirst() }
            triggeredSetSteps.append(
                TriggeredSetStep(
                    at: time, network: target.name, undoUp: up.undoing(on: target.up), undoDown: down.undoing(on: target.down)))
        }
        return apply(kind, at: time)
    }

    /// Takes back the latest triggered `set` step not yet undone: the fields it set get the
    /// values they had before it, on the network it changed; what later steps set elsewhere
    /// stays. Recorded as a `set` event whose `undoes` is the step's time. False (and nothing
    /// changed) when no triggered step is left to undo.
    public mutating func undoSet(at time: Double) -> Bool {
        guard let step = triggeredSetSteps.popLast() else { return false }
        _ = apply(.set(network: step.network, up: step.undoUp, down: step.undoDown), at: time, undoing: step.at)
        return true
    }

    /// When connectivity is back if the device has none at `time` (an outage or a handover's
    /// gap, or several back to back); nil if it has connectivity then.
    public func connectivityReturns(after time: Double) -> Double? {
        gaps.connectivityReturns(after: time)
    }

    /// Whether the device has no connectivity at `time`.
    public func isDisconnected(at time: Double) -> Bool {
        gaps.gap(containing: time) != nil
    }

    /// When the radio's state next changes after `time` if nothing more is sent (see
    /// `RadioStateMachine.nextStateChange`); nil without a radio or when it stays.
    public func nextRadioStateChange(after time: Double) -> Double? {
        radio?.nextStateChange(after: time)
    }

    /// The radio's state at `time`; nil without a radio model.
    public func radioState(at time: Double) -> RadioState? {
        radio?.state(at: time)
    }

    /// The radio figures from the start until `time`, across every network the device was on.
    /// Nothing after `time` counts: bytes scheduled to go on air later (held by an outage until
    /// TCP's retransmission, say) are reported as `heldAtEnd`.
    public func radioReport(until time: Double) -> RadioReport {
        radioHistory.report(until: time)
    }

    /// The radio latency of the chunks on air by `time`: a chunk held beyond it (by an outage,
    /// say) has not waited yet.
    public func radioWaits(until time: Double) -> RadioWaitTotals {
        radioWaits.totals(until: time)
    }

    /// The radio's accounts so far: enough to report on them until any later time once the
    /// device has stopped, without the rest of the device.
    public var radioHistory: RadioHistory {
        RadioHistory(earlierReports: earlierRadioReports, radio: radio, radioStart: radioStart, waits: radioWaits)
    }

    /// The delay added to each chunk delivered by `time`, per direction; nil unless the model
    /// was made with `recordsChunkDelays`.
    public func chunkDelays(until time: Double) -> PerDirection<ChunkDelayFigures>? {
        chunkDelayLedger.figures(until: time)
    }

    // MARK: Internals

    /// The clock has reached `time`: what the radio and its waits scheduled until then is past.
    @inline(__always)
    mutating func settle(through time: Double) {
        radio?.settle(through: time)
        radioWaits.settle(through: time)
        chunkDelayLedger.settle(through: time)
    }

    private static func makeRadio(
        _ parameters: RadioParameters, start: Double, random: inout SeededRandom, recordsTimeline: Bool
    ) -> RadioStateMachine? {
        guard let stages = RadioStages(parameters) else { return nil }
        let pagingCycle =
            stages.stages.compactMap { stage -> Double? in
                if case .dormant(_, let cycle) = stage.behavior { return cycle }
                return nil
            }.max() ?? 0
        return RadioStateMachine(
            stages, start: start, pagingPhase: random.unitInterval() * pagingCycle, recordsTimeline: recordsTimeline)
    }

    /// The radio wake-ups the device's traffic started (a SYN, a lookup or a chunk that found
    /// the radio asleep), and when the latest one's promotion began: a caller that compares the
    /// count before and after a call knows that call's bytes woke the radio (the live view
    /// names the connection).
    public private(set) var wakeUps = 0
    public private(set) var latestWakeUp = -Double.infinity

    @inline(__always)
    private mutating func noteWake(_ admission: RadioAdmission) {
        guard let wake = admission.wokeRadioAt else { return }
        wakeUps += 1
        latestWakeUp = wake
    }

    /// Whether the NAT forgot `connection`'s mapping before `time`.
    private func natMappingExpired(_ connection: ConnectionID, at time: Double) -> Bool {
        guard let state = connections[connection] else { return false }
        return natMappingExpired(state, at: time)
    }

    private func natMappingExpired(_ state: ConnectionState, at time: Double) -> Bool {
        guard let timeout = profile.nat?.idleTimeout else { return false }
        return time - state.lastActivity > timeout
    }

    /// Kills `connection`, whose state the caller holds (and writes back), by its NAT mapping
    /// if the mapping expired before `time`, recording when it did; nil if the mapping still
    /// holds. Called lazily, when bytes would cross the NAT. A FIN (`recorded` false) that finds
    /// the mapping gone is not recorded: it closes a connection nobody will use again, and
    /// nothing the app relied on was lost to the NAT.
    private mutating func expireNATMapping(
        of connection: ConnectionID, _ state: inout ConnectionState, at time: Double, recorded: Bool
    ) -> ConnectionState.Fate? {
        guard let nat = profile.nat, let timeout = nat.idleTimeout, state.fate == .open, natMappingExpired(state, at: time)
        else { return nil }
        state.fate = nat.mode == .silent ? .silenced : .reset
        connections[connection] = state
        guard recorded else { return state.fate }
        record(
            DeviceEvent(
                at: time, kind: .natExpiry, network: network.name, mode: DeviceEvent.Mode(nat.mode), affectedConnections: 1,
                expiredAt: state.lastActivity + timeout))
        return state.fate
    }

    private mutating func apply(_ kind: TimelineEvent.Kind, at time: Double, undoing undone: Double? = nil) -> [DeviceAction] {
        var open = connections.filter { $0.value.fate == .open && $0.value.establishedAt <= time }.map(\.key).sorted()
        // A connection whose NAT mapping was already gone died of that, not of this event: the
        // event leaves it alone, and its next bytes find the mapping gone (and record when it
        // went), as the first thing that made it unusable is its cause.
        open.removeAll { natMappingExpired($0, at: time) }
        switch kind {
        case .outage(let duration, let mode):
            record(
                DeviceEvent(
                    at: time, kind: .outage, network: network.name, mode: DeviceEvent.Mode(mode), durationSeconds: duration,
                    affectedConnections: open.count))
            switch mode {
            case .stall: return []
            case .blackhole: return silence(open, at: time)
            case .reset: return reset(open, at: time)
            }
        case .handover(let target, let mode, let gap):
            record(
                DeviceEvent(
                    at: time, kind: .handover, network: target, mode: DeviceEvent.Mode(mode), durationSeconds: gap,
                    affectedConnections: mode == .keep ? 0 : open.count,
                    affectedFlows: mode == .keep || datagramFlows.count == 0 ? nil : datagramFlows.count))
            switchNetwork(to: target, at: time)
            // The phone's address changes: every UDP flow gets a new NAT mapping.
            if mode != .keep { datagramFlows.rebindAll() }
            switch mode {
            case .keep: return []
            case .blackhole: return silence(open, at: time)
            case .reset: return reset(open, at: time)
            }
        case .set(let name, let up, let down):
            let target = name ?? network.name
            guard var changed = networks[target] else { return [] }
            changed.up = up.applied(to: changed.up)
            changed.down = down.applied(to: changed.down)
            networks[target] = changed
            record(DeviceEvent(at: time, kind: .set, network: target, link: changed.linkFigures, undoes: undone))
            if target == network.name {
                network = changed
                changeLinks(to: changed, at: time)
            }
            return []
        case .signal(let rsrp):
            radio?.signal(rsrp, at: time)
            record(DeviceEvent(at: time, kind: .signal, network: network.name, rsrp: rsrp))
            return []
        }
    }

    private mutating func switchNetwork(to name: String, at time: Double) {
        guard let next = networks[name] else { return }
        if let radio {
            earlierRadioReports.append(radio.report(until: time))
        } else if time > radioStart {
            earlierRadioReports.append(.noRadio(durationSeconds: time - radioStart, bytes: .init(up: 0, down: 0)))
        }
        changeLinks(to: next, at: time)
        radio = Self.makeRadio(next.radio, start: time, random: &random, recordsTimeline: recordsRadioTimeline)
        radioStart = time
    }

    /// The events recorded since the last call, oldest first, for a live caller that passes
    /// each one on (the proxy's event stream, which takes them after every call that can
    /// record one). At most `eventListLimit` wait, later ones are not kept: a caller that never
    /// takes them (the model engine) holds no more than `events` does.
    public mutating func takeRecentEvents() -> [DeviceEvent] {
        defer { recentEvents.removeAll(keepingCapacity: true) }
        return recentEvents
    }

    mutating func record(_ event: DeviceEvent) {
        if events.count < Self.eventListLimit { events.append(event) }
        if recentEvents.count < Self.eventListLimit { recentEvents.append(event) }
        eventCounts[event.kind, default: 0] += 1
        lastEvent = event
    }

    private mutating func silence(_ ids: [ConnectionID], at time: Double) -> [DeviceAction] {
        for id in ids { connections[id]?.fate = .silenced }
        dropQueued(of: ids, at: time)
        return ids.isEmpty ? [] : [.silence(ids)]
    }

    private mutating func reset(_ ids: [ConnectionID], at time: Double) -> [DeviceAction] {
        for id in ids { connections[id]?.fate = .reset }
        dropQueued(of: ids, at: time)
        return ids.isEmpty ? [] : [.reset(ids)]
    }

    // MARK: Deliveries moved after they were answered

    /// The network's links become `next`'s from `time` on, for the bytes already queued too.
    private mutating func changeLinks(to next: Network, at time: Double) {
        network = next
        let timeout = retransmissionTimeout
        noteRetimed(uplink.update(next.up, at: time, gaps: gaps, retransmissionTimeout: timeout), .up)
        noteRetimed(downlink.update(next.down, at: time, gaps: gaps, retransmissionTimeout: timeout), .down)
    }

    /// Dead connections' bytes leave both links' queues: they never arrive, and must not hold
    /// up the bytes of the connections that live.
    private mutating func dropQueued(of ids: [ConnectionID], at time: Double) {
        guard !ids.isEmpty else { return }
        let dead = Set(ids)
        let timeout = retransmissionTimeout
        noteRetimed(uplink.dropQueued(of: dead, at: time, gaps: gaps, retransmissionTimeout: timeout), .up)
        noteRetimed(downlink.dropQueued(of: dead, at: time, gaps: gaps, retransmissionTimeout: timeout), .down)
    }

    /// Deliveries already answered that a link change or a reset moved, by direction and
    /// connection, oldest first, until `takeRetimedDeliveries`. Those of one call replace the
    /// latest ones an earlier call left (a call re-times what is queued then, the latest
    /// chunks of each connection). A send forgets them: the proxy takes them after every call.
    private var retimed = PerDirection<[ConnectionID: [Double]]>(up: [:], down: [:])

    private mutating func noteRetimed(_ chunks: [RetimedChunk], _ direction: Direction) {
        guard !chunks.isEmpty else { return }
        var moved: [ConnectionID: [Double]] = [:]
        for chunk in chunks { moved[chunk.connection, default: []].append(chunk.deliveredAt) }
        for (connection, dues) in moved {
            let earlier = retimed[direction][connection] ?? []
            retimed[direction][connection] = earlier.dropLast(dues.count) + dues
        }
    }

    /// The deliveries moved since the last call: for each connection and direction, new times
    /// for its latest `dues.count` chunks, oldest first.
    public mutating func takeRetimedDeliveries() -> [RetimedDeliveries] {
        var taken: [RetimedDeliveries] = []
        for direction in Direction.allCases {
            for (connection, dues) in retimed[direction].sorted(by: { $0.key < $1.key }) {
                taken.append(RetimedDeliveries(direction: direction, connection: connection, dues: dues))
            }
            retimed[direction] = [:]
        }
        return taken
    }
}

/// A `set` step triggered from outside, and what undoes it.
private struct TriggeredSetStep: Sendable {
    var at: Double
    var network: String
    var undoUp: LinkChange
    var undoDown: LinkChange
}
