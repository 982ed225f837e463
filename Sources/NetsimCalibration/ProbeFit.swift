import Foundation

/// The radio timers and delays a file of probes gives, each from the part of the file that
/// shows it (see `ProbeAnalysis`):
/// - the CONNECTED tail: where the round trip steps up;
/// - the paging cycle and the promotion: an idle radio answers a downlink packet after
///   waiting for its next paging occasion, uniform over the cycle, and then promoting, so the
///   idle round trips spread over one cycle: p90 - p10 is 0.8 cycles, and the median is the
///   connected round trip + the promotion + half a cycle. The cycle is taken as the nearest of
///   3GPP's default paging cycles (TS 36.304 / 38.304: 0.32, 0.64, 1.28, 2.56 s); the study's
///   files all give 1.2-1.3 s before rounding;
/// - the connected-DRX cycle: between the connected gaps and the tail a probe waits for the
///   next on-duration, up to one cycle, so the 95th percentile of the extra wait is 0.95
///   cycles; taken as the nearest of the long DRX cycles 3GPP allows (TS 36.331 / 38.331);
/// - a middle state (RRC_INACTIVE): past the tail, a stretch of round trips lower on average
///   than the idle ones (a resume is shorter than a promotion), found as the split of the
///   round trips beyond the tail into two runs of gaps that best explains their spread.
public struct ProbeFit: Sendable, Equatable {
    public var connectedRoundTrip: Double
    public var tail: Double
    public var pagingCycle: Double
    public var promotion: Double
    public var drxCycle: Double
    /// Where RRC_INACTIVE ends and IDLE begins, and the resume delay, if the file shows one.
    public var inactive: (until: Double, resume: Double)?

    public static let pagingCycles = [0.32, 0.64, 1.28, 2.56]
    public static let drxCycles = [0.01, 0.02, 0.032, 0.04, 0.064, 0.08, 0.128, 0.16, 0.256, 0.32, 0.512, 0.64, 1.024, 1.28, 2.048, 2.56]
    /// A middle state is only taken as one when its round trips are this much lower on average
    /// than IDLE's: less would be noise.
    static let inactiveSeparation = 0.1

    public enum Failure: Error, CustomStringConvertible, Equatable {
        case noIdleProbes
        case noStep
        public var description: String {
            switch self {
            case .noIdleProbes:
                "no probe after a gap of \(Int(ProbeAnalysis.idleGap)) s or more found the radio asleep: the idle delay cannot be fitted"
            case .noStep: "the round trip never steps up to the idle level: no tail can be fitted"
            }
        }
    }

    public init(_ analysis: ProbeAnalysis, lookingForInactive: Bool) throws(Failure) {
        guard let idle = analysis.idleRoundTrip else { throw .noIdleProbes }
        guard let tail = analysis.tail else { throw .noStep }
        connectedRoundTrip = analysis.connectedRoundTrip
        self.tail = tail
        pagingCycle = Self.nearest((idle.p90 - idle.p10) / 0.8, among: Self.pagingCycles)
        promotion = max(0, idle.p50 - analysis.connectedRoundTrip - pagingCycle / 2)
        let waits = analysis.drxWaits.sorted()
        drxCycle = waits.isEmpty ? Self.drxCycles[0] : Self.nearest(Quantiles.quantile(waits, 0.95) / 0.95, among: Self.drxCycles)
        inactive = lookingForInactive ? Self.middleState(analysis.beyondTail, idleMedian: idle.p50, fit: self) : nil
    }

    /// Several files' fits as one: each timer the median over the files.
    public static func median(of fits: [ProbeFit]) -> ProbeFit? {
        guard var result = fits.first else { return nil }
        guard fits.count > 1 else { return result }
        func middle(_ values: [Double]) -> Double { Quantiles.quantile(values.sorted(), 0.5) }
        result.connectedRoundTrip = middle(fits.map(\.connectedRoundTrip))
        result.tail = middle(fits.map(\.tail))
        result.pagingCycle = nearest(middle(fits.map(\.pagingCycle)), among: pagingCycles)
        result.promotion = middle(fits.map(\.promotion))
        result.drxCycle = nearest(middle(fits.map(\.drxCycle)), among: drxCycles)
        let inactive = fits.compactMap(\.inactive)
        result.inactive = inactive.isEmpty ? nil : (middle(inactive.map(\.until)), middle(inactive.map(\.resume)))
        return result
    }

    static func nearest(_ value: Double, among choices: [Double]) -> Double {
        choices.min { abs(log($0 / value)) < abs(log($1 / value)) }!
    }

    /// The split of the probes past the tail into [tail, split) and [split, ...) whose means
    /// differ most, if the first run is the lower by `inactiveSeparation`: its end and the
    /// resume delay its median gives (as the promotion is read from IDLE's).
    private static func middleState(_ probes: [Probe], idleMedian: Double, fit: ProbeFit) -> (until: Double, resume: Double)? {
        let sorted = probes.sorted { $0.gap < $1.gap }
        guard sorted.count >= 20 else { return nil }
        var prefix = [0.0]
        for probe in sorted { prefix.append(prefix.last! + probe.roundTrip) }
        // The split that explains the most of the spread (the least squared error about two
        // means, as a change-point fit does), not the largest difference of means, which
        // favours a few extreme probes at either end.
        let count = Double(sorted.count)
        var best: (split: Int, explained: Double, separation: Double)?
        for split in 10..<(sorted.count - 10) where sorted[split].gap > sorted[split - 1].gap {
            let before = prefix[split] / Double(split)
            let after = (prefix[sorted.count] - prefix[split]) / (count - Double(split))
            let separation = after - before
            let explained = Double(split) * (count - Double(split)) / count * separation * separation
            if separation > 0, explained > (best?.explained ?? 0) { best = (split, explained, separation) }
        }
        guard let best, best.separation >= inactiveSeparation else { return nil }
        let middle = sorted[..<best.split].map(\.roundTrip).sorted()
        let resume = max(0, Quantiles.quantile(middle, 0.5) - fit.connectedRoundTrip - fit.pagingCycle / 2)
        return (until: sorted[best.split].gap, resume: resume)
    }

    public static func == (a: ProbeFit, b: ProbeFit) -> Bool {
        a.connectedRoundTrip == b.connectedRoundTrip && a.tail == b.tail && a.pagingCycle == b.pagingCycle
            && a.promotion == b.promotion && a.drxCycle == b.drxCycle && a.inactive?.until == b.inactive?.until
            && a.inactive?.resume == b.inactive?.resume
    }
}
