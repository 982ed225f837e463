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
/// restarts the tail timers.
public struct RadioStateMachine: Sendable {
    public let description: RadioStages
    private let stages: [RadioStage]
    /// Paging occasions are at `pagingPhase + k * cycle`; the phase is fixed per run from the seed.
    private let pagingPhase: Double

    /// The radio is in `chainStage` until `anchor` (the end of the latest transmission), then
    /// walks the following stages with their durations.
    private var chainStage: Int
    private var anchor: Double
    private var promotionEnd = -Double.infinity
    private var lastPromotionStart = -Double.infinity
    /// The stage a promotion started from: what the radio is in until that promotion begins
    /// (a downlink promotion can be scheduled for a later paging occasion).
    private var stageBeforePromotion = 0
    private var latestInput: Double
    /// Time up to which seconds and energy have been added up.
    private var accountedUntil: Double
    private let startTime: Double

    private var rlc: RLCBuffers

    private var secondsByStage: [Double]
    private var energyByStage: [Double]
    private var promotionsByStage: [Int]
    private var promotionSeconds = 0.0
    private var promotionEnergy = 0.0
    private var transferEnergy = 0.0
    private var bytesMoved: (up: Int, down: Int) = (0, 0)
    private var timeline: StateTimelineRecorder?

    /// - Parameters:
    ///   - start: the time the radio starts, IDLE.
    ///   - pagingPhase: offset of the paging occasions in [0, cycle); draw it from the run's seed.
    ///   - recordsTimeline: keep every state change (for charts); off, only totals are kept.
    public init(_ description: RadioStages, start: Double = 0, pagingPhase: Double = 0, recordsTimeline: Bool = false) {
        precondition(description.stages.last?.duration == .infinity, "the last stage must last forever")
        self.description = description
        self.stages = description.stages
        self.pagingPhase = pagingPhase
        self.chainStage = description.stages.count - 1
        self.anchor = start
        self.latestInput = start
        self.accountedUntil = start
        self.startTime = start
        self.rlc = RLCBuffers(start: start)
        self.secondsByStage = Array(repeating: 0, count: description.stages.count)
        self.energyByStage = Array(repeating: 0, count: description.stages.count)
        self.promotionsByStage = Array(repeating: 0, count: description.stages.count)
        self.timeline = recordsTimeline ? StateTimelineRecorder() : nil
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
                // The next stage starts with its own on-duration (or is asleep): look again there.
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
            }
        }
    }

    /// Records that bytes were on air from `start` to `end`: the radio is busy then, and its
    /// tail timers restart at `end`.
    public mutating func transmitted(from start: Double, to end: Double, direction: Direction, bytes: Int) {
        let start = max(start, promotionEnd)
        account(until: start)
        let (index, _) = stage(at: start)
        if case .sharedChannel = stages[index].behavior {
            chainStage = index
        } else {
            chainStage = 0
        }
        anchor = max(anchor, end, start)
        let megabits = Double(bytes) * 8 / 1e6
        switch direction {
        case .up:
            transferEnergy += description.alphaUp * megabits
            bytesMoved.up += bytes
        case .down:
            transferEnergy += description.alphaDown * megabits
            bytesMoved.down += bytes
        }
    }

    /// Records a transmission seen in a capture at `time`, already on air (Video Optimizer's
    /// method for offline analysis): if the radio was asleep, the promotion that must have
    /// come first is placed just before, ending at `time`. Fed the on-air times of a live run,
    /// this reproduces that run's figures.
    public mutating func observe(at time: Double, direction: Direction, bytes: Int) {
        let time = max(time, latestInput)
        latestInput = time
        if time >= promotionEnd {
            promoteBefore(time, direction: direction, bytes: bytes)
        }
        transmitted(from: time, to: time, direction: direction, bytes: bytes)
    }

    /// Places the promotion that a transmission at `time` needed, if any. A live run promotes
    /// from the state the radio is in when it starts promoting, `delay` before the data; so the
    /// origin is the first sleeping state (in chain order) that the radio was in at
    /// `time - delay` for that state's own delay. A shared channel (FACH) promoted only if the
    /// transfer overflowed its RLC buffer then; otherwise it carried the data itself.
    private mutating func promoteBefore(_ time: Double, direction: Direction, bytes: Int) {
        let current = stage(at: time).index
        for candidate in chainStage...current {
            switch stages[candidate].behavior {
            case .dormant(let promotion, _):
                let start = time - promotion.delay
                guard candidate == current || stage(at: start).index == candidate else { continue }
                beginPromotion(at: max(start, accountedUntil), from: candidate, promotion, until: time)
                return
            case .sharedChannel(let thresholdUp, let thresholdDown, let drainRate, let promotion):
                let start = time - promotion.delay
                guard candidate == current || stage(at: start).index == candidate else { continue }
                let thresholds = (up: thresholdUp, down: thresholdDown)
                if rlc.overflows(direction, adding: bytes, thresholds: thresholds, at: start, drainRate: drainRate) {
                    rlc.empty()
                    beginPromotion(at: max(start, accountedUntil), from: candidate, promotion, until: time)
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

    // MARK: Reading the state

    /// The state's name at `time` (`PROMOTION` while promoting), for live status.
    public func stateName(at time: Double) -> String {
        if time < lastPromotionStart { return stages[stageBeforePromotion].name }
        if time < promotionEnd { return RadioStages.promotionStateName }
        return stages[stage(at: time).index].name
    }

    /// When the radio will be back in its final (IDLE) stage if nothing more is sent.
    public var tailEnd: Double {
        var end = max(anchor, promotionEnd)
        for stage in stages[chainStage..<(stages.count - 1)] { end += stage.duration }
        return end
    }

    /// What the radio has spent up to its latest activity. Cheap enough to read after every
    /// `observe`: a capture analysis attributes each promotion and tail to a flow by how these
    /// totals change across that flow's packets.
    public var runningTotals: RadioRunningTotals {
        var totals = RadioRunningTotals(
            promotions: promotionsByStage.reduce(0, +), promotionSeconds: promotionSeconds,
            promotionEnergy: promotionEnergy, transferEnergy: transferEnergy)
        // By index: read per packet, so the stages (names included) are not copied.
        for index in stages.indices {
            if stages[index].isIdle {
                totals.idleEnergy += energyByStage[index]
            } else {
                totals.awakeSeconds += secondsByStage[index]
                totals.awakeEnergy += energyByStage[index]
            }
        }
        return totals
    }

    /// The totals from the start until `time` (or until the latest accounted activity, if later).
    public mutating func report(until time: Double) -> RadioReport {
        account(until: time)
        var secondsByState: [String: Double] = [:]
        var energyByState: [String: Double] = [:]
        var promotionsByOrigin: [String: Int] = [:]
        var wakeSeconds = promotionSeconds
        for (index, stage) in stages.enumerated() {
            secondsByState[stage.name, default: 0] += secondsByStage[index]
            energyByState[stage.name, default: 0] += energyByStage[index]
            if promotionsByStage[index] > 0 { promotionsByOrigin[stage.name, default: 0] += promotionsByStage[index] }
            if !stage.isIdle { wakeSeconds += secondsByStage[index] }
        }
        secondsByState[RadioStages.promotionStateName] = promotionSeconds
        energyByState[RadioStages.promotionStateName] = promotionEnergy
        let energy = energyByStage.reduce(0, +) + promotionEnergy + transferEnergy
        return RadioReport(
            model: description.model,
            durationSeconds: accountedUntil - startTime,
            wakeSeconds: wakeSeconds,
            promotions: promotionsByOrigin["IDLE"] ?? 0,
            promotionsByOrigin: promotionsByOrigin,
            energyJoules: energy,
            transferEnergyJoules: transferEnergy,
            secondsByState: secondsByState,
            energyJoulesByState: energyByState,
            bytes: .init(up: bytesMoved.up, down: bytesMoved.down),
            timeline: timeline?.segments)
    }

    // MARK: Internals


    /// The stage the radio is in at `time` and when that stage began. Before `anchor` the radio
    /// is still in the stage of the latest transmission.
    private func stage(at time: Double) -> (index: Int, start: Double) {
        if time < anchor { return (chainStage, anchor) }
        var stageStart = anchor
        var index = chainStage
        while index < stages.count - 1 {
            let stageEnd = stageStart + stages[index].duration
            if time < stageEnd { break }
            stageStart = stageEnd
            index += 1
        }
        return (index, stageStart)
    }

    private func nextPagingOccasion(atOrAfter time: Double, cycle: Double) -> Double {
        let cycles = ((time - pagingPhase) / cycle).rounded(.up)
        return max(time, pagingPhase + cycles * cycle)
    }


    /// Promotes from `stageIndex` starting at `time`; it ends after the promotion's delay, or
    /// at `end` when a capture shows the data earlier than a whole promotion after the tail.
    private mutating func beginPromotion(at time: Double, from stageIndex: Int, _ promotion: Promotion, until end: Double? = nil) {
        account(until: time)
        let end = end ?? time + promotion.delay
        promotionsByStage[stageIndex] += 1
        promotionSeconds += end - time
        promotionEnergy += (end - time) * promotion.power
        timeline?.append(RadioStages.promotionStateName, from: time, to: end)
        lastPromotionStart = time
        stageBeforePromotion = stageIndex
        promotionEnd = end
        chainStage = 0
        anchor = promotionEnd
        accountedUntil = max(accountedUntil, promotionEnd)
    }

    /// Adds up seconds and energy from `accountedUntil` to `time`, walking the stage chain.
    private mutating func account(until time: Double) {
        guard time > accountedUntil else { return }
        var from = accountedUntil
        if from < anchor {
            let to = min(time, anchor)
            add(stage: chainStage, from: from, to: to)
            from = to
        }
        var stageStart = anchor
        var index = chainStage
        while from < time {
            let stageEnd = index == stages.count - 1 ? Double.infinity : stageStart + stages[index].duration
            if stageEnd > from { add(stage: index, from: from, to: min(time, stageEnd)) }
            from = max(from, min(time, stageEnd))
            stageStart = stageEnd
            index += 1
        }
        accountedUntil = time
    }

    private mutating func add(stage index: Int, from start: Double, to end: Double) {
        guard end > start else { return }
        secondsByStage[index] += end - start
        energyByStage[index] += (end - start) * stages[index].power
        timeline?.append(stages[index].name, from: start, to: end)
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
private struct RLCBuffers: Sendable {
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
public struct RadioAdmission: Sendable, Equatable {
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

    public init(requested: Double) {
        self.requested = requested
        self.start = requested
    }

    public var totalWait: Double { start - requested }
}
