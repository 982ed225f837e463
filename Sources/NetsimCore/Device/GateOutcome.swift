/// One CI gate as a report records it: the gate (`grpc.events.lost > 0`, a baseline), what was
/// measured, and whether it held. Written into the report itself, so a reader of the Markdown
/// or JSON sees which gate failed and by how much without the job's standard error, where
/// merged output can land mid-line.
public struct GateOutcome: Sendable, Codable, Equatable {
    public var gate: String
    /// What fails it: `fails if > 3` for a threshold, the allowed regression for a baseline,
    /// `exit status 0` for a wrapped command. Absent from reports written before it was kept.
    public var threshold: String?
    public var passed: Bool
    /// `key = value` for a threshold, the comparison's notes for a baseline.
    public var measured: String
    /// Why it failed; nil when it held.
    public var failure: String?

    public init(gate: String, threshold: String? = nil, passed: Bool, measured: String, failure: String?) {
        self.gate = gate
        self.threshold = threshold
        self.passed = passed
        self.measured = measured
        self.failure = failure
    }
}
