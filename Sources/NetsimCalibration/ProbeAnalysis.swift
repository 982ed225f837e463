/// What a file of probes says about the radio that answered them, read the same way from a
/// measured file and from netsim's play of it, so that the two are compared like for like:
/// - `connectedRoundTrip`: the round trip with the radio awake (the network's own);
/// - `tail`: the gap at which the round trip steps up to the idle level (the radio's timers);
/// - `idleRoundTrip`: the spread of round trips after gaps of `idleGap` and more;
/// - `drxWaits`: how much longer than connected the round trips are between the two, where
///   a downlink packet waits for the next on-duration of connected DRX.
public struct ProbeAnalysis: Sendable, Equatable {
    /// Probes after gaps at least this long find the radio asleep on every network measured
    /// (the longest tail, T-Mobile SA's INACTIVE, ends at 15 s).
    public static let idleGap = 16.0

    public let connectedRoundTrip: Double
    public let tail: Double?
    /// Nil when the file has no probe after `idleGap` or more.
    public let idleRoundTrip: Quantiles?
    /// Probes after `idleGap` or more that came back at the connected level: something else
    /// kept the radio awake (the study's T-Mobile SA file has one such repetition), so they
    /// say nothing about an idle radio and are left out of `idleRoundTrip`.
    public let awakeAfterIdleGap: Int
    /// The extra round trip (over connected) of probes between the connected gaps and the
    /// tail: the connected-DRX waits, for fitting the DRX cycle.
    public let drxWaits: [Double]
    /// Round trips by gap beyond the tail, for finding a middle state (RRC_INACTIVE).
    public let beyondTail: [Probe]

    public init(_ probes: [Probe]) {
        let connected = Self.connectedRoundTrip(probes)
        connectedRoundTrip = connected
        let awakeLimit = 2 * connected
        let idle = probes.filter { $0.gap >= Self.idleGap }
        let asleep = idle.filter { $0.roundTrip > awakeLimit }
        awakeAfterIdleGap = idle.count - asleep.count
        idleRoundTrip = Quantiles(asleep.map(\.roundTrip))
        let tail = idleRoundTrip.flatMap { Self.tail(probes, connected: connected, idleMedian: $0.p50) }
        self.tail = tail
        let drxEnd = (tail ?? Self.idleGap) - 0.5
        drxWaits = probes.filter { $0.gap >= 0.5 && $0.gap < drxEnd }.map { max(0, $0.roundTrip - connected) }
        beyondTail = tail.map { tail in probes.filter { $0.gap >= tail && $0.roundTrip > awakeLimit } } ?? []
    }

    /// The median round trip at the shortest gaps (50 ms or less), where the radio is still
    /// receiving continuously; if the file has none, the 10th percentile of those below 1 s.
    static func connectedRoundTrip(_ probes: [Probe]) -> Double {
        let immediate = probes.filter { $0.gap <= 0.05 }.map(\.roundTrip).sorted()
        if immediate.count >= 3 { return Quantiles.quantile(immediate, 0.5) }
        let short = probes.filter { $0.gap < 1 }.map(\.roundTrip).sorted()
        if !short.isEmpty { return Quantiles.quantile(short, 0.1) }
        return Quantiles.quantile(probes.map(\.roundTrip).sorted(), 0.1)
    }

    /// The smallest gap whose own probes' median round trip is past halfway from connected to
    /// idle, with at least 40% of the probes in the second that starts there past it too.
    ///
    /// The study's probes near the tail alternate: on three files the probes at odd tenths of a
    /// second stay at the connected level for a second or more past the tail while the even
    /// tenths are already idle (a phase of the prober's schedule, not a timer). Asking for 40%
    /// rather than a majority over the second finds the step where the even tenths show it.
    static func tail(_ probes: [Probe], connected: Double, idleMedian: Double) -> Double? {
        let threshold = connected + (idleMedian - connected) / 2
        let byGap = Dictionary(grouping: probes) { ($0.gap * 1000).rounded() / 1000 }
        for gap in byGap.keys.sorted() {
            let here = byGap[gap]!.map(\.roundTrip).sorted()
            guard Quantiles.quantile(here, 0.5) > threshold else { continue }
            let window = probes.filter { $0.gap >= gap && $0.gap < gap + 1 }
            let above = window.filter { $0.roundTrip > threshold }.count
            if Double(above) >= 0.4 * Double(window.count) { return gap }
        }
        return nil
    }
}
