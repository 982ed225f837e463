/// How signal strength moves a connected radio's power: linearly in the reference signal's
/// received power (RSRP), about a reference level, within the range a fit has seen.
///
/// The study netsim is calibrated on (Narayanan et al., SIGCOMM 2021, MN-Wild) logged NR's
/// SS-RSRP every second of its walking loops: from -108 dBm to -61 dBm at the 1st and 99th
/// percentiles. A straight line fits the power there; outside `fittedRange` the term holds its
/// edge value rather than extrapolating (a phone at -140 dBm does not draw 3 W more for it).
public enum RadioSignal {
    /// The level at which a radio's `beta` applies: a middling signal on the study's loops.
    public static let reference = -90.0
    /// The signal levels the term follows; beyond them it holds the edge value.
    public static let fittedRange: ClosedRange<Double> = -110 ... -60

    /// How far `rsrp` is below the reference, in dB, held within `fittedRange`: what the
    /// slope multiplies (negative above the reference).
    public static func decibelsBelowReference(_ rsrp: Double) -> Double {
        reference - min(max(rsrp, fittedRange.lowerBound), fittedRange.upperBound)
    }

    /// The power (watts) a radio with `slope` watts per dB draws beyond its `beta` at `rsrp`.
    public static func extraPower(slope: Double, rsrp: Double) -> Double {
        slope * decibelsBelowReference(rsrp)
    }
}
