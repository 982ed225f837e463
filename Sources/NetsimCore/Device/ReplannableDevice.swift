/// A `DeviceModel` whose triggered connectivity gaps (an outage or a handover's gap asked for
/// through the admin API) can be ended before their time: `POST /outage/end`.
///
/// The model answers each chunk when it is read, so bytes read during an outage already have a
/// delivery planned from the outage's planned end (TCP's first retransmission after it). Ending
/// the outage early must move those deliveries, and with them everything they touched: the
/// link's queue, the radio's promotions and tails, the NAT's last activity, later chunks queued
/// behind them. Rather than undo each of those, this keeps the model as it was just before the
/// first triggered gap (the checkpoint) and every call made on it since (the journal). Ending
/// early plays the journal again on a copy of the checkpoint with the gaps cut short at that
/// time, which gives exactly the model that would have been had the gaps been that long from
/// the start, and says the new answer to every journaled call.
///
/// Calls before the early end get the same answers for everything up to that time (a model
/// only decides at a call's time from what is due by then, and what moves is due later), so
/// what the proxy already did stays true; what it planned for later is re-planned from the
/// answers (`Replan`). The journal is kept only while a triggered gap may still end early, up to
/// its planned end, and holds at most `journalLimit` calls: the proxy reads little during an
/// outage (a stall holds bytes in the link's bounded queue), and a journal that overflows is
/// dropped, after which the gap runs its course.
public struct ReplannableDevice: Sendable {
    public private(set) var model: DeviceModel
    private var journal: Journal?

    /// The most calls the journal keeps; one more drops it (`EarlyEndRefusal.journalOverflowed`).
    public static let journalLimit = 50_000

    private struct Journal: Sendable {
        /// The model before the first triggered gap of this journal.
        let checkpoint: DeviceModel
        var calls: [Call] = []
        /// When the latest triggered gap ends as planned; past it, nothing is left to end early.
        var plannedEnd: Double
        /// When the first triggered gap began.
        let start: Double
    }

    /// A call on the model that changes it, as journaled.
    private enum Call: Sendable {
        case open(at: Double)
        case handshake(ConnectionID, at: Double)
        case lookup(at: Double)
        case send(Int, Direction, ConnectionID, at: Double)
        case close(ConnectionID)
        case advance(to: Double, limit: Int)
        case trigger(TimelineEvent.Kind, at: Double)
        case undoSet(at: Double)
        case pauseTimeline(at: Double)
        case resumeTimeline(at: Double)
        case openFlow(at: Double)
        case closeFlow(DatagramFlowID)
        case datagram(Int, Direction, DatagramFlowID, mapping: Int?, at: Double)
    }

    /// A journaled call's answer, as replayed with the gaps ended early.
    public enum Answer: Sendable, Equatable {
        case handshake(LinkSchedule.Transmission)
        case lookup(answeredAt: Double)
        case send(SendVerdict)
        case datagram(DatagramVerdict)
        /// A call whose answer holds no time (an open, a close, a timeline step).
        case other
    }

    /// What ending the gaps early changed: the new answer of every journaled call, by its
    /// ticket, and whether the call woke the radio (and when) in the new plan.
    public struct Replan: Sendable {
        public struct Replayed: Sendable, Equatable {
            public var answer: Answer
            public var wokeRadioAt: Double?

            public init(answer: Answer, wokeRadioAt: Double? = nil) {
                self.answer = answer
                self.wokeRadioAt = wokeRadioAt
            }
        }
        /// Indexed by ticket: the ticket of the journal's first call is 0.
        public var calls: [Replayed]
        /// When the first of the gaps ended began, and when the last was planned to end.
        public var startedAt: Double
        public var plannedEnd: Double

        public init(calls: [Replayed], startedAt: Double, plannedEnd: Double) {
            self.calls = calls
            self.startedAt = startedAt
            self.plannedEnd = plannedEnd
        }
    }

    /// Why the gaps cannot end early.
    public enum EarlyEndRefusal: Error, Equatable, Sendable {
        /// The device has connectivity.
        case connected
        /// The gap in force is the profile's timeline's (`at`: when connectivity returns).
        case scripted(returnsAt: Double)
        /// So much went through the journal that it was dropped.
        case journalOverflowed
    }

    public init(_ model: DeviceModel) {
        self.model = model
    }

    /// The ticket the next call gets if it is journaled; nil when no journal is kept. A caller
    /// that acts later on an answer (a capture, a delivery timer) keeps the ticket and finds
    /// the call's new answer under it in a `Replan`.
    public var nextTicket: Int? { journal?.calls.count }

    /// Until when the gaps of a journal dropped for its size last: no journal starts before
    /// then, since ending a later gap early would leave the earlier one in force.
    private var overflowedUntil = -Double.infinity

    // MARK: The model's calls, journaled

    public mutating func openConnection(at time: Double) -> ConnectionID {
        note(.open(at: time))
        return model.openConnection(at: time)
    }

    public mutating func handshake(on connection: ConnectionID, at time: Double) -> LinkSchedule.Transmission {
        note(.handshake(connection, at: time))
        return model.handshake(on: connection, at: time)
    }

    public mutating func lookup(at time: Double) -> Double {
        note(.lookup(at: time))
        return model.lookup(at: time)
    }

    public mutating func send(_ bytes: Int, _ direction: Direction, on connection: ConnectionID, at time: Double) -> SendVerdict {
        note(.send(bytes, direction, connection, at: time))
        return model.send(bytes, direction, on: connection, at: time)
    }

    public mutating func closeConnection(_ id: ConnectionID) {
        note(.close(id))
        model.closeConnection(id)
    }

    public mutating func openDatagramFlow(at time: Double) -> DatagramFlowID {
        note(.openFlow(at: time))
        return model.openDatagramFlow(at: time)
    }

    public mutating func closeDatagramFlow(_ flow: DatagramFlowID) {
        note(.closeFlow(flow))
        model.closeDatagramFlow(flow)
    }

    public mutating func sendDatagram(
        _ bytes: Int, _ direction: Direction, on flow: DatagramFlowID, mapping: Int? = nil, at time: Double
    ) -> DatagramVerdict {
        note(.datagram(bytes, direction, flow, mapping: mapping, at: time))
        return model.sendDatagram(bytes, direction, on: flow, mapping: mapping, at: time)
    }

    public mutating func advance(to time: Double, limit: Int = .max) -> [DeviceAction] {
        note(.advance(to: time, limit: limit))
        return model.advance(to: time, limit: limit)
    }

    /// A triggered event; one that takes connectivity away starts a journal (or extends the
    /// one kept) until its planned end.
    public mutating func trigger(_ kind: TimelineEvent.Kind, at time: Double) -> [DeviceAction] {
        let gap = TimelineEvent(at: time, kind: kind).connectivityGap
        if gap > 0, journal == nil, time >= overflowedUntil {
            journal = Journal(checkpoint: model, plannedEnd: time + gap, start: time)
        }
        note(.trigger(kind, at: time))
        if gap > 0 {
            if let plannedEnd = journal?.plannedEnd {
                journal?.plannedEnd = max(plannedEnd, time + gap)
            } else {
                overflowedUntil = max(overflowedUntil, time + gap)
            }
        }
        return model.trigger(kind, at: time)
    }

    public mutating func undoSet(at time: Double) -> Bool {
        note(.undoSet(at: time))
        return model.undoSet(at: time)
    }

    public mutating func pauseTimeline(at time: Double) throws(DeviceModel.TimelinePauseRefusal) -> [DeviceAction] {
        let actions = try model.pauseTimeline(at: time)
        note(.pauseTimeline(at: time))
        return actions
    }

    public mutating func resumeTimeline(at time: Double) throws(DeviceModel.TimelinePauseRefusal) -> Double {
        let paused = try model.resumeTimeline(at: time)
        note(.resumeTimeline(at: time))
        return paused
    }

    /// The model's own calls that change nothing it answers later (they trim what has left the
    /// link), not journaled.
    public mutating func backlog(_ direction: Direction, at time: Double) -> Int {
        model.backlog(direction, at: time)
    }

    public mutating func queueRoomTime(_ direction: Direction, at time: Double) -> Double? {
        model.queueRoomTime(direction, at: time)
    }

    public mutating func takeRecentEvents() -> [DeviceEvent] {
        model.takeRecentEvents()
    }

    public mutating func takeRetimedDeliveries() -> [RetimedDeliveries] {
        model.takeRetimedDeliveries()
    }

    /// Drops the journal once `time` reaches the planned end of its gaps: they are over, and
    /// the answers given stand. True if it dropped one.
    public mutating func closeJournal(through time: Double) -> Bool {
        guard let journal, time >= journal.plannedEnd else { return false }
        self.journal = nil
        return true
    }

    // MARK: Ending early

    /// Ends at `time` every triggered gap still in force, as if each had been that long from
    /// its start, and says the new answers of the calls made since the first of them. After it
    /// the device has connectivity at `time`, unless a gap of the profile's timeline holds it.
    public mutating func endGaps(at time: Double) throws(EarlyEndRefusal) -> Replan {
        guard let journal, time < journal.plannedEnd else {
            if time < overflowedUntil { throw .journalOverflowed }
            if let back = model.connectivityReturns(after: time) { throw .scripted(returnsAt: back) }
            throw .connected
        }
        var replayed = journal.checkpoint
        var calls: [Replan.Replayed] = []
        calls.reserveCapacity(journal.calls.count)
        for call in journal.calls {
            let wakeUpsBefore = replayed.wakeUps
            let answer = Self.replay(call, endingGapsAt: time, on: &replayed)
            let woke = replayed.wakeUps > wakeUpsBefore ? replayed.latestWakeUp : nil
            calls.append(.init(answer: answer, wokeRadioAt: woke))
        }
        // Its events were published when they first happened.
        _ = replayed.takeRecentEvents()
        model = replayed
        self.journal = nil
        return Replan(calls: calls, startedAt: journal.start, plannedEnd: journal.plannedEnd)
    }

    private static func replay(_ call: Call, endingGapsAt end: Double, on model: inout DeviceModel) -> Answer {
        switch call {
        case .open(let time):
            _ = model.openConnection(at: time)
            return .other
        case .handshake(let connection, let time):
            return .handshake(model.handshake(on: connection, at: time))
        case .lookup(let time):
            return .lookup(answeredAt: model.lookup(at: time))
        case .send(let bytes, let direction, let connection, let time):
            return .send(model.send(bytes, direction, on: connection, at: time))
        case .close(let connection):
            model.closeConnection(connection)
            return .other
        case .openFlow(let time):
            _ = model.openDatagramFlow(at: time)
            return .other
        case .closeFlow(let flow):
            model.closeDatagramFlow(flow)
            return .other
        case .datagram(let bytes, let direction, let flow, let mapping, let time):
            return .datagram(model.sendDatagram(bytes, direction, on: flow, mapping: mapping, at: time))
        case .advance(let time, let limit):
            _ = model.advance(to: time, limit: limit)
            return .other
        case .trigger(let kind, let time):
            _ = model.trigger(kind.endingGap(by: end, startedAt: time), at: time)
            return .other
        case .undoSet(let time):
            _ = model.undoSet(at: time)
            return .other
        case .pauseTimeline(let time):
            // It was taken when first made, and the replayed model is where it was then.
            _ = try? model.pauseTimeline(at: time)
            return .other
        case .resumeTimeline(let time):
            _ = try? model.resumeTimeline(at: time)
            return .other
        }
    }

    private mutating func note(_ call: Call) {
        // Read through the optional, never into a copy: a copy of the journal would make the
        // append below copy every call journaled so far.
        guard let journaled = journal?.calls.count, let plannedEnd = journal?.plannedEnd else { return }
        guard journaled < Self.journalLimit else {
            overflowedUntil = plannedEnd
            journal = nil
            return
        }
        journal?.calls.append(call)
    }
}

extension TimelineEvent.Kind {
    /// The event with its connectivity gap cut at `end`, for an event at `start`; unchanged if
    /// its gap is over by then.
    func endingGap(by end: Double, startedAt start: Double) -> Self {
        switch self {
        case .outage(let duration, let mode): .outage(duration: min(duration, Self.span(from: start, to: end)), mode: mode)
        case .handover(let target, let mode, let gap): .handover(to: target, mode: mode, gap: min(gap, Self.span(from: start, to: end)))
        case .set, .signal: self
        }
    }

    /// `end - start`, a step shorter where adding it back to `start` rounds past `end`
    /// (0.159625525 + (0.734267884 - 0.159625525) is 0.7342678840000001): a gap ended at `end`
    /// must be over at `end`, or the device is still disconnected the moment it was ended.
    private static func span(from start: Double, to end: Double) -> Double {
        var span = end - start
        while span > 0, start + span > end { span = span.nextDown }
        return span
    }
}

/// An outage ended early (`POST /outage/end`): when, what it was planned to be, and what moved.
public struct OutageEnd: Sendable, Codable, Equatable {
    /// When it ended, and when it began and was planned to end (of several outages or handover
    /// gaps in force together, the first's start and the last's planned end).
    public var endedAt: Double
    public var startedAt: Double
    public var plannedEnd: Double
    /// The chunks and FINs it held whose delivery moved earlier.
    public var movedDeliveries: Int
    /// When connectivity returns if a gap of the profile's timeline still holds it; nil when it
    /// is back now.
    public var connectivityReturnsAt: Double?

    public init(endedAt: Double, startedAt: Double, plannedEnd: Double, movedDeliveries: Int, connectivityReturnsAt: Double?) {
        self.endedAt = endedAt
        self.startedAt = startedAt
        self.plannedEnd = plannedEnd
        self.movedDeliveries = movedDeliveries
        self.connectivityReturnsAt = connectivityReturnsAt
    }
}

extension ReplannableDevice.EarlyEndRefusal: CustomStringConvertible {
    public var description: String {
        switch self {
        case .connected:
            "no outage to end: the phone has connectivity"
        case .scripted(let back):
            "the outage in force is the profile's timeline's (connectivity returns at \(Quantity.formatDuration(back))); only an outage or a handover's gap triggered through the admin API ends early"
        case .journalOverflowed:
            "this outage held more than \(ReplannableDevice.journalLimit) reads, too many to plan again: it runs until its planned end"
        }
    }
}
