import Foundation
import NetsimCore
import Yams

/// Why a workload or client file was refused: the file, the key path and what was expected.
public struct SettingsError: Error, Equatable, CustomStringConvertible {
    public let source: String
    public let message: String

    public init(source: String, message: String) {
        self.source = source
        self.message = message
    }

    public var description: String { "\(source): \(message)" }
}

/// One YAML mapping of a settings file, read key by key. Every reader states the keys it
/// accepts, so a misspelt key is an error that names it instead of a silently ignored setting,
/// and every value error carries the key's full path (`grpc.keepalive.time`).
struct SettingsMapping {
    let source: String
    let path: String
    private let values: [String: Any]

    /// Parses a whole file; an empty file is an empty mapping (every setting at its default).
    init(yaml: String, source: String) throws(SettingsError) {
        let document: Any?
        do {
            document = try Yams.load(yaml: yaml)
        } catch {
            throw SettingsError(source: source, message: "not valid YAML: \(error)")
        }
        guard let document else {
            self.init(source: source, path: "", values: [:])
            return
        }
        guard let values = document as? [String: Any] else {
            throw SettingsError(source: source, message: "the top level must be a mapping of keys to values")
        }
        self.init(source: source, path: "", values: values)
    }

    private init(source: String, path: String, values: [String: Any]) {
        self.source = source
        self.path = path
        self.values = values
    }

    /// Refuses any key outside `allowed`.
    func allowOnly(_ allowed: [String]) throws(SettingsError) {
        for key in values.keys.sorted() where !allowed.contains(key) {
            throw error("unknown key '\(qualified(key))' (known here: \(allowed.joined(separator: ", ")))")
        }
    }

    func mapping(_ key: String) throws(SettingsError) -> SettingsMapping? {
        guard let value = values[key] else { return nil }
        guard let nested = value as? [String: Any] else { throw error("'\(qualified(key))' must be a mapping") }
        return SettingsMapping(source: source, path: qualified(key), values: nested)
    }

    /// A duration such as `500ms`, `30s` or `2m`; a bare number is seconds.
    func duration(_ key: String) throws(SettingsError) -> Double? {
        guard let value = values[key] else { return nil }
        let seconds: Double
        if let number = Self.number(value) {
            seconds = number
        } else if let text = value as? String {
            do { seconds = try Quantity.duration(text) } catch { throw self.error("'\(qualified(key))': \(error)") }
        } else {
            throw error("'\(qualified(key))' must be a duration such as 500ms or 30s")
        }
        guard seconds > 0, seconds.isFinite else { throw error("'\(qualified(key))' must be above zero") }
        return seconds
    }

    /// A duration, or `none` for no limit (returned as `.some(nil)`).
    func optionalDuration(_ key: String) throws(SettingsError) -> Double?? {
        if let text = values[key] as? String, text == "none" { return .some(nil) }
        return try duration(key).map { .some($0) }
    }

    /// A size such as `256B` or `1KiB`; a bare number is bytes.
    func byteCount(_ key: String) throws(SettingsError) -> Int? {
        guard let value = values[key] else { return nil }
        if let number = value as? Int, number > 0 { return number }
        guard let text = value as? String else { throw error("'\(qualified(key))' must be a size such as 256B") }
        do { return try Quantity.byteCount(text) } catch { throw self.error("'\(qualified(key))': \(error)") }
    }

    func number(_ key: String, in range: ClosedRange<Double>) throws(SettingsError) -> Double? {
        guard let value = values[key] else { return nil }
        guard let number = Self.number(value), range.contains(number) else {
            throw error("'\(qualified(key))' must be a number from \(Quantity.trimmed(range.lowerBound)) to \(Quantity.trimmed(range.upperBound))")
        }
        return number
    }

    func count(_ key: String, in range: ClosedRange<Int>) throws(SettingsError) -> Int? {
        guard let value = values[key] else { return nil }
        guard let number = value as? Int, range.contains(number) else {
            throw error("'\(qualified(key))' must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    func flag(_ key: String) throws(SettingsError) -> Bool? {
        guard let value = values[key] else { return nil }
        guard let flag = value as? Bool else { throw error("'\(qualified(key))' must be true or false") }
        return flag
    }

    private func qualified(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    private func error(_ message: String) -> SettingsError { SettingsError(source: source, message: message) }

    private static func number(_ value: Any) -> Double? {
        if let integer = value as? Int { return Double(integer) }
        return value as? Double
    }
}
