/// The 10th, 50th and 90th percentiles of a set of figures: how a spread of round trips is
/// compared, measured against modelled. Linear interpolation between order statistics (the
/// "type 7" rule of R and numpy), so a reader can check a figure with numpy's default.
public struct Quantiles: Sendable, Equatable, Codable {
    public var p10: Double
    public var p50: Double
    public var p90: Double

    public init(p10: Double, p50: Double, p90: Double) {
        self.p10 = p10
        self.p50 = p50
        self.p90 = p90
    }

    /// Nil for no figures.
    public init?(_ values: [Double]) {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return nil }
        self.init(p10: Self.quantile(sorted, 0.1), p50: Self.quantile(sorted, 0.5), p90: Self.quantile(sorted, 0.9))
    }

    /// The `q` quantile of figures already sorted.
    public static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        precondition(!sorted.isEmpty)
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }

    /// Each figure scaled, e.g. seconds to milliseconds.
    public func scaled(by factor: Double) -> Quantiles {
        Quantiles(p10: p10 * factor, p50: p50 * factor, p90: p90 * factor)
    }

    /// The largest of the three relative errors of `self` (modelled) against `measured`.
    public func largestRelativeError(against measured: Quantiles) -> Double {
        max(abs(p10 / measured.p10 - 1), abs(p50 / measured.p50 - 1), abs(p90 / measured.p90 - 1))
    }
}
