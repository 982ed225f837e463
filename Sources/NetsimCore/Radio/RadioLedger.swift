/// Where a radio is on its chain of stages: in `stage` until `anchor` (the end of the latest
/// transmission or promotion), then walking the following stages for their durations.
struct RadioChainPosition: Sendable, Codable {
    var stage: Int
    var anchor: Double

    /// The stage at `time` and when it began. Before `anchor` the radio is still in `stage`.
    func stage(at time: Double, in stages: [RadioStage]) -> (index: Int, start: Double) {
        if time < anchor { return (stage, anchor) }
        var stageStart = anchor
        var index = stage
        while index < stages.count - 1 {
            let stageEnd = stageStart + stages[index].duration
            if time < stageEnd { break }
            stageStart = stageEnd
            index += 1
        }
        return (index, stageStart)
    }
}

/// Something the radio did, as `RadioStateMachine` decided it: what the ledger adds up.
enum RadioActivity: Sendable, Codable {
    /// A promotion from stage `from`, from `start` to `end`, at `power` watts.
    case promotion(from: Int, start: Double, end: Double, power: Double)
    /// Bytes on air from `start` to `end`; the radio stays in `stage` (0, or a shared channel
    /// that carried them) and its tail timers restart at `end`.
    case transmission(start: Double, end: Double, direction: Direction, bytes: Int, stage: Int)
    /// From `start` on, stage 0 draws `connectedPower` watts (the phone's signal changed).
    case signal(start: Double, connectedPower: Double)

    var start: Double {
        switch self {
        case .promotion(_, let start, _, _), .transmission(let start, _, _, _, _), .signal(let start, _): start
        }
    }

    /// When the activity is wholly in the past: a promotion when it ends, a transmission when
    /// it starts (its bytes are counted then, and its tail is accounted as time passes).
    var settledAt: Double {
        switch self {
        case .promotion(_, _, let end, _): end
        case .transmission(let start, _, _, _, _), .signal(let start, _): start
        }
    }
}

/// What the radio spent, added up from its activities in the order they happened: seconds and
/// energy per stage, promotions, throughput energy, bytes, and the state timeline.
///
/// Kept apart from the state machine's scheduling state because a live run schedules activity
/// ahead of the clock (bytes held by an outage go on air at TCP's retransmission after it), and
/// a report must stop where the run stopped: the machine hands the ledger only what is past.
struct RadioLedger: Sendable, Codable {
    private let stages: [RadioStage]
    private let alphaUp: Double
    private let alphaDown: Double
    private(set) var position: RadioChainPosition
    /// Time up to which seconds and energy have been added up.
    private(set) var accountedUntil: Double
    let startTime: Double

    /// Each stage's duration (the last one's `.infinity`) and power, and the figures added up
    /// per stage, inline rather than in arrays: `account` adds to them several times for every
    /// chunk the model engine sends, and the arrays' uniqueness and bounds checks were most of
    /// its time. A chain has at most `RadioStages.maximumCount` stages.
    private let durations: PerStage<Double>
    private var powers: PerStage<Double>
    private var secondsByStage = PerStage<Double>()
    private var energyByStage = PerStage<Double>()
    private var promotionsByStage = PerStage<Int>()
    private var promotionSeconds = 0.0
    private var promotionEnergy = 0.0
    private var transferEnergy = 0.0
    private var bytesMoved = PerDirection(up: 0, down: 0)
    private var timeline: StateTimelineRecorder?

    init(_ description: RadioStages, start: Double, position: RadioChainPosition, recordsTimeline: Bool) {
        stages = description.stages
        alphaUp = description.alphaUp
        alphaDown = description.alphaDown
        self.position = position
        accountedUntil = start
        startTime = start
        var (durations, powers) = (PerStage<Double>(), PerStage<Double>())
        for (index, stage) in description.stages.enumerated() {
            durations[index] = index == description.stages.count - 1 ? .infinity : stage.duration
            powers[index] = stage.power
        }
        (self.durations, self.powers) = (durations, powers)
        timeline = recordsTimeline ? StateTimelineRecorder() : nil
    }

    /// Adds `activity`; a promotion still under way at `limit` counts only up to it.
    mutating func apply(_ activity: RadioActivity, clippedAt limit: Double = .infinity) {
        account(until: activity.start)
        switch activity {
        case .promotion(let from, let start, let end, let power):
            let end = max(start, min(end, limit))
            promotionsByStage[from] += 1
            promotionSeconds += end - start
            promotionEnergy += (end - start) * power
            timeline?.append(.promotion, from: start, to: end)
            position = RadioChainPosition(stage: 0, anchor: end)
            accountedUntil = max(accountedUntil, end)
        case .transmission(let start, let end, let direction, let bytes, let stage):
            position.stage = stage
            position.anchor = max(position.anchor, end, start)
            let megabits = Double(bytes) * 8 / 1e6
            switch direction {
            case .up:
                transferEnergy += alphaUp * megabits
                bytesMoved.up += bytes
            case .down:
                transferEnergy += alphaDown * megabits
                bytesMoved.down += bytes
            }
        case .signal(_, let connectedPower):
            powers[0] = connectedPower
        }
    }

    /// Adds up seconds and energy from `accountedUntil` to `time`, walking the stage chain.
    mutating func account(until time: Double) {
        guard time > accountedUntil else { return }
        var from = accountedUntil
        if from < position.anchor {
            let to = min(time, position.anchor)
            add(stage: position.stage, from: from, to: to)
            from = to
        }
        var stageStart = position.anchor
        var index = position.stage
        while from < time {
            let stageEnd = stageStart + durations[index]
            if stageEnd > from { add(stage: index, from: from, to: min(time, stageEnd)) }
            from = max(from, min(time, stageEnd))
            stageStart = stageEnd
            index += 1
        }
        accountedUntil = time
    }

    @inline(__always)
    private mutating func add(stage index: Int, from start: Double, to end: Double) {
        guard end > start else { return }
        secondsByStage[index] += end - start
        energyByStage[index] += (end - start) * powers[index]
        timeline?.append(stages[index].state, from: start, to: end)
    }

    /// The totals so far (cheap: no names, no dictionaries).
    var runningTotals: RadioRunningTotals {
        var totals = RadioRunningTotals(
            promotions: stages.indices.reduce(0) { $0 + promotionsByStage[$1] }, promotionSeconds: promotionSeconds,
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

    /// The report of everything added up so far, with `held` for what was not yet on air.
    func report(model: String, held: RadioReport.HeldTraffic) -> RadioReport {
        var secondsByState: [RadioState: Double] = [:]
        var energyByState: [RadioState: Double] = [:]
        var promotionsByOrigin: [RadioState: Int] = [:]
        var promotionsFromIdle = 0
        var wakeSeconds = promotionSeconds
        for (index, stage) in stages.enumerated() {
            secondsByState[stage.state, default: 0] += secondsByStage[index]
            energyByState[stage.state, default: 0] += energyByStage[index]
            if promotionsByStage[index] > 0 { promotionsByOrigin[stage.state, default: 0] += promotionsByStage[index] }
            if stage.state == .idle { promotionsFromIdle += promotionsByStage[index] }
            if !stage.isIdle { wakeSeconds += secondsByStage[index] }
        }
        secondsByState[.promotion] = promotionSeconds
        energyByState[.promotion] = promotionEnergy
        let energy = stages.indices.reduce(0) { $0 + energyByStage[$1] } + promotionEnergy + transferEnergy
        return RadioReport(
            model: model,
            durationSeconds: accountedUntil - startTime,
            wakeSeconds: wakeSeconds,
            promotions: promotionsFromIdle,
            promotionsByOrigin: promotionsByOrigin,
            energyJoules: energy,
            transferEnergyJoules: transferEnergy,
            secondsByState: secondsByState,
            energyJoulesByState: energyByState,
            bytes: .init(up: bytesMoved.up, down: bytesMoved.down),
            heldAtEnd: held,
            timeline: timeline?.segments)
    }
}

/// A value for each stage of a radio's chain (at most `RadioStages.maximumCount`), stored inline:
/// no array's heap buffer, uniqueness check or bounds check between the ledger and its figures.
struct PerStage<Value: Sendable & Codable & AdditiveArithmetic>: Sendable, Codable {
    private var first = Value.zero
    private var second = Value.zero
    private var third = Value.zero
    private var fourth = Value.zero

    init() {}

    subscript(index: Int) -> Value {
        get {
            switch index {
            case 0: first
            case 1: second
            case 2: third
            case 3: fourth
            default: Self.beyondTheChain(index)
            }
        }
        set {
            switch index {
            case 0: first = newValue
            case 1: second = newValue
            case 2: third = newValue
            case 3: fourth = newValue
            default: Self.beyondTheChain(index)
            }
        }
    }

    private static func beyondTheChain(_ index: Int) -> Never {
        preconditionFailure("stage \(index): a radio's chain has at most \(RadioStages.maximumCount) stages")
    }
}
