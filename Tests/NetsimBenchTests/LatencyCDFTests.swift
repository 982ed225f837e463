import Foundation
import Histogram
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimBench

/// The reports' latency CDF, found in one walk over a histogram's recorded values, against the
/// histogram's own `valueAtPercentile` at each of its points.
@Suite(.computes) struct LatencyCDFTests {
    /// Histograms of the reports' layout: one value, values in one bucket, a spread over
    /// six decades, a heavy tail, and few samples, so that the percentiles' counts fall on
    /// bucket edges, inside buckets and past the last sample.
    static func histograms() -> [Histogram<UInt64>] {
        var random = SeededRandom(seed: 7)
        let samples: [[UInt64]] = [
            [42_000],
            Array(repeating: 1_000, count: 50) + Array(repeating: 1_001, count: 50),
            (0..<5_000).map { _ in UInt64.random(in: 1...3_000_000_000, using: &random) },
            (0..<20_000).map { _ in UInt64(exp(Double.random(in: 0...22, using: &random))) + 1 },
            [3, 900_000, 1_200_000],
        ]
        return samples.map { values in
            var histogram = LatencyCounts.makeHistogram()
            for value in values { _ = histogram.record(value) }
            return histogram
        }
    }

    @Test func eachPointIsTheHistogramsPercentile() {
        for histogram in Self.histograms() {
            let percentiles = Array(stride(from: 0.0, through: 99.0, by: 1.0)) + [99.5, 99.9, 100]
            let cdf = BenchAnalysis.cdf(histogram)
            #expect(cdf.count == percentiles.count)
            for (point, percentile) in zip(cdf, percentiles) {
                #expect(point.fraction == percentile / 100)
                #expect(
                    point.milliseconds == Double(histogram.valueAtPercentile(percentile)) / 1000,
                    "p\(percentile) of \(histogram.totalCount) samples")
            }
        }
        #expect(BenchAnalysis.cdf(LatencyCounts.makeHistogram()).isEmpty)
    }
}
