import Foundation
import NetsimCore

/// Where a profile's YAML comes from.
public enum ProfileSource: Sendable, Equatable {
    /// One of the profiles compiled into netsim.
    case builtin(name: String)
    /// A file: where it is, and how to name it in messages (as the user wrote it).
    case file(path: String, displayName: String)

    /// "built-in" or the file's name as given, for listings.
    public var displayName: String {
        switch self {
        case .builtin: "built-in"
        case .file(_, let displayName): displayName
        }
    }
}

/// Where profiles come from, and how a name given on the command line is resolved:
///
/// 1. anything containing "/" or ending in `.yaml` / `.yml` is a path (relative to the
///    working directory);
/// 2. otherwise `./profiles/NAME.yaml`, if it exists, so a project can keep and override its
///    own profiles;
/// 3. otherwise the built-in profile NAME (profiles/*.yaml in netsim's repository, compiled in
///    by scripts/embed-profiles.py, traces in a compact encoding, so the binary works anywhere).
public enum ProfileCatalog {
    /// The built-in profiles and their trace files, keyed by path relative to profiles/ (the
    /// traces decoded from their compact encoding, once).
    public static let embeddedFiles: [String: String] = embeddedTexts.merging(
        embeddedTraces.mapValues(EmbeddedTrace.decode), uniquingKeysWith: { text, _ in text })

    /// The built-in profiles' names, sorted.
    public static let builtinNames: [String] = embeddedFiles.keys
        .filter { !$0.contains("/") && $0.hasSuffix(".yaml") }
        .map { String($0.dropLast(".yaml".count)) }
        .sorted()

    /// A built-in profile's YAML, e.g. to copy into `./profiles` and edit.
    public static func builtinSource(named name: String) -> String? {
        embeddedFiles[name + ".yaml"]
    }

    /// A built-in profile; its traces come from the embedded trace files.
    public static func builtin(named name: String) throws -> Profile {
        try load(.builtin(name: name))
    }

    /// Resolves a name or path in the order above and loads the profile.
    public static func resolve(_ nameOrPath: String, workingDirectory: String) throws -> Profile {
        try load(locate(nameOrPath, workingDirectory: workingDirectory))
    }

    /// Where a name or path leads, in the order above; throws `ProfileLookupError.unknownName`
    /// (with the nearest name) when it leads nowhere. A path is not checked for existence.
    public static func locate(_ nameOrPath: String, workingDirectory: String) throws(ProfileLookupError) -> ProfileSource {
        if isPath(nameOrPath) {
            let path = nameOrPath.hasPrefix("/") ? nameOrPath : workingDirectory + "/" + nameOrPath
            return .file(path: path, displayName: nameOrPath)
        }
        let localPath = localDirectory(in: workingDirectory) + "/" + nameOrPath + ".yaml"
        if FileManager.default.fileExists(atPath: localPath) {
            return .file(path: localPath, displayName: "profiles/\(nameOrPath).yaml")
        }
        if builtinSource(named: nameOrPath) != nil { return .builtin(name: nameOrPath) }
        let candidates = builtinNames + localNames(workingDirectory: workingDirectory)
        throw .unknownName(
            nameOrPath, suggestion: NameSuggestion.nearest(to: nameOrPath, among: candidates), builtinNames: builtinNames)
    }

    /// Loads a profile; a file's traces are read relative to it, a built-in's from the
    /// embedded trace files.
    public static func load(_ source: ProfileSource) throws -> Profile {
        switch source {
        case .file(let path, let displayName):
            return try ProfileLoader.load(path: path, displayedAs: displayName)
        case .builtin(let name):
            return try ProfileLoader.load(yaml: try text(of: source), source: "built-in/\(name).yaml") { path in
                var relativePath = Substring(path)
                while relativePath.hasPrefix("./") { relativePath = relativePath.dropFirst(2) }
                guard let text = embeddedFiles[String(relativePath)] else {
                    throw ProfileLookupError.unreadable(path: path, reason: "not one of the built-in trace files")
                }
                return text
            }
        }
    }

    /// A profile's YAML as written.
    public static func text(of source: ProfileSource) throws(ProfileLookupError) -> String {
        switch source {
        case .file(let path, let displayName):
            return try ProfileLoader.readTextFile(path, displayedAs: displayName)
        case .builtin(let name):
            guard let yaml = builtinSource(named: name) else {
                throw .unknownName(
                    name, suggestion: NameSuggestion.nearest(to: name, among: builtinNames), builtinNames: builtinNames)
            }
            return yaml
        }
    }

    /// Whether a command-line argument names a file rather than a profile.
    public static func isPath(_ nameOrPath: String) -> Bool {
        nameOrPath.contains("/") || nameOrPath.hasSuffix(".yaml") || nameOrPath.hasSuffix(".yml")
    }

    /// The names of the profiles in `./profiles` (its `NAME.yaml` files), sorted.
    public static func localNames(workingDirectory: String) -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: localDirectory(in: workingDirectory))) ?? []
        return files.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(".yaml".count)) }.sorted()
    }

    private static func localDirectory(in workingDirectory: String) -> String {
        workingDirectory + "/profiles"
    }
}
