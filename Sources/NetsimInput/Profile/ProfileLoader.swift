import Foundation
import NetsimCore

/// Reads profile YAML (schema: profiles/README.md) into a `Profile`.
///
/// Decoding is by hand rather than Codable so that every error points at the exact node (file,
/// line, column), names what the node was meant to be, and suggests the nearest valid key or
/// value for a typo. Reading is pure: trace files come through a closure, so tests and the
/// built-in profiles need no file system.
public enum ProfileLoader {
    /// Returns the text of a trace file named in a profile (`trace: traces/x.down`), given the
    /// path exactly as the profile writes it (relative paths are relative to the profile).
    public typealias TraceReader = (_ relativePath: String) throws -> String

    /// Parses a profile. `source` names the text in errors (usually its path).
    public static func load(yaml: String, source: String, readTrace: @escaping TraceReader) throws(InputFileError) -> Profile {
        guard let root = try YAMLNode.compose(yaml: yaml, file: source, describedAs: "the profile") else {
            throw InputFileError(file: source, line: 1, column: 1, message: "the profile is empty")
        }
        let decoder = ProfileDecoder(readTrace: readTrace)
        return try decoder.profile(root)
    }

    /// Reads a profile file; traces are resolved relative to the file's directory.
    ///
    /// Throws `ProfileLookupError.unreadable` when the file cannot be read, and `InputFileError`
    /// for anything wrong inside it.
    public static func load(path: String) throws -> Profile {
        try load(path: path, displayedAs: path)
    }

    /// `load(path:)`, naming the file in errors as the user wrote it (`profiles/x.yaml` rather
    /// than the absolute path it was resolved to).
    static func load(path: String, displayedAs source: String) throws -> Profile {
        let yaml = try readTextFile(path, displayedAs: source)
        let directory = (path as NSString).deletingLastPathComponent
        return try load(yaml: yaml, source: source) { tracePath in
            try readTextFile(
                tracePath.hasPrefix("/") || directory.isEmpty ? tracePath : directory + "/" + tracePath,
                maximumBytes: DeliveryTrace.maximumFileBytes)
        }
    }

    /// A file's UTF-8 text, or an error that says plainly why not, naming the file as
    /// `displayedAs` (by default its path). Only a regular file is read: `/dev/zero` never
    /// ends and a FIFO may never be written, so reading either would hang. A file over
    /// `maximumBytes` is refused before it is read.
    public static func readTextFile(
        _ path: String, displayedAs name: String? = nil, maximumBytes: Int = .max
    ) throws(ProfileLookupError) -> String {
        let name = name ?? path
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw .unreadable(path: name, reason: errno == ENOENT || errno == ENOTDIR ? "no such file" : String(cString: strerror(errno)))
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw .unreadable(path: name, reason: "is a directory, not a file")
        case S_IFIFO: throw .unreadable(path: name, reason: "is a FIFO (named pipe), not a file")
        case S_IFCHR: throw .unreadable(path: name, reason: "is a character device, not a file")
        case S_IFBLK: throw .unreadable(path: name, reason: "is a block device, not a file")
        case S_IFSOCK: throw .unreadable(path: name, reason: "is a socket, not a file")
        default: throw .unreadable(path: name, reason: "is not a regular file")
        }
        guard status.st_size <= maximumBytes else {
            throw .unreadable(path: name, reason: "is \(status.st_size) bytes, over the \(maximumBytes)-byte bound of this kind of file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: name, reason: "cannot be read (permissions?)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .unreadable(path: name, reason: "is not UTF-8 text")
        }
        return text
    }
}

/// The decoding pass over one profile's YAML tree. Its parts are split by schema section:
/// this file (top level, networks, NAT), `ProfileDecoder+Radio`, `+Link` and `+Timeline`.
struct ProfileDecoder {
    let readTrace: ProfileLoader.TraceReader

    func profile(_ root: YAMLNode) throws(InputFileError) -> Profile {
        let top = try root.mapping(keys: ["name", "description", "start", "networks", "nat", "timeline"])
        let nameNode = try top.required("name")
        let name = try nameNode.string()
        if let problem = ProfileName.problem(with: name) { throw nameNode.error(problem) }
        let description = try top.required("description").string()
        let networks = try networks(top.required("networks").named("'networks'"))
        let networkNames = networks.map(\.name)
        let start =
            try top.value("start").map { node throws(InputFileError) in
                try networkName(node, among: networkNames)
            } ?? networkNames[0]
        let nat = try top.value("nat").map { node throws(InputFileError) in try natPolicy(node.named("'nat'")) }
        let events =
            try top.value("timeline").map { node throws(InputFileError) in
                try timeline(node.named("the timeline"), networkNames: networkNames)
            } ?? Timeline()
        return Profile(
            name: name, description: description, networks: networks, start: start, nat: nat, timeline: events)
    }

    private func networks(_ node: YAMLNode) throws(InputFileError) -> [Network] {
        let mapping = try node.mapping()
        guard !mapping.entries.isEmpty else { throw node.error("the profile needs at least one network in 'networks'") }
        var networks: [Network] = []
        for entry in mapping.entries {
            networks.append(try network(named: entry.key, entry.value.named("network '\(entry.key)'")))
        }
        return networks
    }

    private func network(named name: String, _ node: YAMLNode) throws(InputFileError) -> Network {
        let mapping = try node.mapping(keys: ["radio", "link"])
        let radio = try radio(mapping.required("radio").named("the radio of network '\(name)'"))
        let link =
            try mapping.value("link").map { node throws(InputFileError) in
                try linkChanges(node, owner: "network '\(name)'")
            } ?? (up: LinkChange(), down: LinkChange())
        return Network(
            name: name, radio: radio, up: link.up.applied(to: LinkParameters()),
            down: link.down.applied(to: LinkParameters()))
    }

    /// A value naming one of the profile's networks (`start`, a handover's `to`, a `set`'s
    /// `network`).
    func networkName(_ node: YAMLNode, among names: [String]) throws(InputFileError) -> String {
        let name = try node.string()
        guard names.contains(name) else {
            throw node.error(
                "\(node.place): no network named '\(name)'\(NameSuggestion.hint(for: name, among: names))"
                    + " (networks: \(names.joined(separator: ", ")))")
        }
        return name
    }

    private func natPolicy(_ node: YAMLNode) throws(InputFileError) -> NATPolicy {
        let mapping = try node.mapping(keys: ["idleTimeout", "mode", "udpIdleTimeout"])
        let idleTimeout = try mapping.value("idleTimeout").map { (node) throws(InputFileError) in try positiveDuration(node) }
        let udpIdleTimeout = try mapping.value("udpIdleTimeout").map { (node) throws(InputFileError) in try positiveDuration(node) }
        guard idleTimeout != nil || udpIdleTimeout != nil else {
            throw node.error("\(node.place) needs 'idleTimeout' (TCP mappings), 'udpIdleTimeout' (UDP mappings) or both")
        }
        let mode = try mapping.value("mode")?.choice(NATPolicy.ExpiryMode.self) ?? .silent
        return NATPolicy(idleTimeout: idleTimeout, mode: mode, udpIdleTimeout: udpIdleTimeout)
    }

    func duration(_ node: YAMLNode) throws(InputFileError) -> Double {
        try node.quantity(Quantity.duration, unitExample: "ms")
    }

    /// A duration for which zero means nothing (an outage, a cycle, a period).
    func positiveDuration(_ node: YAMLNode) throws(InputFileError) -> Double {
        let value = try duration(node)
        guard value > 0 else { throw node.error("\(node.place) must be longer than zero") }
        return value
    }
}
