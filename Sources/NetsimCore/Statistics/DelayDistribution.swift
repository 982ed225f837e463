/// A delay's distribution over many items, kept as `LatencyCounts` bucket counts: its memory
/// follows the buckets used, not the items counted. Zero is a value of its own (most chunks wait
/// nothing for the radio), percentiles are a bucket's (three significant digits) and the maximum
/// is exact.
public struct DelayDistribution: Sendable, Equatable {
    private var counts = LatencyCounts()
    public private(set) var count = 0
    private var maximum = 0.0

    public init() {}

    public mutating func record(seconds: Double) {
        let seconds = max(0, seconds)
        counts.record(microseconds: UInt64((seconds * 1e6).rounded()))
        count += 1
        maximum = max(maximum, seconds)
    }

    /// Its median, 95th percentile and maximum; zeros when nothing was recorded.
    public var summary: DelaySummary {
        guard count > 0 else { return DelaySummary() }
        var histogram = LatencyCounts.makeHistogram()
        counts.add(to: &histogram)
        let seconds = { (percentile: Double) in min(self.maximum, Double(histogram.valueAtPercentile(percentile)) / 1e6) }
        return DelaySummary(p50Seconds: seconds(50), p95Seconds: seconds(95), maxSeconds: maximum)
    }
}

/// The figures a report gives of a `DelayDistribution`, in seconds.
public struct DelaySummary: Sendable, Codable, Equatable {
    public var p50Seconds = 0.0
    public var p95Seconds = 0.0
    public var maxSeconds = 0.0

    public init(p50Seconds: Double = 0, p95Seconds: Double = 0, maxSeconds: Double = 0) {
        self.p50Seconds = p50Seconds
        self.p95Seconds = p95Seconds
        self.maxSeconds = maxSeconds
    }
}
