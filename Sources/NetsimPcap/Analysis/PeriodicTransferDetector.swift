/// Finds a dominant period in the gaps between a flow's bursts: keepalives and polling repeat
/// at a fixed interval (with some jitter from timers and the network), while user-driven
/// traffic does not.
enum PeriodicTransferDetector {
    /// Gaps within this fraction of the period count as repetitions of it.
    static let tolerance = 0.1
    /// At least this many gaps must match: three repetitions make a pattern.
    static let minimumRepetitions = 3
    /// The matching gaps must be at least this share of all the flow's gaps to dominate it.
    static let dominantShare = 0.5

    struct Pattern: Equatable {
        var period: Double
        /// Indices `k` of the gaps (between burst `k` and `k + 1`) that repeat the period.
        var gapIndices: [Int]
    }

    /// The dominant period among the gaps between consecutive `burstStarts`, if any.
    static func detect(burstStarts: [Double]) -> Pattern? {
        guard burstStarts.count > minimumRepetitions else { return nil }
        let gaps = zip(burstStarts.dropFirst(), burstStarts).map { $0 - $1 }
        let sorted = gaps.sorted()
        // The densest window of gaps spanning at most ±tolerance around its middle.
        var best = (start: 0, count: 0)
        var end = 0
        for start in sorted.indices {
            end = max(end, start)
            while end < sorted.count, sorted[end] <= sorted[start] * (1 + tolerance) / (1 - tolerance) { end += 1 }
            if end - start > best.count { best = (start, end - start) }
        }
        guard best.count >= minimumRepetitions else { return nil }
        let period = sorted[best.start + best.count / 2]
        guard period > 0 else { return nil }
        let matching = gaps.indices.filter { abs(gaps[$0] - period) <= period * tolerance }
        guard matching.count >= minimumRepetitions, Double(matching.count) >= dominantShare * Double(gaps.count) else {
            return nil
        }
        return Pattern(period: period, gapIndices: matching)
    }
}
