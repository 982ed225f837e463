import Foundation

/// A report that cannot be read, or is not what its kind needs: exit status 1, not a usage error.
public struct UnreadableReport: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// A report read back from its file, with the schema of its kind. Which kinds there are is the
/// caller's: the bench's and the tuner's schemas live with their reports, above this module.
public struct SavedReport {
    public let path: String
    public let json: Data
    public let tree: ReportTree
    public let schema: ReportSchema

    public init(_ path: String, kind: (ReportTree) -> ReportSchema?) throws {
        guard let json = FileManager.default.contents(atPath: path) else { throw UnreadableReport(description: "cannot read \(path)") }
        guard let tree = try? ReportTree(json: json) else {
            throw UnreadableReport(description: "\(path) is not JSON")
        }
        guard let schema = kind(tree) else {
            throw UnreadableReport(
                description: "\(path) is not a report of netsim bench, run or tune (no 'transports', 'connections' or 'configs')")
        }
        self.path = path
        self.json = json
        self.tree = tree
        self.schema = schema
    }

    /// The report as its Swift type; a key its kind needs and it lacks is named.
    public func decode<Report: Decodable>(_ type: Report.Type) throws -> Report {
        do {
            return try JSONDecoder().decode(type, from: json)
        } catch let error as DecodingError {
            throw UnreadableReport(description: "\(path) is not a complete \(schema.name): \(Self.problem(error))")
        }
    }

    /// Where a report's JSON fails its kind, as a person reads it: the key and what is wrong.
    public static func problem(_ error: DecodingError) -> String {
        let path = { (codingPath: [any CodingKey]) in
            codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "no '\(path(context.codingPath + [key]))'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "'\(path(context.codingPath))': \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
