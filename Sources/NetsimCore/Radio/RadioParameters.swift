/// The radio technologies netsim models, by their profile names.
public enum RadioTechnology: String, Sendable, CaseIterable, Equatable, Codable {
    case lte
    case umts
    case nrNSA = "nr-nsa"
    case nrSA = "nr-sa"
    case wifi
    case none
}

/// A radio model with every timer and power set, ready to build a state machine from.
public enum RadioParameters: Sendable, Equatable, Codable {
    case lte(LTERadioParameters)
    case umts(UMTSRadioParameters)
    case nr(NRRadioParameters)
    case wifi(WiFiRadioParameters)
    /// No radio: a wired or pass-through device. No delay, no states, no energy.
    case none

    /// The defaults for a technology (sources in each parameter type's documentation).
    public static func defaults(for technology: RadioTechnology) -> RadioParameters {
        switch technology {
        case .lte: .lte(LTERadioParameters())
        case .umts: .umts(UMTSRadioParameters())
        case .nrNSA: .nr(.nonStandalone)
        case .nrSA: .nr(.standalone)
        case .wifi: .wifi(WiFiRadioParameters())
        case .none: .none
        }
    }

    public var technology: RadioTechnology {
        switch self {
        case .lte: .lte
        case .umts: .umts
        case .nr(let parameters): parameters.standalone ? .nrSA : .nrNSA
        case .wifi: .wifi
        case .none: .none
        }
    }

    /// The parameters as (key, formatted value) pairs, in table order.
    public var formattedFields: [(key: String, value: String)] {
        func rows<P: OverridableParameters>(_ parameters: P) -> [(key: String, value: String)] {
            parameters.fields.map { ($0.key, $0.unit.format(parameters[keyPath: $0.keyPath])) }
        }
        switch self {
        case .lte(let parameters): return rows(parameters)
        case .umts(let parameters): return rows(parameters)
        case .nr(let parameters): return rows(parameters)
        case .wifi(let parameters): return rows(parameters)
        case .none: return []
        }
    }
}

/// LTE RRC timers and powers.
///
/// Defaults are AT&T Video Optimizer's `lte.conf` (source A in radio-parameters.md). Huang et
/// al., MobiSys 2012 (source B) measured nearly the same promotion and powers but a longer tail:
/// 11.576 s from the last packet to IDLE instead of Video Optimizer's 10.12 s (0.1 s continuous
/// reception + 0.02 s short DRX + 10 s long DRX), and a base power while transferring of
/// 1288.04 mW instead of 1.2 W. Override `longDRXTime` (about 11.456s) and `beta` to reproduce B.
public struct LTERadioParameters: OverridableParameters, Codable {
    /// IDLE -> CONNECTED promotion: 0.26 s at 1.21 W (A).
    public var promotionTime = 0.26
    public var promotionPower = 1.21
    /// Continuous reception after the last packet before DRX starts: 0.1 s (A).
    public var inactivityTimer = 0.1
    /// Short DRX: 0.02 s in it, 0.02 s cycle (A).
    public var shortDRXTime = 0.02
    public var shortDRXCycle = 0.02
    /// Long DRX: 10 s in it, 0.04 s cycle (A).
    public var longDRXTime = 10.0
    public var longDRXCycle = 0.04
    /// DRX on-duration 2 ms at 1.68 W; the rest of each cycle at the tail base power 1.06 W (A).
    public var drxOnDuration = 0.002
    public var drxOnPower = 1.68
    public var tailPower = 1.06
    /// IDLE paging: 43 ms on every 1.28 s at 0.594 W; the floor between is 0 W (A).
    public var pagingCycle = 1.28
    public var pagingOnTime = 0.043
    public var pagingPower = 0.594
    public var idlePower = 0.0
    /// Power while transferring: beta + alphaUp * Mbps up + alphaDown * Mbps down (A):
    /// 438.39 and 51.97 mW per Mbit/s, beta 1.2 W. Continuous reception is at beta (A).
    public var alphaUp = 0.43839
    public var alphaDown = 0.05197
    public var beta = 1.2
    /// Uplink data in DRX needs a scheduling request first: "a few ms"
    /// (emulation-semantics.md); netsim's assumption is 5 ms.
    public var schedulingRequestDelay = 0.005

    public init() {}

    public var fields: [ParameterField<Self>] {
        [
            .init("promotionTime", .duration, \.promotionTime),
            .init("promotionPower", .power, \.promotionPower),
            .init("inactivityTimer", .duration, \.inactivityTimer),
            .init("shortDRXTime", .duration, \.shortDRXTime),
            .init("shortDRXCycle", .duration, \.shortDRXCycle),
            .init("longDRXTime", .duration, \.longDRXTime),
            .init("longDRXCycle", .duration, \.longDRXCycle),
            .init("drxOnDuration", .duration, \.drxOnDuration),
            .init("drxOnPower", .power, \.drxOnPower),
            .init("tailPower", .power, \.tailPower),
            .init("pagingCycle", .duration, \.pagingCycle),
            .init("pagingOnTime", .duration, \.pagingOnTime),
            .init("pagingPower", .power, \.pagingPower),
            .init("idlePower", .power, \.idlePower),
            .init("alphaUp", .powerPerMbps, \.alphaUp),
            .init("alphaDown", .powerPerMbps, \.alphaDown),
            .init("beta", .power, \.beta),
            .init("schedulingRequestDelay", .duration, \.schedulingRequestDelay),
        ]
    }
}

/// UMTS (3G) RRC: IDLE, CELL_FACH and CELL_DCH.
///
/// Defaults are Video Optimizer's `i997.conf` (AT&T 3G): DCH -> FACH after 4 s, FACH -> IDLE
/// after 10 s; promotions IDLE -> DCH 2.0 s at 0.65 W and FACH -> DCH 1.5 s at 0.80 W; DCH
/// 1.30 W, FACH 0.30 W, IDLE 0 W; FACH -> DCH when the RLC buffer passes 543 B up or 475 B
/// down. Qian et al., IMC 2010 give 5 s / 12 s timers and about 800 / 460 mW.
public struct UMTSRadioParameters: OverridableParameters, Codable {
    public var dchTail = 4.0
    public var fachTail = 10.0
    public var idlePromotionTime = 2.0
    public var idlePromotionPower = 0.65
    public var fachPromotionTime = 1.5
    public var fachPromotionPower = 0.80
    public var dchPower = 1.30
    public var fachPower = 0.30
    public var idlePower = 0.0
    public var rlcThresholdUp = 543.0
    public var rlcThresholdDown = 475.0
    /// How fast the RLC buffer empties while in FACH. Not a published figure: netsim assumes a
    /// 32 kbit/s common channel (4000 B/s); a burst that fills the buffer past the threshold
    /// faster than this drains promotes to DCH.
    public var fachDrainRate = 32_000.0
    /// Downlink to an IDLE device waits for its paging occasion: 1.28 s cycle (the 3GPP
    /// default DRX cycle length, the same figure as LTE's).
    public var pagingCycle = 1.28

    public init() {}

    public var fields: [ParameterField<Self>] {
        [
            .init("dchTail", .duration, \.dchTail),
            .init("fachTail", .duration, \.fachTail),
            .init("idlePromotionTime", .duration, \.idlePromotionTime),
            .init("idlePromotionPower", .power, \.idlePromotionPower),
            .init("fachPromotionTime", .duration, \.fachPromotionTime),
            .init("fachPromotionPower", .power, \.fachPromotionPower),
            .init("dchPower", .power, \.dchPower),
            .init("fachPower", .power, \.fachPower),
            .init("idlePower", .power, \.idlePower),
            .init("rlcThresholdUp", .byteCount, \.rlcThresholdUp),
            .init("rlcThresholdDown", .byteCount, \.rlcThresholdDown),
            .init("fachDrainRate", .bitRate, \.fachDrainRate),
            .init("pagingCycle", .duration, \.pagingCycle),
        ]
    }
}

/// 5G NR, non-standalone (an LTE anchor plus the NR leg) or standalone (with RRC_INACTIVE).
///
/// Timers from the SIGCOMM 2021 "A Variegated Look at 5G in the Wild" artifact (RRC-Probe):
/// CONNECTED tail 10.2 s on low-band NSA and SA; on T-Mobile SA the radio then sits in
/// RRC_INACTIVE until 15.0 s and only then goes IDLE. Promotion from IDLE to the LTE anchor
/// about 0.36 s (data flows on the anchor; the NR leg is added about 1.5 s later, which costs
/// power, not latency, so netsim does not delay data for it).
///
/// Powers: the artifact's whole-device linear fit for NSA low-band while transferring is
/// 3.06 W + 11.5 mW/Mbps down + 32 mW/Mbps up, over a device baseline of about 2.36 W.
/// netsim counts the radio's share only: beta = 3.06 - 2.36 = 0.70 W for all of CONNECTED
/// (transferring and tail), and (an assumption, no figure is published) the promotion at the
/// same 0.70 W. The artifact
/// has no SA power fit; the SA model uses the NSA figures. Paging in IDLE and INACTIVE uses
/// LTE's figures (43 ms at 0.594 W per 1.28 s), also an assumption. Resuming from INACTIVE is
/// faster than a promotion from IDLE: 3GPP TR 38.913 targets 10 ms of control-plane latency
/// and measured values are larger; netsim's default is 0.1 s, to be overridden when measured.
public struct NRRadioParameters: OverridableParameters, Codable {
    /// Standalone (SA) has RRC_INACTIVE between the CONNECTED tail and IDLE; NSA does not.
    public let standalone: Bool
    public var promotionTime = 0.36
    public var promotionPower = 0.70
    public var connectedTail = 10.2
    /// SA only: time in RRC_INACTIVE after the CONNECTED tail (T-Mobile SA: 10.2 s to 15.0 s).
    public var inactiveTail = 4.8
    /// SA only: INACTIVE -> CONNECTED resume.
    public var resumeTime = 0.1
    /// Power while CONNECTED, transferring or in its tail (as Video Optimizer treats LTE's
    /// continuous reception); the throughput terms come on top while transferring. With connected
    /// DRX (`drxCycle` above zero) only until the inactivity timer, then `tailPower`.
    public var beta = 0.70
    public var alphaUp = 0.032
    public var alphaDown = 0.0115
    public var pagingCycle = 1.28
    public var pagingOnTime = 0.043
    public var pagingPower = 0.594
    public var idlePower = 0.0
    /// Connected DRX, which the measured phones show and the published NR defaults leave out:
    /// after `inactivityTimer` without traffic the radio stays CONNECTED but listens only for
    /// `drxOnDuration` at the start of every `drxCycle` (a downlink packet waits for the next
    /// one; uplink sends after a scheduling request), at `tailPower` between on-durations and
    /// `beta` during them, until `connectedTail` from the last packet. A `drxCycle` of zero (the
    /// default) means no DRX: CONNECTED at `beta` for the whole tail, as before calibration.
    public var inactivityTimer = 0.1
    public var drxCycle = 0.0
    public var drxOnDuration = 0.002
    public var tailPower = 0.70
    public var schedulingRequestDelay = 0.005
    /// Signal strength: the radio draws `rsrpSlope` watts more while CONNECTED (`beta`) for
    /// every dB its SS-RSRP is below `RadioSignal.reference` (-90 dBm), and as much less above
    /// it: a phone far from its cell transmits louder and decodes harder. The study's walking
    /// loops fit 6.5 mW/dB on T-Mobile SA, 13.3 on NSA and 60 on Verizon's NSA mix (Narayanan et
    /// al., SIGCOMM 2021, MN-Wild), and it halves their worst run's error. `rsrp` is the phone's
    /// signal; a timeline or a meter's log can move it as the phone moves. Zero slope (the
    /// default) leaves power independent of signal, as Video Optimizer's model is.
    public var rsrpSlope = 0.0
    public var rsrp = RadioSignal.reference

    /// Whether the chain has a connected-DRX stage between the inactivity timer and the end of
    /// the CONNECTED tail.
    public var hasConnectedDRX: Bool { drxCycle > 0 && connectedTail > inactivityTimer }

    public static let nonStandalone = NRRadioParameters(standalone: false)
    public static let standalone = NRRadioParameters(standalone: true)

    public init(standalone: Bool) {
        self.standalone = standalone
    }

    public var fields: [ParameterField<Self>] {
        let standaloneOnly: [ParameterField<Self>] = [
            .init("inactiveTail", .duration, \.inactiveTail),
            .init("resumeTime", .duration, \.resumeTime),
        ]
        return [
            .init("promotionTime", .duration, \.promotionTime),
            .init("promotionPower", .power, \.promotionPower),
            .init("connectedTail", .duration, \.connectedTail),
        ] + (standalone ? standaloneOnly : []) + [
            .init("beta", .power, \.beta),
            .init("alphaUp", .powerPerMbps, \.alphaUp),
            .init("alphaDown", .powerPerMbps, \.alphaDown),
            .init("pagingCycle", .duration, \.pagingCycle),
            .init("pagingOnTime", .duration, \.pagingOnTime),
            .init("pagingPower", .power, \.pagingPower),
            .init("idlePower", .power, \.idlePower),
            .init("inactivityTimer", .duration, \.inactivityTimer),
            .init("drxCycle", .duration, \.drxCycle),
            .init("drxOnDuration", .duration, \.drxOnDuration),
            .init("tailPower", .power, \.tailPower),
            .init("schedulingRequestDelay", .duration, \.schedulingRequestDelay),
            .init("rsrpSlope", .powerPerDecibel, \.rsrpSlope),
            .init("rsrp", .signalStrength, \.rsrp),
        ]
    }
}

/// WiFi power save, as Video Optimizer's `WiFi.conf`: active and tail at 0.403 W, 0.25 s tail,
/// standby 0.02 W, no promotion delay. Huang 2012 measured a 79 ms promotion at 124.4 mW and a
/// 238 ms tail at 119.3 mW; set `promotionTime` to reproduce its wake-up delay.
public struct WiFiRadioParameters: OverridableParameters, Codable {
    public var tail = 0.25
    public var activePower = 0.403
    public var standbyPower = 0.02
    public var promotionTime = 0.0

    public init() {}

    public var fields: [ParameterField<Self>] {
        [
            .init("tail", .duration, \.tail),
            .init("activePower", .power, \.activePower),
            .init("standbyPower", .power, \.standbyPower),
            .init("promotionTime", .duration, \.promotionTime),
        ]
    }
}
