/// A radio's RRC machine described as the chain of states it walks after its last
/// transmission, from the most awake to IDLE. One engine (`RadioStateMachine`) runs every
/// technology from such a description, so LTE, UMTS, 5G and WiFi share the timing, accounting
/// and energy logic and differ only in their stages.
public struct RadioStages: Sendable, Equatable, Codable {
    /// The model's name in reports (`lte`, `umts`, `nr-nsa`, `nr-sa`, `wifi`).
    public let model: String
    /// Stage 0 is where transmissions put the radio (except a shared channel that carries them
    /// itself); the last stage lasts forever.
    public let stages: [RadioStage]
    /// Extra power while transferring, in watts per Mbit/s, per direction (Video Optimizer's
    /// alpha). Over any window it adds alpha * Mbit transferred joules.
    public let alphaUp: Double
    public let alphaDown: Double
    /// How stage 0's power follows signal strength (`RadioSignal`): watts per dB below the
    /// reference, and the signal stage 0's `power` already includes. Zero slope: no term.
    public var rsrpSlope = 0.0
    public var rsrp = RadioSignal.reference

    /// Stage 0's power at signal `rsrp` instead of the radio's own.
    public func connectedPower(atSignal rsrp: Double) -> Double {
        stages[0].power + RadioSignal.extraPower(slope: rsrpSlope, rsrp: rsrp)
            - RadioSignal.extraPower(slope: rsrpSlope, rsrp: self.rsrp)
    }

    /// The most stages a chain has: LTE's four (continuous reception, short DRX, long DRX,
    /// IDLE). The radio's ledger keeps its per-stage figures inline for that many.
    public static let maximumCount = 4
}

extension RadioStages {
    private enum CodingKeys: String, CodingKey {
        case model, stages, alphaUp, alphaDown, rsrpSlope, rsrp
    }

    /// The signal fields only for a radio that has the term, so that the reports of radios
    /// without it read as they always have.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(model, forKey: .model)
        try container.encode(stages, forKey: .stages)
        try container.encode(alphaUp, forKey: .alphaUp)
        try container.encode(alphaDown, forKey: .alphaDown)
        if rsrpSlope != 0 {
            try container.encode(rsrpSlope, forKey: .rsrpSlope)
            try container.encode(rsrp, forKey: .rsrp)
        }
    }

    /// Read back from a shard's partial report: refused unless it is a chain the radio can run
    /// (one to `maximumCount` stages, the last lasting forever).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        model = try container.decode(String.self, forKey: .model)
        stages = try container.decode([RadioStage].self, forKey: .stages)
        alphaUp = try container.decode(Double.self, forKey: .alphaUp)
        alphaDown = try container.decode(Double.self, forKey: .alphaDown)
        rsrpSlope = try container.decodeIfPresent(Double.self, forKey: .rsrpSlope) ?? 0
        rsrp = try container.decodeIfPresent(Double.self, forKey: .rsrp) ?? RadioSignal.reference
        guard (1...Self.maximumCount).contains(stages.count), stages.last?.duration == .infinity else {
            throw DecodingError.dataCorruptedError(
                forKey: .stages, in: container,
                debugDescription:
                    "a radio's chain has 1 to \(Self.maximumCount) stages, the last lasting forever; this one has \(stages.count)")
        }
    }
}

public struct RadioStage: Sendable, Equatable, Codable {
    public enum Behavior: Sendable, Equatable, Codable {
        /// Data flows at once (LTE continuous reception, UMTS DCH, NR CONNECTED, WiFi active).
        case connected
        /// Connected in discontinuous reception: the receiver is on for `onDuration` at the start
        /// of every `cycle`, counted from the stage's start. Downlink waits for the next
        /// on-duration; uplink sends after a scheduling request.
        case discontinuousReception(cycle: Double, onDuration: Double, schedulingRequestDelay: Double)
        /// A shared low-rate channel (UMTS CELL_FACH) that carries small transfers itself: each
        /// direction's RLC buffer drains at `drainBytesPerSecond`; a transfer that fills it past
        /// its threshold needs `promotion` to stage 0. Traffic here restarts this stage's timer.
        case sharedChannel(thresholdUp: Double, thresholdDown: Double, drainBytesPerSecond: Double, promotion: Promotion)
        /// Asleep (IDLE, RRC_INACTIVE): data needs `promotion` to stage 0; downlink data first
        /// waits for the device's next paging occasion (every `pagingCycle`; 0 = no wait).
        case dormant(promotion: Promotion, pagingCycle: Double)
    }

    /// The state this stage is, and is named as in reports.
    public let state: RadioState
    /// How long the radio stays here without traffic; `.infinity` for the last stage.
    public let duration: Double
    /// Mean power in watts while here (DRX and paging duty cycles averaged over their cycle).
    public let power: Double
    /// Whether time here counts as asleep; wake time is all time in other states.
    public let isIdle: Bool
    public let behavior: Behavior
}

/// A promotion to stage 0: how long data waits and what it costs. Reports count it under the
/// state it started from (`promotionsByOrigin`).
public struct Promotion: Sendable, Equatable, Codable {
    public let delay: Double
    public let power: Double
}

extension RadioStages {
    /// The stage chain for a parameter set, or nil for `.none` (no radio).
    public init?(_ parameters: RadioParameters) {
        switch parameters {
        case .lte(let lte): self = Self.lte(lte)
        case .umts(let umts): self = Self.umts(umts)
        case .nr(let nr): self = Self.nr(nr)
        case .wifi(let wifi): self = Self.wifi(wifi)
        case .none: return nil
        }
    }

    /// Mean power of a duty cycle: `onTime` at `onPower` every `cycle`, `offPower` otherwise.
    static func dutyCyclePower(cycle: Double, onTime: Double, onPower: Double, offPower: Double) -> Double {
        guard cycle > 0 else { return offPower }
        let on = min(onTime, cycle)
        return (on * onPower + (cycle - on) * offPower) / cycle
    }

    static func lte(_ p: LTERadioParameters) -> RadioStages {
        func drx(_ state: RadioState, time: Double, cycle: Double) -> RadioStage {
            RadioStage(
                state: state, duration: time,
                power: dutyCyclePower(cycle: cycle, onTime: p.drxOnDuration, onPower: p.drxOnPower, offPower: p.tailPower),
                isIdle: false,
                behavior: .discontinuousReception(
                    cycle: cycle, onDuration: p.drxOnDuration, schedulingRequestDelay: p.schedulingRequestDelay))
        }
        return RadioStages(
            model: RadioTechnology.lte.rawValue,
            stages: [
                RadioStage(state: .continuousReception, duration: p.inactivityTimer, power: p.beta, isIdle: false, behavior: .connected),
                drx(.shortDRX, time: p.shortDRXTime, cycle: p.shortDRXCycle),
                drx(.longDRX, time: p.longDRXTime, cycle: p.longDRXCycle),
                RadioStage(
                    state: .idle, duration: .infinity,
                    power: dutyCyclePower(cycle: p.pagingCycle, onTime: p.pagingOnTime, onPower: p.pagingPower, offPower: p.idlePower),
                    isIdle: true,
                    behavior: .dormant(
                        promotion: Promotion(delay: p.promotionTime, power: p.promotionPower),
                        pagingCycle: p.pagingCycle)),
            ],
            alphaUp: p.alphaUp, alphaDown: p.alphaDown)
    }

    /// IDLE always promotes to DCH, as Video Optimizer's 3G model does; FACH carries what stays
    /// under the RLC thresholds.
    static func umts(_ p: UMTSRadioParameters) -> RadioStages {
        RadioStages(
            model: RadioTechnology.umts.rawValue,
            stages: [
                RadioStage(state: .dch, duration: p.dchTail, power: p.dchPower, isIdle: false, behavior: .connected),
                RadioStage(
                    state: .fach, duration: p.fachTail, power: p.fachPower, isIdle: false,
                    behavior: .sharedChannel(
                        thresholdUp: p.rlcThresholdUp, thresholdDown: p.rlcThresholdDown,
                        drainBytesPerSecond: p.fachDrainRate / 8,
                        promotion: Promotion(delay: p.fachPromotionTime, power: p.fachPromotionPower))),
                RadioStage(
                    state: .idle, duration: .infinity, power: p.idlePower, isIdle: true,
                    behavior: .dormant(
                        promotion: Promotion(delay: p.idlePromotionTime, power: p.idlePromotionPower),
                        pagingCycle: p.pagingCycle)),
            ],
            alphaUp: 0, alphaDown: 0)
    }

    static func nr(_ p: NRRadioParameters) -> RadioStages {
        let pagingPower = dutyCyclePower(cycle: p.pagingCycle, onTime: p.pagingOnTime, onPower: p.pagingPower, offPower: p.idlePower)
        // The signal term moves the connected power only: the DRX tail's on-durations (2 ms in
        // 64 on the study's phones) and paging are listening, not transmitting.
        let connected = p.beta + RadioSignal.extraPower(slope: p.rsrpSlope, rsrp: p.rsrp)
        var stages: [RadioStage]
        if p.hasConnectedDRX {
            stages = [
                RadioStage(state: .connected, duration: p.inactivityTimer, power: connected, isIdle: false, behavior: .connected),
                RadioStage(
                    state: .longDRX, duration: p.connectedTail - p.inactivityTimer,
                    power: dutyCyclePower(cycle: p.drxCycle, onTime: p.drxOnDuration, onPower: p.beta, offPower: p.tailPower),
                    isIdle: false,
                    behavior: .discontinuousReception(
                        cycle: p.drxCycle, onDuration: p.drxOnDuration, schedulingRequestDelay: p.schedulingRequestDelay)),
            ]
        } else {
            stages = [RadioStage(state: .connected, duration: p.connectedTail, power: connected, isIdle: false, behavior: .connected)]
        }
        if p.standalone {
            stages.append(
                RadioStage(
                    state: .inactive, duration: p.inactiveTail, power: pagingPower, isIdle: false,
                    behavior: .dormant(
                        promotion: Promotion(delay: p.resumeTime, power: p.promotionPower),
                        pagingCycle: p.pagingCycle)))
        }
        stages.append(
            RadioStage(
                state: .idle, duration: .infinity, power: pagingPower, isIdle: true,
                behavior: .dormant(
                    promotion: Promotion(delay: p.promotionTime, power: p.promotionPower),
                    pagingCycle: p.pagingCycle)))
        return RadioStages(
            model: (p.standalone ? RadioTechnology.nrSA : .nrNSA).rawValue, stages: stages,
            alphaUp: p.alphaUp, alphaDown: p.alphaDown, rsrpSlope: p.rsrpSlope, rsrp: p.rsrp)
    }

    /// WiFi power save as Video Optimizer models it: awake while transferring and for the tail,
    /// then standby. Downlink to a dozing station is not delayed (beacon waits are not modeled).
    static func wifi(_ p: WiFiRadioParameters) -> RadioStages {
        RadioStages(
            model: RadioTechnology.wifi.rawValue,
            stages: [
                RadioStage(state: .active, duration: p.tail, power: p.activePower, isIdle: false, behavior: .connected),
                RadioStage(
                    state: .idle, duration: .infinity, power: p.standbyPower, isIdle: true,
                    behavior: .dormant(
                        promotion: Promotion(delay: p.promotionTime, power: p.activePower), pagingCycle: 0)),
            ],
            alphaUp: 0, alphaDown: 0)
    }
}
