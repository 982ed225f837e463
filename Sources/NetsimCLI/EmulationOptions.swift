import ArgumentParser
import Foundation
import NetsimCore
import NetsimInput
import NetsimModel

/// The options every emulating command shares: which profile, which seed, how long.
struct EmulationOptions: ParsableArguments {
    @Option(help: "A built-in profile name, ./profiles/NAME.yaml, or a path to a profile file (see `netsim profiles list`).")
    var profile = "lte-good"

    @Option(help: "The seed of every random draw (jitter, loss, paging phase): the same seed replays the same conditions.")
    var seed: UInt64 = 1

    @Option(help: "How long to run, e.g. 90s or 5m. Default: until Ctrl-C or SIGTERM.", transform: { try parseDuration($0) })
    var duration: Double?

    /// The profile, or a located error on standard error and exit status 2.
    func loadProfile() throws -> Profile {
        try resolveProfile(profile)
    }
}

/// A profile by name or path (see `ProfileCatalog.resolve`), or its located error on standard
/// error and exit status 2.
func resolveProfile(_ nameOrPath: String) throws -> Profile {
    do {
        return try ProfileCatalog.resolve(nameOrPath, workingDirectory: FileManager.default.currentDirectoryPath)
    } catch {
        printError("\(error)")
        throw ExitCode(2)
    }
}

/// Parses a duration option, turning a unit error into a usage error that names the value.
func parseDuration(_ text: String) throws -> Double {
    do {
        let seconds = try Quantity.duration(text)
        guard seconds > 0 else { throw ValidationError("the duration must be above zero, got '\(text)'") }
        return seconds
    } catch let error as Quantity.ParseError {
        throw ValidationError("\(error)")
    }
}

/// A workload, client or policy file, or its error on standard error and exit status 2.
func loadSettings<Settings>(_ path: String, _ load: (String, String) throws(InputFileError) -> Settings) throws -> Settings {
    guard let data = FileManager.default.contents(atPath: path) else {
        printError("\(path): cannot read the file")
        throw ExitCode(2)
    }
    do {
        return try load(String(decoding: data, as: UTF8.self), path)
    } catch {
        printError("\(error)")
        throw ExitCode(2)
    }
}

/// Writes `netsim: MESSAGE` to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("netsim: \(message)\n".utf8))
}

/// Whether standard error is a terminal (live status) or not (log lines).
var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
