import Foundation

/// How a figure varies over a fleet's devices.
public struct Spread: Sendable, Codable, Equatable {
    public var mean: Double
    public var min: Double
    public var max: Double
    public var standardDeviation: Double

    public init(_ values: [Double]) {
        guard !values.isEmpty else {
            self.init(mean: 0, min: 0, max: 0, standardDeviation: 0)
            return
        }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
        self.init(mean: mean, min: values.min()!, max: values.max()!, standardDeviation: variance.squareRoot())
    }

    public init(mean: Double, min: Double, max: Double, standardDeviation: Double) {
        self.mean = mean
        self.min = min
        self.max = max
        self.standardDeviation = standardDeviation
    }
}
