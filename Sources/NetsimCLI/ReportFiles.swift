import ArgumentParser
import Foundation
import Logging

/// The report formats `bench` and `tune keepalive` write (`--format`).
enum ReportFormat: String, CaseIterable {
    case md, json, html

    /// A comma-separated `--format` list.
    static func list(_ text: String) throws -> Set<ReportFormat> {
        Set(
            try text.split(separator: ",").map { name in
                guard let format = ReportFormat(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                    throw ValidationError("--format: unknown '\(name)' (known: md, json, html)")
                }
                return format
            })
    }
}

/// Writes `OUT/NAME.EXT` for each of `formats`, each rendered only when chosen, and says where;
/// a directory or file that cannot be written is exit status 1.
func writeReports(out: String, name: String, formats: Set<ReportFormat>, render: (ReportFormat) throws -> Data) throws {
    let directory = URL(fileURLWithPath: out, isDirectory: true)
    let base = directory.appendingPathComponent(name)
    let chosen = ReportFormat.allCases.filter(formats.contains)
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for format in chosen { try render(format).write(to: base.appendingPathExtension(format.rawValue)) }
    } catch {
        printError("cannot write the reports to \(out): \(error)")
        throw ExitCode(1)
    }
    printError("reports: " + chosen.map { base.appendingPathExtension($0.rawValue).relativePath }.joined(separator: ", "))
}

/// A logger that prints warnings and worse to standard error: what a command's servers, clients
/// and proxies have to say while its own output is the report.
func warningLogger(label: String) -> Logger {
    Logger(label: label) { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = .warning
        return handler
    }
}
