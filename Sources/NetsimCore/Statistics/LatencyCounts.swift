import Histogram

/// Latencies counted in the buckets of a fleet's latency histogram (`makeHistogram`). Every
/// figure a report takes from that histogram (counts, percentiles, maximum) is a bucket's, so a
/// device's bucket counts pooled into it give the same report as its samples, while their
/// memory is bounded by the buckets instead of growing with the items delivered.
public struct LatencyCounts: Sendable, Equatable {
    /// Latencies are recorded in microseconds, up to an hour, to three significant digits.
    public static func makeHistogram() -> Histogram<UInt64> {
        Histogram(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
    }

    /// An empty histogram of the fleet's layout, for its bucket boundaries.
    private static let layout = makeHistogram()

    /// Samples by the lowest value of their bucket, in microseconds.
    private var countsByBucket: [UInt64: UInt64] = [:]

    public init() {}

    /// A latency: never below a microsecond (nothing arrives before it is sent).
    public mutating func record(seconds: Double) {
        record(microseconds: UInt64(max(1, (seconds * 1e6).rounded())))
    }

    /// A value as it is, zero included.
    public mutating func record(microseconds: UInt64) {
        countsByBucket[Self.layout.lowestEquivalentForValue(microseconds), default: 0] += 1
    }

    /// Pools the samples into `histogram` (of `makeHistogram`'s layout), in any order: a
    /// histogram's counts do not depend on it.
    public func add(to histogram: inout Histogram<UInt64>) {
        for (value, count) in countsByBucket { _ = histogram.record(value, count: count) }
    }

    /// Another's samples (a second device's, or a second shard's), pooled.
    public mutating func add(_ other: LatencyCounts) {
        countsByBucket.merge(other.countsByBucket, uniquingKeysWith: +)
    }
}

/// Written as the histogram's non-empty buckets, `[[lowest value in microseconds, count], ...]`
/// in value order: HdrHistogram's bucket layout, exact, and the same bytes in every process.
/// Read back, every value must be a bucket's lowest of `makeHistogram`'s layout.
extension LatencyCounts: Codable {
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd {
            let pair = try container.decode([UInt64].self)
            guard pair.count == 2, pair[0] <= Self.layout.highestTrackableValue,
                Self.layout.lowestEquivalentForValue(pair[0]) == pair[0], pair[1] > 0,
                countsByBucket.updateValue(pair[1], forKey: pair[0]) == nil
            else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\(pair) is not a bucket of netsim's latency histogram and its count")
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for (value, count) in countsByBucket.sorted(by: { $0.key < $1.key }) { try container.encode([value, count]) }
    }
}
