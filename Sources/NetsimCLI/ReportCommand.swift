import ArgumentParser
import Foundation
import NetsimBench
import NetsimCore
import NetsimModel
import NetsimReport
import NetsimTune

/// `netsim report`: what is done with a saved report after its run, in CI above all: gate it,
/// compare it with another. The same gates and baselines as `bench` and `run` (`GateOptions`).
public struct ReportCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Show, gate or compare saved JSON reports (bench, run and tune).",
        discussion: """
            Example: netsim report show netsim-run.json >> "$GITHUB_STEP_SUMMARY"
            Example: netsim report gate reports/bench-lte-tunnel.json --fail-if 'grpc.latencyMs.p50 > 2000' --junit gates.xml
            Example: netsim report compare main/bench-lte-tunnel.json pr/bench-lte-tunnel.json >> "$GITHUB_STEP_SUMMARY"
            """,
        subcommands: [
            ReportShowCommand.self, ReportGateCommand.self, ReportCompareCommand.self, ReportTableCommand.self, ReportAgreeCommand.self,
            ReportMergeCommand.self,
        ]
    )

    public init() {}
}

/// `netsim report show FILE`: a saved report for people again, as Markdown or HTML.
public struct ReportShowCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Render a saved report again: Markdown, HTML or JSON.",
        discussion: """
            A run report becomes its figures, radio, per-chunk delays and events; a bench report \
            becomes the Markdown or HTML the bench wrote, less what its JSON does not keep (the \
            radio timelines and latency CDFs, the profile's events and the client settings beyond \
            their source). A tune report is shown as JSON only: its Markdown and HTML need the \
            sweep itself (`netsim tune keepalive --format md|html`). JSON is the report as read, \
            checked against its kind and written again; benchmark-json is the figures a baseline \
            compares, for github-action-benchmark, of any kind. Exit status 1 when the report \
            cannot be read.
            """)

    @Argument(help: "A JSON report of netsim bench, run or tune keepalive.")
    var file: String

    @Option(help: "md, html, json or benchmark-json (github-action-benchmark's customSmallerIsBetter).")
    var format: ShowFormat = .md

    enum ShowFormat: String, ExpressibleByArgument, CaseIterable {
        case md, html, json
        case benchmarkJSON = "benchmark-json"
    }

    public init() {}

    public func validate() throws {
        let report = try SavedReport(file)
        if report.schema.name == ReportSchema.tune.name, format == .md || format == .html {
            throw ValidationError(
                "\(file) is a tune report: show it with --format json (its \(format.rawValue) needs the sweep: netsim tune keepalive --format \(format.rawValue))"
            )
        }
    }

    public func run() async throws {
        let report = try SavedReport(file)
        print(try render(report), terminator: "")
    }

    private func render(_ report: SavedReport) throws -> String {
        if format == .benchmarkJSON {
            return String(decoding: try BenchmarkJSON.render(report.tree, schema: report.schema), as: UTF8.self) + "\n"
        }
        switch report.schema.name {
        case ReportSchema.bench.name:
            let bench = try report.decode(BenchReport.self)
            if format == .md { return MarkdownReport.render(saved: bench) }
            if format == .html { return HTMLReport.render(saved: bench) }
            return String(decoding: try bench.json(), as: UTF8.self) + "\n"
        case ReportSchema.run.name:
            let run = try report.decode(RunReport.self)
            if format == .md { return run.document.markdown }
            if format == .html { return run.document.html }
            return String(decoding: try RunSummary.json(run), as: UTF8.self) + "\n"
        default:
            return String(decoding: try report.decode(KeepaliveReport.self).json(), as: UTF8.self) + "\n"
        }
    }
}

/// `netsim report gate FILE`: the gates of `bench` and `run`, on a report already written.
public struct ReportGateCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "gate",
        abstract: "Apply --fail-if and --baseline to a saved report.",
        discussion: """
            The report's kind (bench, run or tune) is read from its keys, and the gates name its keys as \
            the command that wrote it does. Exit status: 0 when every gate holds, 3 when one is \
            breached (each breach printed), 1 when the report cannot be read, 64 for a bad option.
            """)

    @Argument(help: "A JSON report of netsim bench, run or tune keepalive.")
    var file: String

    @OptionGroup(title: "Gates") var gates: GateOptions

    public init() {}

    public func validate() throws {
        try gates.check(try SavedReport(file).schema)
    }

    public func run() async throws {
        let report = try SavedReport(file)
        let breaches = try gates.evaluate(report.json, report.schema, suite: "netsim report gate \(file)")
        if !breaches.isEmpty { throw ExitCode(3) }
        printError("every gate holds")
    }
}

/// `netsim report compare OLD NEW`: every figure that changed, marked where it regressed.
public struct ReportCompareCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Show every figure that changed between two reports of the same kind.",
        discussion: """
            Prints a Markdown table (it fits a pull-request comment: at most 64 KB, the rest \
            counted) or JSON. A figure where lower is better that grew by more than \
            --max-regression, or a count that must not grow that grew, is marked as a regression \
            (the figures --baseline compares). The exit status does not depend on them: gate \
            with `netsim report gate NEW --baseline OLD`.
            """)

    @Argument(help: "The earlier report (JSON).")
    var old: String

    @Argument(help: "The later report (JSON), of the same kind.")
    var new: String

    @Option(
        name: .customLong("max-regression"), parsing: .unconditional,
        help: "The largest increase of a figure where lower is better not marked as a regression, in percent (10 or 10%).",
        transform: GateOptions.percent)
    var maxRegression = 10.0

    @Option(help: "md or json.")
    var format: ComparisonFormat = .md

    enum ComparisonFormat: String, ExpressibleByArgument, CaseIterable {
        case md, json
    }

    public init() {}

    public func validate() throws {
        let before = try SavedReport(old)
        let after = try SavedReport(new)
        guard before.schema.name == after.schema.name else {
            throw ValidationError("\(old) is a \(before.schema.name) and \(new) a \(after.schema.name): compare reports of one kind")
        }
    }

    public func run() async throws {
        let comparison = ReportComparison(old: try SavedReport(old), new: try SavedReport(new), maxRegressionPercent: maxRegression)
        switch format {
        case .md: print(comparison.markdown(limit: ReportComparison.pullRequestCommentLimit), terminator: "")
        case .json: print(String(decoding: try comparison.json(), as: UTF8.self))
        }
    }
}

/// `netsim report table`: chosen figures of several reports of one kind side by side, for a
/// document (docs/strategies.md's tables are made with it).
public struct ReportTableCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "table",
        abstract: "Print chosen figures of several reports as one Markdown table.",
        discussion: """
            Each --column is TITLE=CELL, the cell text with figures in braces: \
            --column 'events delivered={events.delivered}/{events.sent}' \
            --column 'p95={latencyMs.p95/1000:.1f} s'. A figure is a key path, optionally divided by a \
            number, optionally with a fixed number of decimals (.1f); a figure a report lacks prints \
            as -. Each row is LABEL=FILE (or FILE, labelled by its name). Bench reports give a row \
            per transport, their keys under the transport (as `grpc.` keys are for gates); run and \
            tune reports a row each. Keys are checked before any report is read.
            """)

    @Option(name: .customLong("column"), help: "TITLE=CELL (repeatable, in order).")
    var columns: [String] = []

    @Argument(help: "LABEL=FILE or FILE, one row (per transport) each, in order.")
    var rows: [String]

    public init() {}

    /// The rows' labels and reports, all of one kind.
    private func reports() throws -> [(label: String, report: SavedReport)] {
        let reports = try rows.map { row in
            let (label, path) =
                row.firstIndex(of: "=").map { (String(row[..<$0]), String(row[row.index(after: $0)...])) }
                ?? ((row as NSString).lastPathComponent, row)
            return (label: label, report: try SavedReport(path))
        }
        if let odd = reports.first(where: { $0.report.schema.name != reports[0].report.schema.name }) {
            throw ValidationError(
                "\(odd.report.path) is a \(odd.report.schema.name), not a \(reports[0].report.schema.name): tabulate reports of one kind")
        }
        return reports
    }

    private func cells(_ schema: ReportSchema) throws -> [(title: String, cell: ReportCellTemplate)] {
        let scope = schema.name == ReportSchema.bench.name ? [BenchTransport.rest.rawValue] : []
        return try columns.map { column in
            guard let equals = column.firstIndex(of: "="), equals > column.startIndex else {
                throw ValidationError("--column '\(column)' is not TITLE=CELL")
            }
            do {
                return (
                    String(column[..<equals]),
                    try ReportCellTemplate(String(column[column.index(after: equals)...]), schema: schema, scope: scope)
                )
            } catch {
                throw ValidationError("--column \(error)")
            }
        }
    }

    public func validate() throws {
        guard !columns.isEmpty else { throw ValidationError("name at least one --column TITLE=CELL") }
        _ = try cells(try reports()[0].report.schema)
    }

    public func run() async throws {
        print(try table(), terminator: "")
    }

    /// The table, in Markdown.
    func table() throws -> String {
        let reports = try reports()
        let schema = reports[0].report.schema
        let cells = try cells(schema)
        let isBench = schema.name == ReportSchema.bench.name
        var table = [[isBench ? "run" : "report"] + (isBench ? ["transport"] : []) + cells.map(\.title)]
        for (label, report) in reports {
            if isBench {
                for transport in BenchTransport.allCases {
                    guard let node = report.tree["transports"]?[transport.rawValue] else { continue }
                    table.append([label, transport.rawValue] + cells.map { $0.cell.render(node) })
                }
            } else {
                table.append([label] + cells.map { $0.cell.render(report.tree) })
            }
        }
        return ReportDocument(title: "", blocks: [.table(header: table[0], rows: Array(table.dropFirst()))]).markdownTable
    }
}

/// `netsim report agree LIVE MODEL`: whether the model engine agrees with the live bench on the
/// same run, within the model engine's acceptance bounds (`EngineAgreement`).
public struct ReportAgreeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "agree",
        abstract: "Check a model bench report against a live one of the same run.",
        discussion: """
            Both are bench reports of one profile, seed, fleet and duration, one from --engine live and \
            one from --engine model. Prints each transport's figures side by side with the model \
            engine's bounds (docs/model-engine.md): bytes, promotions, wake time and energy within \
            10%, events and messages delivered equal, reconnects within one per device. Exit status \
            0 when every bound holds, 3 when one is missed, 1 when a report cannot be read.
            """)

    @Argument(help: "The live bench's JSON report.")
    var live: String

    @Argument(help: "The model engine's JSON report of the same run.")
    var model: String

    public init() {}

    public func run() async throws {
        let reports = try [live, model].map { path in
            let report = try SavedReport(path)
            guard report.schema.name == ReportSchema.bench.name else {
                throw UnreadableReport(description: "\(path) is a \(report.schema.name), not a bench report")
            }
            return try report.decode(BenchReport.self)
        }
        let mismatches = [
            ("profile", reports[0].profile, reports[1].profile), ("seed", "\(reports[0].seed)", "\(reports[1].seed)"),
            ("devices per transport", "\(reports[0].devicesPerTransport)", "\(reports[1].devicesPerTransport)"),
            ("duration", "\(reports[0].durationSeconds)", "\(reports[1].durationSeconds)"),
        ].filter { $0.1 != $0.2 }
        if let mismatch = mismatches.first {
            throw UnreadableReport(description: "not the same run: \(mismatch.0) \(mismatch.1) in \(live), \(mismatch.2) in \(model)")
        }
        let agreement = EngineAgreement(live: reports[0], model: reports[1])
        print(agreement.markdown, terminator: "")
        if !agreement.agrees { throw ExitCode(3) }
    }
}
