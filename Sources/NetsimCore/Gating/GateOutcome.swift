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

    /// The gates section every report carries: a table of each gate with its threshold, what
    /// was measured and its verdict, in the order they were given, then "N of M gates failed".
    public static func section(_ outcomes: [GateOutcome]) -> [ReportDocument.Block] {
        [
            .heading("Gates"),
            .table(
                header: ["gate", "threshold", "measured", "verdict"],
                rows: outcomes.map { outcome in
                    [
                        outcome.gate, outcome.threshold ?? "-", outcome.measured.split(separator: "\n").joined(separator: "; "),
                        outcome.passed ? "held" : "FAILED",
                    ]
                },
                failing: Set(outcomes.indices.filter { !outcomes[$0].passed })),
            .paragraph(tally(outcomes)),
        ]
    }

    /// The section's last line: "1 of 3 gates failed".
    public static func tally(_ outcomes: [GateOutcome]) -> String {
        "\(outcomes.count { !$0.passed }) of \(outcomes.count) gate\(outcomes.count == 1 ? "" : "s") failed"
    }

    /// The section in Markdown lines.
    public static func markdown(_ outcomes: [GateOutcome]) -> [String] {
        ReportDocument.markdown(section(outcomes))
    }

    /// The section as HTML elements.
    public static func html(_ outcomes: [GateOutcome]) -> [String] {
        ReportDocument.html(section(outcomes))
    }
}
