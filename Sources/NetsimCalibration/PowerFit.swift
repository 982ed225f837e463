import NetsimCore

/// The radio's power while it moves data, fitted by weighted least squares to a power log's
/// intervals:
/// `beta + alphaDown * Mbit/s down + alphaUp * Mbit/s up + rsrpSlope * dB below -90 dBm`, the
/// form netsim prices (Video Optimizer's, from Huang et al. 2012, with the signal term of
/// `RadioSignal`). On the study's phones the fitted slopes are small (0-25 mW per Mbit/s) and
/// the base depends on the carrier and the radio access, so one radio is fitted per carrier
/// and access. A slope that comes out below zero is fitted again without it (at zero): a radio
/// does not draw less for moving more, or for a weaker signal.
///
/// The signal term is fitted when at least `minimumSignalShare` of the intervals carry a
/// signal strength; an interval without one counts as at the reference level. The study's
/// walking loops log NR's SS-RSRP, so its NR radios get the term and its LTE radios do not.
///
/// What is minimized is the relative error of what the meter read, the whole phone's power
/// (the radio's share and the phone's own draw, `devicePower`): each interval is weighted by
/// one over that power squared. The same absolute error matters more at 2.7 W than at 6 W, and
/// users compare netsim with a meter's figures as ratios. A log with the radio's share alone
/// (no `devicePower`) is fitted unweighted.
///
/// The tail power (connected, no data) is the mean power of the intervals that moved almost
/// nothing (under `idleMbps` both ways), when a log has at least `minimumIdleSamples` of them;
/// otherwise `fallbackTailRatio` of beta, the ratio the study's idle seconds show on T-Mobile's
/// NSA and SA radios (1.40 W of 2.32, 0.85 of 1.43).
public struct PowerFit: Sendable, Equatable {
    public var beta: Double
    public var alphaDown: Double
    public var alphaUp: Double
    /// Watts per dB of signal below `RadioSignal.reference`; zero when not fitted.
    public var rsrpSlope: Double
    /// The intervals moving data that carried a signal strength.
    public var signalSamples: Int
    public var tailPower: Double
    /// Whether the tail power was measured (false: `fallbackTailRatio` of beta).
    public var tailPowerMeasured: Bool
    /// The intervals fitted (moving data) and the idle ones.
    public var samples: Int
    public var idleSamples: Int
    /// The root mean square of the fitted intervals' residuals (unweighted), watts.
    public var rmsResidual: Double

    public static let idleMbps = 0.05
    public static let minimumIdleSamples = 20
    public static let fallbackTailRatio = 0.6
    public static let minimumSignalShare = 0.1

    public enum Failure: Error, CustomStringConvertible, Equatable {
        case tooFewSamples(Int)
        public var description: String {
            switch self {
            case .tooFewSamples(let count):
                "\(count) interval(s) with power and traffic match: at least 10 are needed to fit the radio's power"
            }
        }
    }

    public init(_ samples: [PowerSample]) throws(Failure) {
        let measured = samples.filter { $0.power != nil }
        let busy = measured.filter { max($0.downMbps, $0.upMbps) >= Self.idleMbps }
        let idle = measured.filter { max($0.downMbps, $0.upMbps) < Self.idleMbps }
        guard busy.count >= 10 else { throw .tooFewSamples(busy.count) }
        let rows = busy.map { sample in
            let whole = sample.power! + sample.devicePower
            let belowReference = sample.signal.map(RadioSignal.decibelsBelowReference) ?? 0
            return (
                x: [1, sample.downMbps, sample.upMbps, belowReference], y: sample.power!,
                weight: sample.devicePower > 0 && whole > 0 ? 1 / (whole * whole) : 1
            )
        }
        signalSamples = busy.count { $0.signal != nil }
        var keep = [true, true, true, Double(signalSamples) >= Self.minimumSignalShare * Double(busy.count)]
        var coefficients = Self.leastSquares(rows, keep: keep)
        while let negative = (1...3).first(where: { keep[$0] && coefficients[$0] < 0 }) {
            keep[negative] = false
            coefficients = Self.leastSquares(rows, keep: keep)
        }
        beta = coefficients[0]
        alphaDown = coefficients[1]
        alphaUp = coefficients[2]
        rsrpSlope = coefficients[3]
        let residuals = rows.map { row in row.y - zip(row.x, coefficients).reduce(0) { $0 + $1.0 * $1.1 } }
        rmsResidual = (residuals.reduce(0) { $0 + $1 * $1 } / Double(residuals.count)).squareRoot()
        self.samples = busy.count
        idleSamples = idle.count
        if idle.count >= Self.minimumIdleSamples {
            tailPower = idle.reduce(0) { $0 + $1.power! } / Double(idle.count)
            tailPowerMeasured = true
        } else {
            tailPower = Self.fallbackTailRatio * coefficients[0]
            tailPowerMeasured = false
        }
    }

    /// The fitted formula's power over `sample`: the tail power for an interval that moved
    /// almost nothing, else the transfer terms at its rates and signal.
    public func power(of sample: PowerSample) -> Double {
        guard max(sample.downMbps, sample.upMbps) >= Self.idleMbps else { return tailPower }
        let signal = sample.signal.map { RadioSignal.extraPower(slope: rsrpSlope, rsrp: $0) } ?? 0
        return beta + alphaDown * sample.downMbps + alphaUp * sample.upMbps + signal
    }

    /// The coefficients minimizing the weighted squared error, with the columns not kept at
    /// zero: the normal equations, solved by Gaussian elimination with partial pivoting.
    static func leastSquares(_ rows: [(x: [Double], y: Double, weight: Double)], keep: [Bool]) -> [Double] {
        let columns = keep.indices.filter { keep[$0] }
        let n = columns.count
        var matrix = [[Double]](repeating: [Double](repeating: 0, count: n + 1), count: n)
        for row in rows {
            for (i, a) in columns.enumerated() {
                for (j, b) in columns.enumerated() { matrix[i][j] += row.weight * row.x[a] * row.x[b] }
                matrix[i][n] += row.weight * row.x[a] * row.y
            }
        }
        for pivot in 0..<n {
            let best = (pivot..<n).max { abs(matrix[$0][pivot]) < abs(matrix[$1][pivot]) }!
            matrix.swapAt(pivot, best)
            guard matrix[pivot][pivot] != 0 else { continue }
            for row in 0..<n where row != pivot {
                let factor = matrix[row][pivot] / matrix[pivot][pivot]
                for column in pivot...n { matrix[row][column] -= factor * matrix[pivot][column] }
            }
        }
        var solution = [Double](repeating: 0, count: keep.count)
        for (i, column) in columns.enumerated() where matrix[i][i] != 0 { solution[column] = matrix[i][n] / matrix[i][i] }
        return solution
    }
}
