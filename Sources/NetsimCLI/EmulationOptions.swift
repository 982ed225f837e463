import ArgumentParser
import Foundation
import NetsimCore
import NetsimInput
import NetsimModel

/// The options every emulating command shares: which profile, which seed, how long.
struct EmulationOptions: ParsableArguments {
    @Option(help: "A built-in profile name, ./profiles/NAME.yaml, or a path to a profile file (see `netsim profiles list`).")
    var profile = "lte-good"

    @Option(
        parsing: .unconditional,
        help: "The seed of every random draw (jitter, loss, paging phase): the same seed replays the same conditions. Default: 1.",
        transform: { try parseSeed($0) })
    var seed: UInt64 = 1

    @Option(
        parsing: .unconditional, help: "How long to run, e.g. 90s or 5m. Default: until Ctrl-C or SIGTERM.",
        transform: { try parseDuration($0) })
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
/// Options that take one parse `.unconditional`ly, so that `-1s` comes here to be named rather
/// than being read as a flag and reported as a missing value.
func parseDuration(_ text: String) throws -> Double {
    guard !text.hasPrefix("-") else { throw ValidationError("the duration must be above zero, got '\(text)'") }
    do {
        let seconds = try Quantity.duration(text)
        guard seconds > 0 else { throw ValidationError("the duration must be above zero, got '\(text)'") }
        return seconds
    } catch let error as Quantity.ParseError {
        throw ValidationError("\(error)")
    }
}

/// Parses a `--seed` (taken `.unconditional`ly, as durations are, so that `-1` is named).
func parseSeed(_ text: String) throws -> UInt64 {
    if let seed = UInt64(text) { return seed }
    if let number = Int64(text), number < 0 { throw ValidationError("must be 0 or more, got \(text)") }
    throw ValidationError("'\(text)' is not a whole number from 0 to \(UInt64.max)")
}

/// A workload, client or policy file, or its error on standard error and exit status 2.
func loadSettings<Settings>(_ path: String, _ load: (String, String) throws(InputFileError) -> Settings) throws -> Settings {
    do {
        return try load(try ProfileLoader.readTextFile(path), path)
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
