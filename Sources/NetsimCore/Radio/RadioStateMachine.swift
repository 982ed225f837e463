/// One device's radio: an RRC state machine fed with transmissions, answering how long each
/// transmission must wait because of the radio's state and keeping the state timeline, wake
/// time and energy by the Video Optimizer method.
///
/// Time is always an argument (seconds on the caller's clock); the machine never reads a clock.
/// Callers pass times in non-decreasing order; an earlier time is treated as the latest seen, so
/// several connections with slightly different delays cannot move the radio backwards.
///
/// Usage, per transmission: `admit(at:direction:bytes:)` says when the bytes may go on air
/// (after a paging wait, a promotion or a DRX wait); once the caller knows when they finished
/// (the link's serialization), `transmitted(from:to:direction:bytes:)` records the activity that
/// restarts the tail timers. Both may lie ahead of the caller's clock (bytes held by an outage
/// are admitted when read and go on air after it); a live caller says how far its clock has
/// come with `settle(through:)`, and `report(until:)` counts only what happened by then.
public struct RadioStateMachine: Sendable, Codable {
    public let description: RadioStages
    private let stages: [RadioStage]
    /// Paging occasions are at `pagingPhase + k * cycle`; the phase is fixed per run from the seed.
    private let pagingPhase: Double

    /// Where the radio is with everything scheduled so far, future activity included: what
    /// admissions are decided against.
    private var position: RadioChainPosition
    private var promotionEnd = -Double.infinity
    private var lastPromotionStart = -Double.infinity
    /// The stage a promotion started from: what the radio is in until that promotion begins
    /// (a downlink promotion can be scheduled for a later paging occasion).
    private var stageBeforePromotion = 0
    private var latestInput: Double

    private var rlc: RLCBuffers

    /// What the radio spent, up to `settledThrough`.
    private var ledger: RadioLedger
    /// Activity decided but not yet in the ledger because it lies beyond `settledThrough`, in
    /// the order it was decided. A live run schedules ahead of its clock: bytes are admitted
    /// when the proxy reads them, but go on air after the link's delay, a promotion, or an
    /// outage and TCP's retransmission.
    private var scheduled: [RadioActivity] = []
    /// The time up to which activity is known to be past (the run's clock, via `settle`).
    private var settledThrough: Double

    /// - Parameters:
    ///   - start: the time the radio starts, IDLE.
    ///   - pagingPhase: offset of the paging occasions in [0, cycle); draw it from the run's seed.
    ///   - recordsTimeline: keep every state change (for charts); off, only totals are kept.
    ///   - startsConnected: the radio starts in its most awake stage, its tail timers running
    ///     from `start`, rather than IDLE: a phone that was already connected when a measurement
    ///     began, or whose traffic moved to this radio access without a new RRC connection.
    public init(
        _ description: RadioStages, start: Double = 0, pagingPhase: Double = 0, recordsTimeline: Bool = false,
        startsConnected: Bool = false
    ) {
        precondition(description.stages.last?.duration == .infinity, "the last stage must last forever")
        self.description = description
        self.stages = description.stages
        self.pagingPhase = pagingPhase
        let position = RadioChainPosition(stage: startsConnected ? 0 : description.stages.count - 1, anchor: start)
        self.position = position
        self.latestInput = start
        self.rlc = RLCBuffers(start: start)
        self.ledger = RadioLedger(description, start: start, position: position, recordsTimeline: recordsTimeline)
        self.settledThrough = start
    }

    // MARK: Feeding activity

    /// When bytes that reach the radio at `time` may go on air, and why they wait.
    /// Starts a promotion when the radio is asleep.
    public mutating func admit(at time: Double, direction: Direction, bytes: Int) -> RadioAdmission {
        let requested = max(time, latestInput)
        latestInput = requested
        var admission = RadioAdmission(requested: requested)
        var now = requested
        var paged = false
        while true {
            if now < promotionEnd {
                admission.promotionWait += promotionEnd - now
                admission.start = promotionEnd
                return admission
            }
            let (index, stageStart) = stage(at: now)
            let stage = stages[index]
            switch stage.behavior {
            case .connected:
                admission.start = now
                return admission
            case .discontinuousReception(let cycle, let onDuration, let schedulingRequestDelay):
                guard cycle > 0 else {
                    admission.start = now
                    return admission
                }
                if direction == .up {
                    admission.drxWait += schedulingRequestDelay
                    admission.start = now + schedulingRequestDelay
                    return admission
                }
                let intoCycle = (now - stageStart).truncatingRemainder(dividingBy: cycle)
                if intoCycle < onDuration {
                    admission.start = now
                    return admission
                }
                let nextOn = now + (cycle - intoCycle)
                let stageEnd = stageStart + stage.duration
                // Past the last on-duration before the tail runs out, the network still holds the
                // connection (it releases it only when its inactivity timer expires, and data
                // pending for the phone restarts that timer): the packet goes at the next
                // on-duration rather than waiting for a page. The measured phones show the step
                // to idle round trips where the tail ends, not a DRX cycle before it.
                if nextOn >= stageEnd, index + 1 < stages.count, case .dormant = stages[index + 1].behavior {
                    admission.drxWait += nextOn - now
                    admission.start = nextOn
                    return admission
                }
                // The next stage starts with its own on-duration: look again there.
                let wakeAt = min(nextOn, stageEnd)
                admission.drxWait += wakeAt - now
                now = wakeAt
                if nextOn < stageEnd {
                    admission.start = now
                    return admission
                }
            case .sharedChannel(let thresholdUp, let thresholdDown, let drainRate, let promotion):
                let thresholds = (up: thresholdUp, down: thresholdDown)
                if !rlc.overflows(direction, adding: bytes, thresholds: thresholds, at: now, drainRate: drainRate) {
                    rlc.add(bytes, direction, at: now, drainRate: drainRate)
                    admission.start = now
                    return admission
                }
                rlc.empty()
                beginPromotion(at: now, from: index, promotion)
                admission.wokeRadioAt = now
            case .dormant(let promotion, let pagingCycle):
                if direction == .down, pagingCycle > 0, !paged {
                    paged = true
                    let occasion = nextPagingOccasion(atOrAfter: now, cycle: pagingCycle)
                    if occasion > now {
                        admission.pagingWait += occasion - now
                        now = occasion
                        // The radio may have gone deeper (INACTIVE -> IDLE) while it waited.
                        continue
                    }
                }
                beginPromotion(at: now, from: index, promotion)
                admission.wokeRadioAt = now
            }
        }
    }

    /// Records that bytes were on air from `start` to `end`: the radio is busy then, and its
    /// tail timers restart at `end`.
    public mutating func transmitted(from start: Double, to end: Double, direction: Direction, bytes: Int) {
        let start = max(start, promotionEnd)
        let (index, _) = position.stage(at: start, in: stages)
        if case .sharedChannel = stages[index].behavior {
            position.stage = index
        } else {
            position.stage = 0
        }
        position.anchor = max(position.anchor, end, start)
        record(.transmission(start: start, end: end, direction: direction, bytes: bytes, stage: position.stage))
    }

    /// Records a transmission seen in a capture at `time`, already on air (Video Optimizer's
    /// method for offline analysis): if the radio was asleep, the promotion that must have
    /// come first is placed just before, ending at `time`. Fed the on-air times of a live run,
    /// this reproduces that run's figures.
    public mutating func observe(at time: Double, direction: Direction, bytes: Int) {
        observe(from: time, to: time, direction: direction, bytes: bytes)
    }

    /// Records a transfer seen as on air from `start` to `end`, its bytes spread over the span
    /// (a traffic counter's interval): `observe(at:)` for a span. A promotion the radio needed
    /// is placed before `start`; the radio is connected (its first stage, at full power) through
    /// `end`, and its tail timers restart there. The bytes' throughput energy counts once.
    public mutating func observe(from start: Double, to end: Double, direction: Direction, bytes: Int) {
        let time = max(start, latestInput)
        latestInput = time
        // A capture's packet is past when seen; its promotion is placed before it, so the
        // totals are not yet run up to it.
        settleActivity(through: time)
        if time >= promotionEnd {
            promoteBefore(time, direction: direction, bytes: bytes)
        }
        transmitted(from: time, to: max(time, end), direction: direction, bytes: bytes)
    }

    /// Places the promotion that a transmission at `time` needed, if any. A live run promotes
    /// from the state the radio is in when it starts promoting, `delay` before the data; so the
    /// origin is the first sleeping state (in chain order) that the radio was in at
    /// `time - delay` for that state's own delay. A shared channel (FACH) promoted only if the
    /// transfer overflowed its RLC buffer then; otherwise it carried the data itself.
    private mutating func promoteBefore(_ time: Double, direction: Direction, bytes: Int) {
        let current = stage(at: time).index
        for candidate in position.stage...current {
            switch stages[candidate].behavior {
            case .dormant(let promotion, _):
                let start = time - promotion.delay
                guard candidate == current || stage(at: start).index == candidate else { continue }
                beginPromotion(at: max(start, ledger.accountedUntil), from: candidate, promotion, until: time)
                return
            case .sharedChannel(let thresholdUp, let thresholdDown, let drainRate, let promotion):
                let start = time - promotion.delay
                guard candidate == current || stage(at: start).index == candidate else { continue }
                let thresholds = (up: thresholdUp, down: thresholdDown)
                if rlc.overflows(direction, adding: bytes, thresholds: thresholds, at: start, drainRate: drainRate) {
                    rlc.empty()
                    beginPromotion(at: max(start, ledger.accountedUntil), from: candidate, promotion, until: time)
                    return
                }
                // Carried in FACH only if the radio is still there when the data goes.
                guard candidate == current else { continue }
                rlc.add(bytes, direction, at: time, drainRate: drainRate)
                return
            case .connected, .discontinuousReception:
                continue
            }
        }
    }

    /// The phone's signal strength (SS-RSRP, dBm) from `time` on: the connected stage's power
    /// follows it by the radio's `rsrpSlope` (`RadioSignal`). Nothing changes for a radio
    /// without the term. A meter's log or a timeline moves it as the phone moves.
    public mutating func signal(_ rsrp: Double, at time: Double) {
        guard description.rsrpSlope != 0 else { return }
        record(.signal(start: max(time, ledger.accountedUntil), connectedPower: description.connectedPower(atSignal: rsrp)))
    }

    // MARK: Reading the state

    /// The state at `time` (`.promotion` while promoting), for live status.
    public func state(at time: Double) -> RadioState {
        if time < lastPromotionStart { return stages[stageBeforePromotion].state }
        if time < promotionEnd { return .promotion }
        return stages[stage(at: time).index].state
    }

    /// Whether the radio is asleep at `time` (a dormant stage, IDLE or INACTIVE, no promotion
    /// under way) if nothing more is sent before then: bytes that go on air then must wake it.
    public func isAsleep(at time: Double) -> Bool {
        guard time >= promotionEnd else { return false }
        if case .dormant = stages[stage(at: time).index].behavior { return true }
        return false
    }

    /// The next time after `time` at which `state(at:)` changes stage (a promotion starting or
    /// ending, a tail timer running out) if nothing more is sent; nil when the radio stays
    /// where it is. A live caller follows the state with it instead of polling. Consecutive
    /// stages may show the same state: the caller compares.
    public func nextStateChange(after time: Double) -> Double? {
        if time < lastPromotionStart { return lastPromotionStart }
        if time < promotionEnd { return promotionEnd }
        let (index, start) = stage(at: time)
        guard index < stages.count - 1 else { return nil }
        return start + stages[index].duration
    }

    /// When the radio will be back in its final (IDLE) stage if nothing more is sent.
    public var tailEnd: Double {
        var end = max(position.anchor, promotionEnd)
        for stage in stages[position.stage..<(stages.count - 1)] { end += stage.duration }
        return end
    }

    /// What the radio has spent up to its latest settled activity (all of it, offline). Cheap
    /// enough to read after every `observe`: a capture analysis attributes each promotion and
    /// tail to a flow by how these totals change across that flow's packets.
    public var runningTotals: RadioRunningTotals { ledger.runningTotals }

    /// Declares that the clock has reached `time`: activity decided for `time` or earlier is
    /// past and joins the totals, which run to `time` (`runningTotals`). A live caller calls it
    /// as its clock advances, which also keeps the activity held for later bounded by what is
    /// in flight.
    @inline(__always)
    public mutating func settle(through time: Double) {
        settleActivity(through: time)
        // Not into a promotion still under way: the ledger would count that time twice.
        ledger.account(until: min(time, scheduled.first?.start ?? time))
    }

    /// What the radio did from the start until `time`, and nothing after: activity scheduled
    /// later is left out (a promotion under way is cut at `time`), and the bytes of
    /// transmissions not yet on air are reported as `heldAtEnd`. If activity up to a later time
    /// is already settled, the report runs to that time.
    public func report(until time: Double) -> RadioReport {
        var ledger = ledger
        var held = RadioReport.HeldTraffic()
        // The activity is in the order it was decided, which is time order for the ledger.
        let happened = scheduled.prefix { $0.start <= time }.count
        for activity in scheduled[..<happened] { ledger.apply(activity, clippedAt: time) }
        for case .transmission(_, _, let direction, let bytes, _) in scheduled[happened...] where bytes > 0 {
            held.add(bytes, direction)
        }
        ledger.account(until: time)
        return ledger.report(model: description.model, held: held)
    }

    // MARK: Internals

    /// Hands the ledger the activity that is past at `time`, in the order it was decided. By
    /// index, not through a slice: it runs before every chunk the model engine sends, and the
    /// slice's retain and release were a visible part of that.
    @inline(__always)
    private mutating func settleActivity(through time: Double) {
        guard time > settledThrough else { return }
        settledThrough = time
        var past = 0
        while past < scheduled.count, scheduled[past].settledAt <= time {
            ledger.apply(scheduled[past])
            past += 1
        }
        // Most often all of it is past: dropped from the end, not through `replaceSubrange`.
        if past == scheduled.count {
            scheduled.truncate(to: 0)
        } else if past > 0 {
            scheduled.removeFirst(past)
        }
    }

    @inline(__always)
    private func stage(at time: Double) -> (index: Int, start: Double) {
        position.stage(at: time, in: stages)
    }

    private func nextPagingOccasion(atOrAfter time: Double, cycle: Double) -> Double {
        let cycles = ((time - pagingPhase) / cycle).rounded(.up)
        return max(time, pagingPhase + cycles * cycle)
    }

    /// Promotes from `stageIndex` starting at `time`; it ends after the promotion's delay, or
    /// at `end` when a capture shows the data earlier than a whole promotion after the tail.
    private mutating func beginPromotion(at time: Double, from stageIndex: Int, _ promotion: Promotion, until end: Double? = nil) {
        let end = end ?? time + promotion.delay
        record(.promotion(from: stageIndex, start: time, end: end, power: promotion.power))
        lastPromotionStart = time
        stageBeforePromotion = stageIndex
        promotionEnd = end
        position = RadioChainPosition(stage: 0, anchor: end)
    }

    /// Hands `activity` to the ledger if it is past, or holds it until `settle` says it is.
    @inline(__always)
    private mutating func record(_ activity: RadioActivity) {
        if scheduled.isEmpty, activity.settledAt <= settledThrough {
            ledger.apply(activity)
        } else {
            scheduled.append(activity)
        }
    }
}

/// A radio's running totals, split the way attributing them to flows needs: promotions go to
/// the packet that needed them, awake states to the packet before, idle time to nobody.
public struct RadioRunningTotals: Sendable, Equatable {
    /// Promotions from any state (IDLE, FACH, INACTIVE).
    public var promotions: Int
    public var promotionSeconds: Double
    public var promotionEnergy: Double
    /// The throughput (alpha) terms.
    public var transferEnergy: Double
    /// Time and energy in the states that are not idle (connected, tails, DRX, FACH).
    public var awakeSeconds = 0.0
    public var awakeEnergy = 0.0
    /// Energy while idle (paging).
    public var idleEnergy = 0.0

    public var wakeSeconds: Double { promotionSeconds + awakeSeconds }
    public var energy: Double { promotionEnergy + transferEnergy + awakeEnergy + idleEnergy }
}

/// UMTS RLC buffers, one per direction, draining at the shared channel's rate: whether CELL_FACH
/// carries a transfer itself or must promote to DCH.
private struct RLCBuffers: Sendable, Codable {
    private var up = 0.0
    private var down = 0.0
    private var updated: Double

    init(start: Double) {
        updated = start
    }

    /// Whether `count` more bytes would pass `direction`'s threshold at `time`.
    mutating func overflows(
        _ direction: Direction, adding count: Int, thresholds: (up: Double, down: Double), at time: Double, drainRate: Double
    ) -> Bool {
        drain(until: time, rate: drainRate)
        return (direction == .up ? up : down) + Double(count) > (direction == .up ? thresholds.up : thresholds.down)
    }

    /// Queues `count` bytes in `direction`'s buffer at `time`.
    mutating func add(_ count: Int, _ direction: Direction, at time: Double, drainRate: Double) {
        drain(until: time, rate: drainRate)
        if direction == .up { up += Double(count) } else { down += Double(count) }
    }

    /// A promotion to DCH empties both buffers.
    mutating func empty() {
        up = 0
        down = 0
    }

    private mutating func drain(until time: Double, rate: Double) {
        let drained = max(0, time - updated) * rate
        up = max(0, up - drained)
        down = max(0, down - drained)
        updated = max(updated, time)
    }
}

/// How long a transmission waits for the radio, and why (reported apart from link delay, so a
/// user sees why latency moved).
public struct RadioAdmission: Sendable, Equatable, Codable {
    /// When the bytes reached the radio.
    public var requested: Double
    /// When they may go on air.
    public var start: Double
    /// Waiting for the next paging occasion (downlink to a sleeping device).
    public var pagingWait = 0.0
    /// Waiting for a promotion (from IDLE, INACTIVE or FACH) to finish.
    public var promotionWait = 0.0
    /// Waiting for a DRX on-duration (downlink) or a scheduling request (uplink).
    public var drxWait = 0.0
    /// When the promotion these bytes started began: nil unless they found the radio asleep
    /// (or on FACH past its buffer threshold) and woke it. Bytes that wait on a promotion
    /// already under way did not wake it.
    public var wokeRadioAt: Double?
    /// How long the link held the bytes between their admission and a second one, when they
    /// left only after the radio had fallen asleep behind them (`wokeAgain`): their queue's
    /// wait, not the radio's.
    public var heldByLink = 0.0

    public init(requested: Double) {
        self.requested = requested
        self.start = requested
    }

    /// The radio's part of the wait: paging, promotion and DRX.
    public var totalWait: Double { start - requested - heldByLink }

    /// Folds in `later`, the admission of the same bytes when the link let them go after the
    /// radio had gone back to sleep (an outage stalled its queue past the radio's tail): the
    /// waits add, the bytes go on air at `later.start`, and the time between counts as held.
    public mutating func wokeAgain(_ later: RadioAdmission) {
        heldByLink += later.requested - start
        start = later.start
        pagingWait += later.pagingWait
        promotionWait += later.promotionWait
        drxWait += later.drxWait
        wokeRadioAt = later.wokeRadioAt ?? wokeRadioAt
    }
}
