import Foundation

/// Where profiles come from, and how a name given on the command line is resolved:
///
/// 1. anything containing "/" or ending in `.yaml` / `.yml` is a path (relative to the
///    working directory);
/// 2. otherwise `./profiles/NAME.yaml`, if it exists, so a project can keep and override its
///    own profiles;
/// 3. otherwise the built-in profile NAME (profiles/*.yaml in netsim's repository, compiled in
///    by scripts/embed-profiles.py, so the binary works anywhere).
public enum ProfileCatalog {
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
        guard let yaml = builtinSource(named: name) else {
            throw ProfileLookupError.unknownName(
                name, suggestion: NameSuggestion.nearest(to: name, among: builtinNames), builtinNames: builtinNames)
        }
        return try ProfileLoader.load(yaml: yaml, source: "built-in/\(name).yaml") { path in
            var relativePath = Substring(path)
            while relativePath.hasPrefix("./") { relativePath = relativePath.dropFirst(2) }
            guard let text = embeddedFiles[String(relativePath)] else {
                throw ProfileLookupError.unreadable(path: path, reason: "not one of the built-in trace files")
            }
            return text
        }
    }

    /// Whether a command-line argument names a file rather than a profile.
    public static func isPath(_ nameOrPath: String) -> Bool {
        nameOrPath.contains("/") || nameOrPath.hasSuffix(".yaml") || nameOrPath.hasSuffix(".yml")
    }

    /// Resolves a name or path in the order above. Errors name the file as it was given.
    public static func resolve(_ nameOrPath: String, workingDirectory: String) throws -> Profile {
        if isPath(nameOrPath) {
            let path = nameOrPath.hasPrefix("/") ? nameOrPath : workingDirectory + "/" + nameOrPath
            return try ProfileLoader.load(path: path, displayedAs: nameOrPath)
        }
        let localPath = localDirectory(in: workingDirectory) + "/" + nameOrPath + ".yaml"
        if FileManager.default.fileExists(atPath: localPath) {
            return try ProfileLoader.load(path: localPath, displayedAs: "profiles/\(nameOrPath).yaml")
        }
        if builtinSource(named: nameOrPath) != nil { return try builtin(named: nameOrPath) }
        let candidates = builtinNames + localNames(workingDirectory: workingDirectory)
        throw ProfileLookupError.unknownName(
            nameOrPath, suggestion: NameSuggestion.nearest(to: nameOrPath, among: candidates),
            builtinNames: builtinNames)
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
