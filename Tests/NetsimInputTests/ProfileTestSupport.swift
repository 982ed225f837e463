import NetsimCore
import NetsimInput

/// A trace file the test did not provide.
struct MissingTestFile: Error, CustomStringConvertible {
    var description: String { "no such file" }
}

/// Loads profile YAML as `test.yaml`, with `traces` as the only readable trace files.
func loadProfile(_ yaml: String, traces: [String: String] = [:]) throws(InputFileError) -> Profile {
    try ProfileLoader.load(yaml: yaml, source: "test.yaml") { path in
        guard let text = traces[path] else { throw MissingTestFile() }
        return text
    }
}

/// The error loading `yaml` gives, or nil if it loads.
func profileError(_ yaml: String, traces: [String: String] = [:]) -> InputFileError? {
    do {
        _ = try loadProfile(yaml, traces: traces)
        return nil
    } catch {
        return error
    }
}

/// The start of a valid profile, five lines long, so snippets appended to it begin at line 6.
let profileHeader = """
    name: test
    description: a test profile
    networks:
      lte:
        radio: lte

    """

/// The directory holding Package.swift, found from this file's path.
let packageRoot: String = {
    var components = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    components.removeLast(3)  // Tests/NetsimInputTests/ProfileTestSupport.swift
    return components.joined(separator: "/")
}()
