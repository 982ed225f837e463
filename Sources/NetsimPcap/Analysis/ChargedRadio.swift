import NetsimCore

/// The radio model `netsim analyze` runs traffic through, and what it spends charged to flows:
/// the one pricing path for a capture's packets (`CaptureAnalyzer`) and a traffic counter's
/// intervals (`CounterSeries`). A packet is a transfer of no length at its time; an interval is
/// a transfer spread over the interval. A promotion and the throughput energy go to the flow
/// whose transfer needed them, the awake time after a transfer (until the next transfer of any
/// flow, or sleep) to that transfer's flow, idle time to nobody.
struct ChargedRadio {
    /// The radio model the traffic runs through now.
    private(set) var stages: RadioStages
    /// Replaced when the traffic starts (`start(at:)`), and when it moves to another radio.
    private var radio: RadioStateMachine
    private(set) var started = false
    /// The reports of radios the traffic left (`switchRadio`), and their idle energy.
    private var earlierReports: [RadioReport] = []
    private var earlierIdleEnergy = 0.0
    private var chargedTotals: RadioRunningTotals
    private var lastChargedFlow: Int?
    private(set) var flows: [FlowCharges] = []

    init(_ stages: RadioStages) {
        self.stages = stages
        self.radio = RadioStateMachine(stages)
        self.chargedTotals = radio.runningTotals
    }

    /// Before the first transfer: the stages the traffic will start on.
    mutating func choose(_ stages: RadioStages) {
        precondition(!started, "the radio is chosen before the traffic starts")
        self.stages = stages
    }

    /// How long waking the chosen radio from its final (IDLE) state takes: where an analysis
    /// starts before its first transfer, as Video Optimizer starts it.
    var idlePromotionDelay: Double {
        if case .dormant(let promotion, _) = stages.stages.last?.behavior { return promotion.delay }
        return 0
    }

    /// Starts the radio, IDLE, at `time`; the figures begin there.
    mutating func start(at time: Double) {
        radio = RadioStateMachine(stages, start: time, recordsTimeline: true)
        chargedTotals = radio.runningTotals
        started = true
    }

    /// A new flow with nothing charged yet; its index.
    mutating func addFlow() -> Int {
        flows.append(FlowCharges())
        return flows.count - 1
    }

    /// A transfer of `flow` on air from `start` to `end` (equal for a packet), its payload
    /// `bytes` in `direction`. Times never go back: the caller passes the latest it has seen.
    /// `counted` false: the same transfer's other direction (a counter interval's rx and tx),
    /// not counted again in the flow's transfers.
    mutating func charge(
        from start: Double, to end: Double, flow: Int, direction: Direction, bytes: Int, burstGap: Double, counted: Bool = true
    ) {
        radio.observe(from: start, to: end, direction: direction, bytes: bytes)
        let totals = radio.runningTotals
        // The awake time since the previous transfer is that transfer's tail; it is charged
        // before this one may start a new burst of the same flow.
        chargeTail(upTo: totals)
        let previous = chargedTotals
        flows[flow].note(from: start, to: end, burstGap: burstGap, counted: counted)
        let promotions = totals.promotions - previous.promotions
        let promotionSeconds = totals.promotionSeconds - previous.promotionSeconds
        let promotionEnergy = totals.promotionEnergy - previous.promotionEnergy
        let transferEnergy = totals.transferEnergy - previous.transferEnergy
        flows[flow].wakeUps += promotions
        flows[flow].burst.wakeUps += promotions
        flows[flow].promotionSeconds += promotionSeconds
        flows[flow].promotionEnergy += promotionEnergy
        flows[flow].transferEnergy += transferEnergy
        flows[flow].burst.wakeSeconds += promotionSeconds
        flows[flow].burst.energyJoules += promotionEnergy + transferEnergy
        if direction == .up { flows[flow].bytesUp += bytes } else { flows[flow].bytesDown += bytes }
        chargedTotals = totals
        lastChargedFlow = flow
    }

    /// The traffic moves to another radio at `time` (a counter's access column changed from
    /// LTE to NR, say): the radio so far is reported up to `time`, and `next` takes over. If
    /// the device was awake then, `next` takes over connected, its tail starting at `time`
    /// (a handover needs no promotion); asleep, it takes over IDLE.
    mutating func switchRadio(to next: RadioStages, at time: Double) {
        guard started else { return choose(next) }
        radio.settle(through: time)
        let awake = radio.state(at: time) != stages.stages[stages.stages.count - 1].state
        chargeTail(upTo: radio.runningTotals)
        earlierReports.append(radio.report(until: time))
        earlierIdleEnergy += radio.runningTotals.idleEnergy
        stages = next
        radio = RadioStateMachine(next, start: time, recordsTimeline: true)
        // A transfer of no bytes, not observed: it puts the radio in its connected stage
        // without the promotion `observe` would place.
        if awake { radio.transmitted(from: time, to: time, direction: .down, bytes: 0) }
        chargedTotals = radio.runningTotals
    }

    /// When the radio is back IDLE if nothing more is sent.
    var tailEnd: Double { radio.tailEnd }

    /// Ends the figures at `end`: the radio's report over every radio the traffic used, and
    /// the energy spent idle, which no flow is charged for.
    mutating func finish(at end: Double) -> (report: RadioReport, idleEnergy: Double) {
        if started { radio.settle(through: end) }
        let current = radio.report(until: started ? end : 0)
        let totals = radio.runningTotals
        chargeTail(upTo: totals)
        return (RadioReport.sequential(earlierReports + [current]), earlierIdleEnergy + totals.idleEnergy)
    }

    /// Charges the awake time and energy added since the last charged transfer, up to the
    /// radio's `totals` now, to that transfer's flow.
    private mutating func chargeTail(upTo totals: RadioRunningTotals) {
        if let flow = lastChargedFlow {
            flows[flow].chargeTail(
                seconds: totals.awakeSeconds - chargedTotals.awakeSeconds, energy: totals.awakeEnergy - chargedTotals.awakeEnergy)
        }
        chargedTotals.awakeSeconds = totals.awakeSeconds
        chargedTotals.awakeEnergy = totals.awakeEnergy
    }
}

/// What one flow's transfers cost the radio, and their bursts.
struct FlowCharges {
    /// Packets, or a counter's intervals with traffic.
    var transfers = 0
    var bytesUp = 0
    var bytesDown = 0
    var firstTime = 0.0
    var lastTime = 0.0
    var wakeUps = 0
    var promotionSeconds = 0.0
    var promotionEnergy = 0.0
    var transferEnergy = 0.0
    var tailSeconds = 0.0
    var tailEnergy = 0.0
    var burst = FlowBurst(at: 0)
    var earlierBursts: [FlowBurst] = []

    var energy: Double { promotionEnergy + transferEnergy + tailEnergy }
    var bursts: [FlowBurst] { earlierBursts + [burst] }

    /// A transfer from `start` to `end`: it joins the current burst unless it starts more than
    /// `burstGap` after the latest transfer ended.
    mutating func note(from start: Double, to end: Double, burstGap: Double, counted: Bool) {
        if transfers == 0 {
            firstTime = start
            burst = FlowBurst(at: start)
        } else if start - lastTime > burstGap {
            earlierBursts.append(burst)
            burst = FlowBurst(at: start)
        }
        lastTime = max(lastTime, end)
        burst.end = lastTime
        if counted {
            transfers += 1
            burst.packets += 1
        }
    }

    mutating func chargeTail(seconds: Double, energy: Double) {
        tailSeconds += seconds
        tailEnergy += energy
        burst.wakeSeconds += seconds
        burst.energyJoules += energy
    }
}
