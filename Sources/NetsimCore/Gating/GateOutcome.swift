/// One CI gate as a report records it: the gate (`grpc.events.lost > 0`, a baseline), what was
/// measured, and whether it held. Written into the report itself, so a reader of the Markdown
/// or JSON sees which gate failed and by how much without the job's standard error, where
/// merged output can land mid-line.
public struct GateOutcome: Sendable, Codable, Equatable {
    public var gate: String
    public var passed: Bool
    /// `key = value` for a threshold, the comparison's notes for a baseline.
    public var measured: String
    /// Why it failed; nil when it held.
    public var failure: String?

    public init(gate: String, passed: Bool, measured: String, failure: String?) {
        self.gate = gate
        self.passed = passed
        self.measured = measured
        self.failure = failure
    }

    /// The Markdown section: a heading that counts the failures, then one row per gate in the
    /// order they were given.
    public static func markdown(_ outcomes: [GateOutcome]) -> [String] {
        let failed = outcomes.count { !$0.passed }
        var lines = [
            "### Gates: " + (failed == 0 ? "all \(outcomes.count) held" : "\(failed) of \(outcomes.count) failed"), "",
            "| gate | measured | result |", "|---|---|---|",
        ]
        for outcome in outcomes {
            let measured = outcome.measured.split(separator: "\n").joined(separator: "; ")
            lines.append("| `\(outcome.gate)` | \(measured) | \(outcome.passed ? "held" : "**failed**") |")
        }
        return lines
    }
}
