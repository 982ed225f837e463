import NetsimCore

extension GateOutcome {
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
