import ArgumentParser
import Foundation
import NetsimCore
import NetsimInput

extension ProfilesCommand {
    /// `netsim profiles validate FILE...`: for editors and CI.
    public struct Validate: ParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: "Check profile files.",
            discussion: """
                Prints "FILE: ok" for each good file and each problem as FILE:LINE:COLUMN: MESSAGE \
                on standard error. Exits with status 2 if any file has a problem.
                """
        )

        @Argument(help: "Profile files to check.")
        var files: [String]

        public init() {}

        public func validate() throws {
            guard !files.isEmpty else { throw ValidationError("Give at least one profile file to check.") }
        }

        public func run() throws {
            var anyInvalid = false
            for file in files {
                do {
                    _ = try ProfileLoader.load(path: file)
                    print("\(file): ok")
                } catch {
                    anyInvalid = true
                    // Not printError: without its "netsim: " prefix, editors and CI annotators
                    // can read FILE:LINE:COLUMN.
                    FileHandle.standardError.write(Data("\(error)\n".utf8))
                }
            }
            if anyInvalid { throw ExitCode(2) }
        }
    }
}
