import Foundation

/// Finds the period that explains a flow's bursts: keepalives and polling repeat at a fixed
/// interval (with some jitter from timers and the network), while user-driven traffic does not.
/// A period may hold several bursts: a gRPC channel that calls every 15 s and pings 10 s after
/// each call alternates gaps of 10 and 5 s, and repeats every 15 s. So the period is the one
/// after which most bursts recur, not the commonest gap between neighbours.
enum PeriodicTransferDetector {
    /// A burst recurs when another starts within this fraction of the period after it.
    static let tolerance = 0.1
    /// At least this many repetitions make a pattern.
    static let minimumRepetitions = 3
    /// At least this share of the bursts that could recur must recur, and at least halfway
    /// from what chance alone gives to all of them: the tolerance window grows with the
    /// period, and a long enough window catches some burst of any busy flow.
    static let dominantShare = 0.5
    /// Candidate periods span up to this many bursts (a call, its ping, a poll, ...).
    static let maximumBurstsPerPeriod = 4
    /// Candidate periods evaluated exactly: the densest clusters of spans between bursts.
    static let maximumCandidates = 16
    /// A longer period is taken over a shorter one only when it explains this much more:
    /// multiples of the period explain the bursts as well, with a wider tolerance.
    static let preferShorterWithin = 0.9

    struct Pattern: Equatable {
        var period: Double
        /// Indices of the bursts that bound whole repetitions: each one period after the one
        /// before. Bursts from the first up to (not including) the last are the repetitions'.
        var boundaries: [Int]
        /// Indices of the bursts that recur at the period (one period before or after another).
        var recurring: Set<Int>

        var repetitions: Int { boundaries.count - 1 }
    }

    /// The period that explains most of `burstStarts` (ascending), if any.
    static func detect(burstStarts starts: [Double]) -> Pattern? {
        guard starts.count > minimumRepetitions else { return nil }
        let explained = candidatePeriods(starts).compactMap { recurrence(starts, period: $0) }
        guard let best = explained.map(\.share).max() else { return nil }
        let chosen = explained.filter { $0.share >= best * preferShorterWithin }.min { $0.period < $1.period }!.period
        return pattern(starts, period: chosen)
    }

    /// Spans from each burst to its next few, clustered within the tolerance, densest first.
    private static func candidatePeriods(_ starts: [Double]) -> [Double] {
        var spans: [Double] = []
        for first in starts.indices {
            for next in (first + 1)..<min(first + 1 + maximumBurstsPerPeriod, starts.count) {
                let span = starts[next] - starts[first]
                if span > 0 { spans.append(span) }
            }
        }
        spans.sort()
        var clusters: [(middle: Double, members: Int)] = []
        var start = 0
        while start < spans.count {
            var end = start
            while end < spans.count, spans[end] <= spans[start] * (1 + tolerance) { end += 1 }
            clusters.append((spans[start + (end - start) / 2], end - start))
            start = end
        }
        return clusters.filter { $0.members >= minimumRepetitions }.sorted { $0.members > $1.members }
            .prefix(maximumCandidates).map(\.middle)
    }

    /// The burst that starts nearest `time`, within the tolerance of `period`.
    private static func burst(near time: Double, period: Double, in starts: [Double]) -> Int? {
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] < time { low = middle + 1 } else { high = middle }
        }
        let nearest = [low - 1, low].filter { starts.indices.contains($0) }.min { abs(starts[$0] - time) < abs(starts[$1] - time) }
        guard let nearest, abs(starts[nearest] - time) <= period * tolerance else { return nil }
        return nearest
    }

    /// The share of bursts that would find another in the window after them by chance, were
    /// the flow's bursts spread at random (a Poisson process at the flow's mean rate).
    private static func chance(_ starts: [Double], period: Double) -> Double {
        let rate = Double(starts.count - 1) / (starts[starts.count - 1] - starts[0])
        return 1 - exp(-rate * 2 * tolerance * period)
    }

    /// The period refined to the median of the spans that recur at it, and the share of the
    /// bursts that could recur (those a period before the last) that do; nil if too few.
    private static func recurrence(_ starts: [Double], period: Double) -> (period: Double, share: Double)? {
        let last = starts[starts.count - 1]
        var eligible = 0
        var spans: [Double] = []
        for (index, start) in starts.enumerated() where start + period * (1 - tolerance) <= last {
            eligible += 1
            if let next = burst(near: start + period, period: period, in: starts), next != index { spans.append(starts[next] - start) }
        }
        let needed = max(dominantShare, (1 + chance(starts, period: period)) / 2)
        guard spans.count >= minimumRepetitions, Double(spans.count) >= needed * Double(eligible) else { return nil }
        spans.sort()
        return (spans[spans.count / 2], Double(spans.count) / Double(eligible))
    }

    /// The bursts that recur at `period`, and the longest chain of them one period apart.
    private static func pattern(_ starts: [Double], period: Double) -> Pattern? {
        var next = [Int?](repeating: nil, count: starts.count)
        var recurring = Set<Int>()
        for index in starts.indices {
            guard let following = burst(near: starts[index] + period, period: period, in: starts), following != index else { continue }
            next[index] = following
            recurring.insert(index)
            recurring.insert(following)
        }
        var longest: [Int] = []
        var chained = Set<Int>()
        for first in starts.indices where !chained.contains(first) {
            var chain = [first]
            while let following = next[chain[chain.count - 1]] {
                chain.append(following)
                chained.insert(following)
            }
            if chain.count > longest.count { longest = chain }
        }
        guard longest.count - 1 >= minimumRepetitions else { return nil }
        return Pattern(period: period, boundaries: longest, recurring: recurring)
    }
}
