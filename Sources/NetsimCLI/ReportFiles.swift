import ArgumentParser
import Foundation
import Logging
import NetsimPcap
import NetsimReport

/// The report formats `bench` and `tune keepalive` write (`--format`).
enum ReportFormat: String, CaseIterable {
    case md, json, html
    /// github-action-benchmark's `customSmallerIsBetter` JSON (`BenchmarkJSON`): bench only.
    case benchmarkJSON = "benchmark-json"

    /// The file name's extension.
    var fileExtension: String { self == .benchmarkJSON ? "benchmark.json" : rawValue }

    /// A comma-separated `--format` list, of the formats in `known`.
    static func list(_ text: String, known: [ReportFormat] = [.md, .json, .html]) throws -> Set<ReportFormat> {
        Set(
            try text.split(separator: ",").map { name in
                guard let format = ReportFormat(rawValue: name.trimmingCharacters(in: .whitespaces)), known.contains(format) else {
                    throw ValidationError("--format: unknown '\(name)' (known: \(known.map(\.rawValue).joined(separator: ", ")))")
                }
                return format
            })
    }
}

extension ExitCode {
    /// The run finished, but a capture lost frames (a full disk, or a disk slower than the
    /// link): its results are not all there.
    static let incompleteCapture = ExitCode(4)
    /// SIGINT or SIGTERM stopped the run before its end: the reports hold what was played,
    /// marked partial.
    static let stoppedEarly = ExitCode(5)
}

/// Why a file netsim writes could not be written: the path and the reason in words.
struct OutputFileError: Error, CustomStringConvertible {
    let path: String
    let reason: String

    var description: String { "cannot write \(path): \(reason)" }
}

/// Writes `data` to `path` so that the file holds either what it held before or all of `data`,
/// never a part: a full disk must not leave a 0-byte report where a run's results should be.
/// The bytes go to a temporary file beside the target (the same file system, so the rename that
/// replaces the target is atomic), which is synced before it replaces the target. A target that
/// exists and is not a regular file (a terminal, `/dev/stdout`, `/dev/full`) cannot be replaced
/// and is written in place. A temporary file a killed netsim left for the same target is
/// removed first (`StaleWrites`).
func writeAtomically(_ data: Data, toPath path: String) throws(OutputFileError) {
    if let problem = unwritableReason(ofFile: path) { throw OutputFileError(path: path, reason: problem) }
    let target = (path as NSString).resolvingSymlinksInPath
    var status = stat()
    if stat(target, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
        let descriptor = open(target, O_WRONLY | O_TRUNC)
        guard descriptor >= 0 else { throw OutputFileError(path: path, reason: systemReason(errno)) }
        if let failure = writeAll(data, to: descriptor) {
            close(descriptor)
            throw OutputFileError(path: path, reason: failure)
        }
        guard close(descriptor) == 0 else { throw OutputFileError(path: path, reason: systemReason(errno)) }
        return
    }
    let directory = (target as NSString).deletingLastPathComponent
    let name = (target as NSString).lastPathComponent
    StaleWrites.clear(in: directory.isEmpty ? "." : directory, names: [name])
    let temporary = (directory.isEmpty ? "" : directory + "/") + StaleWrites.temporaryName(for: name)
    if let failure = writeDurably(data, toNewFile: temporary) ?? (rename(temporary, target) != 0 ? systemReason(errno) : nil) {
        unlink(temporary)
        throw OutputFileError(path: path, reason: failure)
    }
}

/// Writes `data` to a new file at `path` and syncs it; the system's reason if it could not
/// (the caller removes what was left).
private func writeDurably(_ data: Data, toNewFile path: String) -> String? {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
    guard descriptor >= 0 else { return systemReason(errno) }
    var failure = writeAll(data, to: descriptor)
    if failure == nil, fsync(descriptor) != 0 { failure = systemReason(errno) }
    if close(descriptor) != 0, failure == nil { failure = systemReason(errno) }
    return failure
}

/// Writes the files `names` into `directory`, each's bytes from `contents`, as one set: a
/// reader finds all of them from this run or all from the one before, never a mix, even if
/// netsim is killed on the way. Every file is written and synced in a staging directory of
/// this process inside `directory` first (a slow render or a full disk leaves the previous
/// set as it was); then a `.complete` marker is written there, and only then is each file
/// renamed into place. A run killed during those renames leaves the marker: the next write
/// into `directory` finishes the renames first (`StaleWrites.clear`), and removes a staging
/// directory without one.
func writeFileSet(in directory: String, names: [String], contents: (String) throws -> Data) throws {
    StaleWrites.clear(in: directory, names: names)
    let staging = (directory as NSString).appendingPathComponent(StaleWrites.stagingName())
    guard mkdir(staging, 0o777) == 0 else { throw OutputFileError(path: staging, reason: systemReason(errno)) }
    do {
        for name in names {
            let path = (staging as NSString).appendingPathComponent(name)
            if let failure = writeDurably(try contents(name), toNewFile: path) {
                throw OutputFileError(path: (directory as NSString).appendingPathComponent(name), reason: failure)
            }
        }
        let marker = (staging as NSString).appendingPathComponent(StaleWrites.completeMarker)
        if let failure = writeDurably(Data(names.joined(separator: "\n").utf8), toNewFile: marker) {
            throw OutputFileError(path: marker, reason: failure)
        }
    } catch {
        try? FileManager.default.removeItem(atPath: staging)
        throw error
    }
    if let failure = StaleWrites.finish(staging, into: directory) { throw OutputFileError(path: directory, reason: failure) }
}

/// What a netsim killed while writing leaves in a directory, and how a later one clears it.
/// Each temporary name holds the writer's process id: a name whose process is gone is stale,
/// one of a process still running (this one, or another run writing there) is left alone.
enum StaleWrites {
    /// The marker a staging directory holds once every file of its set is written.
    static let completeMarker = ".complete"
    private static let stagingPrefix = ".netsim-set."

    /// `.NAME.PID.UUID.tmp`, beside the file `name` it will replace.
    static func temporaryName(for name: String) -> String { ".\(name).\(getpid()).\(UUID().uuidString).tmp" }

    /// `.netsim-set.PID.UUID`: a set's staging directory.
    static func stagingName() -> String { "\(stagingPrefix)\(getpid()).\(UUID().uuidString)" }

    /// Finishes the sets killed writers left complete, and removes their other staging
    /// directories, and their temporary files for the files `names`, in `directory`.
    static func clear(in directory: String, names: [String]) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for entry in entries {
            let path = (directory as NSString).appendingPathComponent(entry)
            if entry.hasPrefix(stagingPrefix), let pid = writer(of: entry.dropFirst(stagingPrefix.count)), !isRunning(pid) {
                if FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(completeMarker)) {
                    _ = finish(path, into: directory)
                }
                try? FileManager.default.removeItem(atPath: path)
            } else if let name = names.first(where: { entry.hasPrefix(".\($0).") && entry.hasSuffix(".tmp") }) {
                let middle = entry.dropFirst(name.count + 2).dropLast(".tmp".count)
                // An older netsim's `.NAME.UUID.tmp` has no process id: only a killed run leaves one.
                if UUID(uuidString: String(middle)) != nil || writer(of: middle).map(isRunning) == false { unlink(path) }
            }
        }
    }

    /// Renames every file of a complete staging directory into `directory`, then removes the
    /// directory; the system's reason if a rename failed.
    static func finish(_ staging: String, into directory: String) -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []
        for name in names.sorted() where name != completeMarker {
            let from = (staging as NSString).appendingPathComponent(name)
            guard rename(from, (directory as NSString).appendingPathComponent(name)) == 0 else { return systemReason(errno) }
        }
        unlink((staging as NSString).appendingPathComponent(completeMarker))
        rmdir(staging)
        return nil
    }

    /// The process id in `PID.UUID`, if the text is that.
    private static func writer(of text: Substring) -> pid_t? {
        let parts = text.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, UUID(uuidString: String(parts[1])) != nil else { return nil }
        return pid_t(parts[0])
    }

    private static func isRunning(_ pid: pid_t) -> Bool {
        pid == getpid() || kill(pid, 0) == 0 || errno == EPERM
    }
}

/// Writes all of `data` to an open file; the system's reason if it could not.
private func writeAll(_ data: Data, to descriptor: Int32) -> String? {
    data.withUnsafeBytes { bytes -> String? in
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return systemReason(errno)
            }
            offset += written
        }
        return nil
    }
}

/// The system's words for an `errno` ("no space left on device"), as the end of a sentence.
private func systemReason(_ code: Int32) -> String {
    String(cString: strerror(code)).lowercased()
}

/// Why a file could not be written at `path`, checked before a run so that a typo does not
/// cost the run; nil if it can be.
func unwritableReason(ofFile path: String) -> String? {
    let files = FileManager.default
    var isDirectory: ObjCBool = false
    if files.fileExists(atPath: path, isDirectory: &isDirectory) {
        if isDirectory.boolValue { return "it is a directory" }
        return files.isWritableFile(atPath: path) ? nil : "the file is not writable"
    }
    let parent = (path as NSString).deletingLastPathComponent
    let directory = parent.isEmpty ? "." : parent
    guard files.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
        return "no directory \(directory)"
    }
    return files.isWritableFile(atPath: directory) ? nil : "the directory \(directory) is not writable"
}

/// Creates the directory `path` (and its parents) if missing; why files cannot be written in
/// it, or nil if they can. Called before a run, so that a bad `--out` does not cost the run.
/// Each missing directory is made with `mkdir`, whose `errno` says why in the system's words
/// (Foundation's `createDirectory` says only "NSCocoaErrorDomain error 512").
func unwritableReason(ofDirectory path: String) -> String? {
    let files = FileManager.default
    var missing: [String] = []
    var existing = path.isEmpty ? "." : path
    var isDirectory: ObjCBool = false
    while !files.fileExists(atPath: existing, isDirectory: &isDirectory) {
        missing.append(existing)
        let parent = (existing as NSString).deletingLastPathComponent
        existing = parent.isEmpty ? "." : parent
    }
    guard isDirectory.boolValue else { return existing == path ? "it is not a directory" : "\(existing) is not a directory" }
    for directory in missing.reversed() where mkdir(directory, 0o777) != 0 && errno != EEXIST {
        return "cannot create \(directory): \(systemReason(errno))"
    }
    return files.isWritableFile(atPath: path) ? nil : "the directory is not writable"
}

/// Exits with status 1 before a run if reports cannot be written into `out`.
func requireReportDirectory(_ out: String) throws {
    guard let problem = unwritableReason(ofDirectory: out) else { return }
    printError("cannot write the reports to \(out): \(problem)")
    throw ExitCode(1)
}

/// Writes `OUT/NAME.EXT` for each of `formats`, each rendered only when chosen, as one set
/// (`writeFileSet`: all of this run's or all of the previous one's), says where,
/// and prints `markdown` on standard output. When the files cannot be written, the printed
/// Markdown is all that is left of the run: it is printed all the same, then the exit status
/// is 1.
func writeReports(
    out: String, name: String, formats: Set<ReportFormat>, markdown: String, render: (ReportFormat) throws -> Data
) throws {
    let base = URL(fileURLWithPath: out, isDirectory: true).appendingPathComponent(name)
    let chosen = ReportFormat.allCases.filter(formats.contains)
    var failure: String?
    if let problem = unwritableReason(ofDirectory: out) {
        failure = "cannot write the reports to \(out): \(problem)"
    } else {
        do {
            let names = chosen.map { base.appendingPathExtension($0.fileExtension).lastPathComponent }
            try writeFileSet(in: out, names: names) { name in try render(chosen[names.firstIndex(of: name)!]) }
        } catch {
            failure = "\(error)"
        }
    }
    print(markdown, terminator: "")
    if let failure {
        printError("\(failure); the report above on standard output is all that is kept of this run")
        throw ExitCode(1)
    }
    printError("reports: " + chosen.map { base.appendingPathExtension($0.fileExtension).relativePath }.joined(separator: ", "))
}

/// Finishes each capture and says what it lost; false if any is incomplete (frames lost to a
/// full disk or dropped because the disk was slower than the link), which is
/// `ExitCode.incompleteCapture` once the run's report is out.
func finishCaptures(_ captures: [CaptureWriter]) -> Bool {
    var complete = true
    for writer in captures.sorted(by: { $0.path < $1.path }) {
        do {
            try writer.finish()
        } catch {
            printError("\(error)")
            complete = false
        }
        if writer.droppedRecords > 0 {
            printError(
                "the capture \(writer.path) is incomplete: \(writer.droppedRecords) record(s) dropped, the disk was slower than the link")
            complete = false
        }
    }
    return complete
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
