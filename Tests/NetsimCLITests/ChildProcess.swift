import Foundation

/// A script or binary run as a process of its own, for what only a child process shows (a
/// shell script's files, its exit status): its exit status and its standard output and error
/// interleaved, as a CI log shows them.
enum ChildProcess {
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String?] = [:]
    ) throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        process.environment = merged
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
