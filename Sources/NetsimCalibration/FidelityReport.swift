/// netsim's figures beside a measurement study's, file by file: what `netsim fidelity`
/// writes (docs/fidelity.md says what each key means).
public struct FidelityReport: Sendable, Codable, Equatable {
    /// A figure as measured and as netsim gives it.
    public struct Pair<Value: Sendable & Codable & Equatable>: Sendable, Codable, Equatable {
        public var measured: Value
        public var netsim: Value
    }

    public struct ProbeScore: Sendable, Codable, Equatable {
        public var file: String
        public var carrier: String
        public var radio: String
        public var probes: Int
        /// Where the round trip steps up (`ProbeAnalysis.tail`); nil where it never does.
        public var tailSeconds: Pair<Double?>
        /// Round trips after gaps of 16 s and more, milliseconds.
        public var idleRttMs: Pair<Quantiles?>
        public var connectedRttMs: Double
        /// |netsim - measured| tail, seconds.
        public var tailError: Double?
        /// The largest of the p10, p50 and p90 relative errors.
        public var idleRttError: Double?
    }

    public struct RunScore: Sendable, Codable, Equatable {
        public var file: String
        public var provider: String
        /// The radios that played it, with the seconds each did.
        public var radio: String
        public var direction: String
        public var seconds: Double
        public var joules: Pair<Double>
        /// netsim / measured - 1.
        public var error: Double
    }

    public struct TransferScore: Sendable, Codable, Equatable {
        public var file: String
        public var networkType: String
        public var direction: String
        public var targetMbps: Double
        public var radio: String
        public var seconds: Double
        /// The whole phone's mean power: the radio's and the device baseline.
        public var powerMw: Pair<Double>
        public var error: Double
    }

    /// The errors the acceptance bounds are written on, for gates (`--fail-if
    /// 'summary.runMedianError > 0.10'`).
    public struct Summary: Sendable, Codable, Equatable {
        public var runs: Int
        /// The median of |error| over the runs.
        public var runMedianError: Double
        /// The share of runs within 20%.
        public var runsWithin20Percent: Double
        public var runMaxError: Double
        public var probeFiles: Int
        public var probeMaxTailError: Double
        public var probeMaxIdleRttError: Double
        public var transfers: Int
        public var transferMaxError: Double
    }

    public var netsimVersion: String
    /// `--radio`, when one radio played every file; nil when each file's own columns chose.
    public var forcedRadio: String?
    public var seed: UInt64
    public var summary: Summary
    public var probes: [ProbeScore]
    public var runs: [RunScore]
    public var transfers: [TransferScore]
}
