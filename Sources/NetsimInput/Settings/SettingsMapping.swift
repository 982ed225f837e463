import Foundation
import NetsimCore
import Yams

/// One YAML mapping of a workload, client or server-policy file, read key by key through the
/// same reader as profiles (`YAMLNode`), so every error starts with FILE:LINE:COLUMN. Every
/// reader states the keys it accepts, so a misspelt key is an error that names it (and the
/// nearest valid key) instead of a silently ignored setting, and every value error carries the
/// key's full path (`grpc.keepalive.time`).
struct SettingsMapping {
    /// The mapping's key path in the file (`grpc.keepalive`); empty at the top level.
    let path: String
    private let entries: [YAMLMapping.Entry]

    /// Parses a whole file; an empty file is an empty mapping (every setting at its default).
    init(yaml: String, source: String) throws(InputFileError) {
        guard let root = try YAMLNode.compose(yaml: yaml, file: source, describedAs: "the file") else {
            self.init(path: "", entries: [])
            return
        }
        guard case .mapping = root.node else { throw root.error("the top level must be a mapping of keys to values") }
        self.init(path: "", entries: try root.mapping().entries)
    }

    private init(path: String, entries: [YAMLMapping.Entry]) {
        self.path = path
        self.entries = entries
    }

    /// Refuses any key outside `allowed`, at the key, with the nearest allowed one.
    func allowOnly(_ allowed: [String]) throws(InputFileError) {
        for entry in entries where !allowed.contains(entry.key) {
            throw entry.keyNode.error(
                "unknown key '\(qualified(entry.key))'\(NameSuggestion.hint(for: entry.key, among: allowed))"
                    + " (known here: \(allowed.joined(separator: ", ")))")
        }
    }

    func mapping(_ key: String) throws(InputFileError) -> SettingsMapping? {
        guard let value = value(key) else { return nil }
        guard case .mapping = value.node else { throw value.error("'\(qualified(key))' must be a mapping") }
        return SettingsMapping(path: qualified(key), entries: try value.mapping().entries)
    }

    /// A duration such as `500ms`, `30s` or `2m`; a bare number is seconds.
    func duration(_ key: String) throws(InputFileError) -> Double? {
        guard let value = value(key) else { return nil }
        let seconds: Double
        if let number = Self.number(value) {
            seconds = number
        } else if let text = Self.text(value) {
            do { seconds = try Quantity.duration(text) } catch { throw value.error("'\(qualified(key))': \(error)") }
        } else {
            throw value.error("'\(qualified(key))' must be a duration such as 500ms or 30s")
        }
        guard seconds > 0, seconds.isFinite else { throw value.error("'\(qualified(key))' must be above zero") }
        return seconds
    }

    /// A duration, or `none` for no limit (returned as `.some(nil)`).
    func optionalDuration(_ key: String) throws(InputFileError) -> Double?? {
        if let value = value(key), Self.text(value) == "none" { return .some(nil) }
        return try duration(key).map { .some($0) }
    }

    /// A size such as `256B` or `1KiB`; a bare number is bytes.
    func byteCount(_ key: String) throws(InputFileError) -> Int? {
        guard let value = value(key) else { return nil }
        if let number = Self.integer(value), number > 0 { return number }
        guard let text = Self.text(value) else { throw value.error("'\(qualified(key))' must be a size such as 256B") }
        do { return try Quantity.byteCount(text) } catch { throw value.error("'\(qualified(key))': \(error)") }
    }

    func number(_ key: String, in range: ClosedRange<Double>) throws(InputFileError) -> Double? {
        guard let value = value(key) else { return nil }
        guard let number = Self.number(value), range.contains(number) else {
            throw value.error(
                "'\(qualified(key))' must be a number from \(Quantity.trimmed(range.lowerBound)) to \(Quantity.trimmed(range.upperBound))")
        }
        return number
    }

    func count(_ key: String, in range: ClosedRange<Int>) throws(InputFileError) -> Int? {
        guard let value = value(key) else { return nil }
        guard let number = Self.integer(value), range.contains(number) else {
            throw value.error("'\(qualified(key))' must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    func flag(_ key: String) throws(InputFileError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard Self.type(value) == .bool, let flag = value.node.bool else {
            throw value.error("'\(qualified(key))' must be true or false")
        }
        return flag
    }

    /// One of `choices` (a word such as `naive`), named in the error when the value is another.
    func choice(_ key: String, among choices: [String]) throws(InputFileError) -> String? {
        guard let value = value(key) else { return nil }
        guard let word = Self.text(value), choices.contains(word) else {
            throw value.error("'\(qualified(key))' must be one of \(choices.joined(separator: ", "))")
        }
        return word
    }

    /// A rate per second such as `50/s` (or `500/s`); a bare number is per second.
    func rate(_ key: String) throws(InputFileError) -> Double? {
        guard let value = value(key) else { return nil }
        var perSecond = Self.number(value)
        if perSecond == nil, let text = Self.text(value), text.hasSuffix("/s") {
            perSecond = Double(text.dropLast(2).trimmingCharacters(in: .whitespaces))
        }
        guard let perSecond, perSecond > 0, perSecond.isFinite else {
            throw value.error("'\(qualified(key))' must be a rate above zero such as 50/s")
        }
        return perSecond
    }

    /// A whole number in `range`, or one of `words` (returned as text).
    func countOrWord(_ key: String, in range: ClosedRange<Int>, words: [String]) throws(InputFileError) -> Either<Int, String>? {
        guard let value = value(key) else { return nil }
        if let word = Self.text(value), words.contains(word) { return .word(word) }
        guard let number = Self.integer(value), range.contains(number) else {
            throw value.error(
                "'\(qualified(key))' must be a whole number from \(range.lowerBound) to \(range.upperBound), "
                    + words.joined(separator: " or "))
        }
        return .count(number)
    }

    /// An error located at `key`'s value (at the file's start if the key is absent).
    func error(at key: String, _ message: String) -> InputFileError {
        value(key)?.error(message) ?? InputFileError(file: "", line: 1, column: 1, message: message)
    }

    enum Either<Count, Word> {
        case count(Count)
        case word(Word)
    }

    private func value(_ key: String) -> YAMLNode? {
        entries.first { $0.key == key }?.value
    }

    private func qualified(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The type YAML resolves a value to (`30` a number, `'30'` and `30s` text), as Yams would
    /// construct it.
    private static func type(_ value: YAMLNode) -> Tag.Name {
        Resolver.default.resolveTag(of: value.node)
    }

    private static func integer(_ value: YAMLNode) -> Int? {
        type(value) == .int ? value.node.int : nil
    }

    private static func number(_ value: YAMLNode) -> Double? {
        switch type(value) {
        case .int: value.node.int.map(Double.init)
        case .float: value.node.float
        default: nil
        }
    }

    private static func text(_ value: YAMLNode) -> String? {
        guard case .scalar(let scalar) = value.node, type(value) == .str else { return nil }
        return scalar.string
    }
}
