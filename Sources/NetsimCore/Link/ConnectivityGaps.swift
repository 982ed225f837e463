/// When the device has no connectivity (outages and handover gaps), and when bytes that tried
/// to cross during a gap actually get through.
///
/// TCP does not resume the moment a link comes back: a segment sent into a dead link is
/// retransmitted on an exponential schedule (RTO, 2 RTO, 4 RTO, ... capped at Linux's
/// TCP_RTO_MAX of 120 s), so it arrives at the first retransmission after the gap ends. A chunk
/// first sent early in a long outage can therefore arrive well after the outage is over.
public struct ConnectivityGaps: Sendable, Equatable {
    public struct Gap: Sendable, Equatable {
        public var start: Double
        public var end: Double
        /// Whether datagrams sent into the gap wait for its end (a `stall` outage, a `keep`
        /// handover: the phone's queue holds them) rather than being dropped (a `blackhole` or
        /// `reset` outage or handover: the path they were sent on is gone). TCP's bytes wait
        /// either way, by retransmission.
        public var holdsDatagrams: Bool

        public init(start: Double, end: Double, holdsDatagrams: Bool = true) {
            self.start = start
            self.end = end
            self.holdsDatagrams = holdsDatagrams
        }
    }

    /// Linux's TCP_RTO_MAX.
    public static let maximumBackoff = 120.0

    private let scripted: [Gap]
    private let period: Double?
    private var live: [Gap] = [] {
        didSet { gapFreeFrom = lastGapEnd() }
    }
    /// The timeline's clock, which the scripted gaps follow: paused, they wait (`ScriptClock`).
    public var script = ScriptClock() {
        didSet { gapFreeFrom = lastGapEnd() }
    }
    /// From when no gap can be in force or begin: the end of the last one, if the timeline
    /// neither repeats nor was paused; never otherwise. The model engine asks about gaps several
    /// times for every chunk, nearly always long after the last one.
    private var gapFreeFrom = -Double.infinity

    /// - Parameters:
    ///   - scripted: gaps within one period of the timeline, sorted by start.
    ///   - period: the timeline's repeat period, if it repeats.
    public init(scripted: [Gap], period: Double?) {
        self.scripted = scripted.sorted { $0.start < $1.start }
        self.period = period
        gapFreeFrom = lastGapEnd()
    }

    private func lastGapEnd() -> Double {
        guard period == nil, script.isIdentity else { return .infinity }
        return (scripted + live).map(\.end).max() ?? -.infinity
    }

    /// Adds a gap decided at run time (an outage or handover triggered through the admin API).
    public mutating func add(_ gap: Gap) {
        live.removeAll { $0.end < gap.start - Self.maximumBackoff * 8 }
        live.append(gap)
    }

    /// The gap in force at `time`, if any, in absolute time.
    public func gap(containing time: Double) -> Gap? {
        guard time < gapFreeFrom else { return nil }
        for gap in live where gap.start <= time && time < gap.end { return gap }
        guard !scripted.isEmpty else { return nil }
        guard script.isIdentity else { return scriptedGap(containing: time) }
        let offset = cycleStart(time)
        for gap in scripted where gap.start + offset <= time && time < gap.end + offset {
            return Gap(start: gap.start + offset, end: gap.end + offset, holdsDatagrams: gap.holdsDatagrams)
        }
        return nil
    }

    /// Where the repetition of the timeline that holds `time` starts (0 if it does not repeat).
    private func cycleStart(_ time: Double) -> Double {
        guard let period, period > 0 else { return 0 }
        return (time / period).rounded(.down) * period
    }

    /// The scripted gaps of the repetitions `scriptTime` and the one before it lie in, in script
    /// time, in order: a gap of an earlier one has ended by then (a gap is shorter than the
    /// period, and a pause only pushes later gaps later).
    private func scriptedOccurrences(around scriptTime: Double) -> [Gap] {
        let cycle = cycleStart(scriptTime)
        guard let period, period > 0 else { return scripted }
        return [cycle - period, cycle].flatMap { start in
            scripted.map { Gap(start: $0.start + start, end: $0.end + start, holdsDatagrams: $0.holdsDatagrams) }
        }
    }

    /// A scripted gap, in emulated time, as the paused and resumed script clock places it: it
    /// begins when the script reaches its start, and lasts as long as scripted. The script
    /// starts at 0: a repetition before it (of a timeline that starts late) never happens.
    private func emulated(_ occurrence: Gap) -> Gap? {
        guard occurrence.start >= 0 else { return nil }
        return script.emulated(occurrence.start).map {
            Gap(start: $0, end: $0 + occurrence.end - occurrence.start, holdsDatagrams: occurrence.holdsDatagrams)
        }
    }

    /// `gap(containing:)` for scripted gaps once the timeline has been paused.
    private func scriptedGap(containing time: Double) -> Gap? {
        for occurrence in scriptedOccurrences(around: script.scriptTime(at: time)) {
            if let gap = emulated(occurrence), gap.start <= time, time < gap.end { return gap }
        }
        return nil
    }

    /// When connectivity is back if it is down at `time`: the end of the gap in force then, or
    /// of the gaps that overlap it one after another; nil if it is up at `time`.
    public func connectivityReturns(after time: Double) -> Double? {
        gapsInForce(at: time)?.end
    }

    /// The gap in force at `time` and those that overlap it one after another: when the last
    /// of them ends, and whether every one of them holds datagrams.
    private func gapsInForce(at time: Double) -> (end: Double, holdDatagrams: Bool)? {
        guard let first = gap(containing: time) else { return nil }
        var run = (end: first.end, holdDatagrams: first.holdsDatagrams)
        while let next = gap(containing: run.end) {
            run = (next.end, run.holdDatagrams && next.holdsDatagrams)
        }
        return run
    }

    /// When bytes first sent at `time` get through: `time` itself outside a gap, otherwise the
    /// first retransmission (RTO backoff from `time`) at or after the gap's end. Gaps that the
    /// retransmission lands in are waited out the same way.
    ///
    /// Inlined, so that the model engine's check of a chunk long after the last gap is a
    /// comparison, not a call.
    @inline(__always)
    public func deliverableTime(_ time: Double, retransmissionTimeout rto: Double) -> Double {
        time < gapFreeFrom ? retransmittedTime(time, retransmissionTimeout: rto) : time
    }

    private func retransmittedTime(_ time: Double, retransmissionTimeout rto: Double) -> Double {
        var sentAt = time
        while let gap = gap(containing: sentAt) {
            var retry = sentAt
            var backoff = max(rto, 0.001)
            while retry < gap.end {
                retry += backoff
                backoff = min(backoff * 2, Self.maximumBackoff)
            }
            sentAt = retry
        }
        return sentAt
    }

    /// When a datagram sent at `time` may cross: `time` itself outside a gap, the end of the gap
    /// in force (and of those that overlap it one after another) if they hold datagrams, nil if
    /// one of them drops it. Nothing is retransmitted: the datagram goes the moment the link is
    /// back.
    public func datagramPassage(at time: Double) -> Double? {
        guard let gaps = gapsInForce(at: time) else { return time }
        return gaps.holdDatagrams ? gaps.end : nil
    }

    /// The first gap starting after `time` (absolute), for splitting a long serialization.
    /// Called for every chunk on a rate-limited link, so it allocates nothing.
    public func nextGapStart(after time: Double) -> Double? {
        guard time < gapFreeFrom else { return nil }
        var best = Double.infinity
        for gap in live where gap.start > time { best = min(best, gap.start) }
        if !script.isIdentity {
            // This repetition's and the next's, placed by the script clock (none while paused).
            let scriptTime = script.scriptTime(at: time)
            let occurrences = scriptedOccurrences(around: scriptTime) + scriptedOccurrences(around: scriptTime + (period ?? 0))
            if let start = occurrences.lazy.compactMap({ self.emulated($0)?.start }).first(where: { $0 > time }) {
                best = min(best, start)
            }
            return best.isFinite ? best : nil
        }
        // Gaps are sorted: the first one after `time` in this repetition, else in the next.
        let cycle = cycleStart(time)
        if let gap = scripted.first(where: { $0.start + cycle > time }) {
            best = min(best, gap.start + cycle)
        } else if let period, let first = scripted.first {
            best = min(best, first.start + cycle + period)
        }
        return best.isFinite ? best : nil
    }
}

/// Linux gives up on unacknowledged data after `tcp_retries2` = 15 retransmissions, computed
/// from the 200 ms minimum RTO doubling up to TCP_RTO_MAX (120 s): 0.2 * (2^10 - 1) + 6 * 120.
/// The model engine and the proxy both end a connection's side this long after the path first
/// swallowed its bytes.
public let tcpRetransmissionGiveUpSeconds = 924.6
