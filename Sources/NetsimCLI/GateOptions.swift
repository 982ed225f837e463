import ArgumentParser
import Foundation
import NetsimCore
import NetsimReport

/// `--fail-if`, `--baseline`, `--max-regression` and `--junit`: the CI gates of every command
/// that writes a report, one mechanism for all (`Threshold` and `BaselineComparison` over the
/// command's `ReportSchema`). A breached gate is exit status 3.
struct GateOptions: ParsableArguments {
    @Option(
        name: .customLong("fail-if"),
        help: ArgumentHelp(
            "Fail (exit 3) when this holds, e.g. 'radio.promotions > 1' (repeatable; a key of the JSON report, OP one of < <= > >= == !=). Default: no gates.",
            valueName: "KEY OP NUMBER"))
    var failIf: [String] = []

    @Option(
        help:
            "An earlier JSON report of the same command to compare with; regressions beyond --max-regression fail (exit 3). Default: no comparison."
    )
    var baseline: String?

    @Option(
        name: .customLong("max-regression"), parsing: .unconditional,
        help: "With --baseline: the largest allowed increase of a figure where lower is better, in percent (10 or 10%).",
        transform: GateOptions.percent)
    var maxRegression = 10.0

    @Option(
        help:
            "Write the gates as JUnit XML here: one testcase per --fail-if (the measured value beside the threshold), one for --baseline, one for a wrapped command. Default: none."
    )
    var junit: String?

    /// The `--fail-if` gates, read against `schema`.
    func thresholds(_ schema: ReportSchema) throws -> [Threshold] {
        try failIf.map { expression in
            do { return try Threshold(parsing: expression, schema: schema) } catch { throw ValidationError("--fail-if \(error)") }
        }
    }

    /// Checks everything before the run: the gates' keys, the baseline, where JUnit goes
    /// (making its directory if missing).
    func check(_ schema: ReportSchema) throws {
        _ = try thresholds(schema)
        if let baseline { _ = try loadBaseline(baseline, schema) }
        if let junit {
            // As for --out: a directory that is missing is made now.
            let directory = (junit as NSString).deletingLastPathComponent
            if let problem = unwritableReason(ofDirectory: directory.isEmpty ? "." : directory) ?? unwritableReason(ofFile: junit) {
                throw ValidationError("--junit: cannot write \(junit): \(problem)")
            }
        }
    }

    func loadBaseline(_ path: String, _ schema: ReportSchema) throws -> ReportTree {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("--baseline: cannot read \(path)") }
        guard let report = schema.read(data) else { throw ValidationError("--baseline: \(path) is not a netsim \(schema.name) in JSON") }
        return report
    }

    /// Evaluates the gates on a report's JSON (and `extra` verdicts, such as a wrapped
    /// command's), prints each breach to standard error, writes `--junit`; the breaches.
    func evaluate(_ json: Data, _ schema: ReportSchema, suite: String, extra: [GateVerdict] = []) throws -> [String] {
        try conclude(try verdicts(json, schema) + extra, suite: suite)
    }

    /// The gates' verdicts on a report's JSON, nothing printed or written: a command that
    /// records them in its report takes them before writing it, then `conclude`s.
    func verdicts(_ json: Data, _ schema: ReportSchema) throws -> [GateVerdict] {
        guard let current = schema.read(json) else { throw ValidationError("the \(schema.name) cannot be read back for its gates") }
        var verdicts = try thresholds(schema).map { threshold in
            GateVerdict(
                name: threshold.description, failure: threshold.breach(in: current).map { "threshold breached: \($0)" },
                measured: threshold.value(in: current).map { "\(threshold.key) = \(ReportNumber.gate($0))" } ?? "not in the report",
                threshold: "fails if \(threshold.comparison.rawValue) \(ReportNumber.gate(threshold.limit))")
        }
        if let baseline {
            let comparison = BaselineComparison.compare(
                current: current, baseline: try loadBaseline(baseline, schema), maxRegressionPercent: maxRegression, schema: schema)
            for note in comparison.notes { printError("baseline: \(note)") }
            verdicts.append(
                GateVerdict(
                    name: "baseline \(baseline) (at most +\(ReportNumber.gate(maxRegression))%)",
                    failure: comparison.regressions.isEmpty
                        ? nil : comparison.regressions.map { "regression against \(baseline): \($0)" }.joined(separator: "\n"),
                    measured: comparison.notes.joined(separator: "\n"),
                    threshold: "fails on a regression beyond +\(ReportNumber.gate(maxRegression))%"))
        }
        return verdicts
    }

    /// Prints each breach to standard error and writes `--junit`; the breaches.
    func conclude(_ verdicts: [GateVerdict], suite: String) throws -> [String] {
        let breaches = verdicts.compactMap(\.failure)
        for breach in breaches { printError(breach) }
        if let junit {
            do {
                try writeAtomically(Data(JUnitReport.render(suite: suite, verdicts).utf8), toPath: junit)
            } catch {
                printError("\(error)")
                throw ExitCode(1)
            }
        }
        return breaches
    }

    /// `10`, `10%` or `2.5%`: a percentage of at least zero.
    static func percent(_ text: String) throws -> Double {
        let number = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value >= 0, value.isFinite else {
            throw ValidationError("--max-regression: '\(text)' is not a percentage such as 10%")
        }
        return value
    }
}

/// One gate's outcome: its name, why it failed (nil when it passed), and what was measured.
struct GateVerdict {
    var name: String
    var failure: String?
    var measured: String
    /// What fails it, as the reports' gates sections say.
    var threshold: String? = nil

    /// As a report records it.
    var outcome: GateOutcome {
        GateOutcome(gate: name, threshold: threshold, passed: failure == nil, measured: measured, failure: failure)
    }
}

/// Gate verdicts as JUnit XML, the test-results format CI systems read (GitHub's test
/// reporters, GitLab's `junit` artifacts, Jenkins): one `testcase` per verdict, a `failure`
/// with the breach as its message, and what was measured as `system-out`.
enum JUnitReport {
    static func render(suite: String, _ verdicts: [GateVerdict]) -> String {
        let failures = verdicts.count { $0.failure != nil }
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="netsim" tests="\(verdicts.count)" failures="\(failures)">
              <testsuite name="\(escaped(suite))" tests="\(verdicts.count)" failures="\(failures)" errors="0" skipped="0">

            """
        for verdict in verdicts {
            xml += "    <testcase classname=\"netsim.gates\" name=\"\(escaped(verdict.name))\">\n"
            if let failure = verdict.failure {
                let firstLine = failure.split(separator: "\n").first.map(String.init) ?? failure
                xml += "      <failure type=\"gate\" message=\"\(escaped(firstLine))\">\(escaped(failure))</failure>\n"
            }
            if !verdict.measured.isEmpty { xml += "      <system-out>\(escaped(verdict.measured))</system-out>\n" }
            xml += "    </testcase>\n"
        }
        return xml + "  </testsuite>\n</testsuites>\n"
    }

    /// Text safe in XML content and attributes: markup escaped, and control characters (which
    /// XML 1.0 cannot hold at all) written as visible escapes; newlines kept in content.
    private static func escaped(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).htmlText }
            .joined(separator: "&#10;")
    }
}
