import Logging
import NIOCore
import NIOPosix
import NetsimConnection
import NetsimCore

extension EmulatedDevice {
    func startTimeline() {
        scheduleNextEvent()
    }

    /// Applies an event now (the admin API), with the same effects a scripted one has.
    func trigger(_ kind: TimelineEvent.Kind) -> DeviceEvent? {
        let now = clock.now()
        applyTimeline(upTo: now)
        perform(phone.trigger(kind, at: now))
        modelChanged(at: now)
        return model.lastEvent
    }

    /// Ends the outage (or handover gap) triggered through the admin API that is in force now,
    /// before its planned end: what it held is planned again as if it had been this long from
    /// its start (`ReplannableDevice`), its deliveries and captures move earlier, and
    /// `outage-ended` is published now. Refused when connectivity is up, when the gap in force
    /// is the profile's timeline's, or when the outage held too much to plan again.
    func endOutage() -> Result<OutageEnd, ReplannableDevice.EarlyEndRefusal> {
        let now = clock.now()
        applyTimeline(upTo: now)
        let replan: ReplannableDevice.Replan
        do {
            replan = try phone.endGaps(at: now)
        } catch {
            return .failure(error)
        }
        let moved = releaseHeldEffects(replan)
        // Connectivity and the radio change sooner than the follower and the timers were told.
        follower.connectivityMayReturnSooner(model, at: now)
        followTimer?.cancel()
        followTimer = nil
        followTimerDue = .infinity
        for direction in Direction.allCases where roomTimers[direction] != nil { wakeRoomWaiters(direction) }
        modelChanged(at: now)
        return .success(
            OutageEnd(
                endedAt: now, startedAt: replan.startedAt, plannedEnd: replan.plannedEnd, movedDeliveries: moved,
                connectivityReturnsAt: model.connectivityReturns(after: now)))
    }

    /// Pauses the profile's timeline now (`DeviceModel.pauseTimeline`): no scripted event or
    /// scripted outage begins until `resumeTimeline`. Returns the pause, begun now.
    func pauseTimeline() -> Result<TimelinePause, DeviceModel.TimelinePauseRefusal> {
        let now = clock.now()
        applyTimeline(upTo: now)
        do {
            perform(try phone.pauseTimeline(at: now))
        } catch {
            return .failure(error)
        }
        timelineTimer?.cancel()
        timelineTimer = nil
        logger.info("\(Quantity.formatDuration(now)): the timeline paused")
        events.publish(.timelinePaused(at: now))
        modelChanged(at: now)
        return .success(TimelinePause(at: now))
    }

    /// Runs the profile's timeline again, behind by the time it was paused; returns the pause,
    /// ended now.
    func resumeTimeline() -> Result<TimelinePause, DeviceModel.TimelinePauseRefusal> {
        let now = clock.now()
        applyTimeline(upTo: now)
        let paused: Double
        do {
            paused = try phone.resumeTimeline(at: now)
        } catch {
            return .failure(error)
        }
        logger.info("\(Quantity.formatDuration(now)): the timeline resumed after \(Quantity.formatDuration(paused))")
        events.publish(.timelineResumed(at: now, pausedSeconds: paused))
        scheduleNextEvent()
        modelChanged(at: now)
        return .success(TimelinePause(at: now - paused, resumedAt: now))
    }

    /// Takes back the latest `set` step the admin API (or the test API) made; nil if none is left.
    func undoSet() -> DeviceEvent? {
        let now = clock.now()
        applyTimeline(upTo: now)
        guard phone.undoSet(at: now) else { return nil }
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

    func applyTimeline(upTo time: Double) {
        _ = phone.closeJournal(through: time)
        let before = model.events.count
        perform(phone.advance(to: time, limit: Self.eventsPerPass))
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
}
