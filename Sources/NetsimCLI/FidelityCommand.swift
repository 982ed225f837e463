import ArgumentParser
import Foundation
import NetsimCalibration
import NetsimCore

/// `netsim fidelity DIR`: netsim's radio figures beside a measurement study's, file by file,
/// with the error of each (docs/fidelity.md).
public struct FidelityCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "fidelity",
        abstract: "Score netsim's radio models against measured phones.",
        discussion: """
            DIR is laid out as the SIGCOMM'21 study's slice: RRC-Probe/*.csv (probe round trips), \
            MN-Wild/*.csv (walking loops with a power meter) and MN-Transfer/*.csv (power at target \
            rates); any of the three may be missing. Each file is played with the built-in radio \
            its own columns name (carrier, radio access; docs/fidelity.md has the table), through \
            the same radio model as run, bench and analyze: probes as a downlink packet after each \
            idle gap, echoed by the phone; walking loops priced from their byte counters, second by \
            second; transfers as their throughput. Writes fidelity.json (measured and netsim \
            figures side by side), .md and .html (round trip against idle gap, energy bars). Gates \
            (--fail-if 'summary.runMedianError > 0.10') exit 3 when breached.
            """
    )

    @Argument(help: "The directory of measurements.")
    var directory: String

    @Option(help: "Play every file with this radio (a named radio or a technology). Default: the radio each file's columns name.")
    var radio: String?

    @Option(help: "The directory the reports are written to.")
    var out = "reports"

    @Option(help: "Report formats, comma-separated: json, md, html.")
    var format = "json,md,html"

    @Option(help: "The seed of the paging occasions' phase in the probes' play.")
    var seed: UInt64 = 1

    @OptionGroup var gates: GateOptions

    public init() {}

    public func validate() throws {
        _ = try ReportFormat.list(format)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("\(directory) is not a directory")
        }
        if let radio { _ = try Fidelity.builtinRadio(radio) }
        try gates.check(.fidelity)
    }

    public func run() throws {
        try requireReportDirectory(out)
        let scored: (report: FidelityReport, probePlays: [String: (measured: [Probe], netsim: [Probe])])
        do {
            scored = try Fidelity(directory: directory, forcedRadio: radio, seed: seed).score()
        } catch {
            printError("\(error)")
            throw ExitCode(1)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let json = try encoder.encode(scored.report)
        let document = FidelityRendering.document(scored.report, probePlays: scored.probePlays)
        try writeReports(out: out, name: "fidelity", formats: try ReportFormat.list(format), markdown: document.markdown) { format in
            switch format {
            case .md: Data(document.markdown.utf8)
            case .json: json
            case .html: Data(document.html.utf8)
            case .benchmarkJSON: throw ValidationError("--format benchmark-json is for netsim bench")
            }
        }
        if !(try gates.evaluate(json, .fidelity, suite: "netsim fidelity")).isEmpty { throw ExitCode(3) }
    }
}
