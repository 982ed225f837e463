import Foundation
import NetsimCore

/// Why the parts of a sharded run cannot be merged, naming the files: one vocabulary for a
/// bench's parts and a keepalive sweep's.
public enum ShardMergeProblem: Error, Equatable, CustomStringConvertible {
    /// `source` is not a part of a sharded `run` (`bench`, `keepalive sweep`).
    case notAShard(String, run: String)
    case otherLayout(String, Int, merged: Int)
    /// `source` is not JSON: the reason says where.
    case notJSON(String, reason: String)
    /// The value at `key` of `source` cannot be read as the part's field.
    case unreadable(String, key: String, reason: String)
    /// A figure at `key` of `source` is out of range (`ShardFigures`).
    case outOfRange(String, key: String, reason: String)
    case noParts
    case otherRun(String, field: String, first: String)
    case duplicated(Shard, String, String)
    /// The shard indices missing of `count`, in order.
    case missing([Int], count: Int)
    case stopped(String, Shard)
    /// `source` does not hold the `items` (devices of a transport, scenarios) its shard plays.
    case wrongItems(String, Shard, items: String)

    /// Indices in order as runs: `3-9, 12`.
    static func ranges(_ indices: [Int]) -> String {
        var runs: [ClosedRange<Int>] = []
        for index in indices {
            if let last = runs.last, last.upperBound + 1 == index {
                runs[runs.count - 1] = last.lowerBound...index
            } else {
                runs.append(index...index)
            }
        }
        return runs.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ", ")
    }

    public var description: String {
        switch self {
        case .notAShard(let source, let run): "\(source) is not a part of a sharded \(run)"
        case .otherLayout(let source, let layout, let merged):
            "\(source) is a part of layout \(layout); this netsim merges layout \(merged): merge with the netsim that wrote it"
        case .notJSON(let source, let reason): "\(source) is not JSON: \(reason)"
        case .unreadable(let source, let key, let reason): "\(source) cannot be read as a part: \(key): \(reason)"
        case .outOfRange(let source, let key, let reason): "\(source): \(key) is out of range: \(reason)"
        case .noParts: "no parts to merge"
        case .otherRun(let source, let field, let first): "\(source) is a part of another run than \(first): its \(field) differs"
        case .duplicated(let shard, let first, let second): "shard \(shard) is given twice: \(first) and \(second)"
        case .missing(let indices, let count):
            "missing shard(s) \(Self.ranges(indices)) of \(count) (numbered 0 to \(count - 1)): a merge needs every part of the run"
        case .stopped(let source, let shard):
            "\(source) (shard \(shard)) was stopped before it had played its part: run that shard again"
        case .wrongItems(let source, let shard, let items): "\(source) does not hold the \(items) shard \(shard) plays"
        }
    }
}

/// A part's file and the checks every merge makes: JSON with infinities as strings (a radio's
/// last stage lasts for ever), its `kind` and `layout` read before the rest, and the parts of
/// one run each given once.
public enum ShardParts {
    public static func json(_ part: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return try encoder.encode(part)
    }

    /// Reads a value `json` wrote (infinities as strings), with no part's checks: `decode`
    /// reads a whole part with it.
    public static func value<Value: Decodable>(_ type: Value.Type, fromJSON data: Data) throws -> Value {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return try decoder.decode(type, from: data)
    }

    /// What a part says it is (its `kind`), read before the rest; nil for other JSON.
    public static func kind(of data: Data) -> String? {
        header(of: data)?.kind
    }

    private static func header(of data: Data) -> PartHeader? {
        try? JSONDecoder().decode(PartHeader.self, from: data)
    }

    /// The parts as `json` wrote them, once each is JSON, its `kind` says it is one of `run`,
    /// its `layout` is this netsim's and the numbers under its `figures` keys are in range
    /// across all of them (`ShardFigures`); `source` names each in errors.
    public static func decode<Part: Decodable>(
        _ type: Part.Type, from files: [(source: String, data: Data)], kind: String, layout: Int, run: String, figures: Set<String>
    ) throws(ShardMergeProblem) -> [(source: String, part: Part)] {
        var totals = ShardFigures()
        var parts: [(source: String, part: Part)] = []
        for (source, data) in files {
            let tree: ReportTree
            do {
                tree = try ReportTree(json: data)
            } catch {
                // JSONSerialization says where the text stops being JSON (line and column).
                throw .notJSON(source, reason: (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)")
            }
            guard let header = header(of: data), header.kind == kind else {
                throw .notAShard(source, run: run)
            }
            guard header.layout == layout else { throw .otherLayout(source, header.layout ?? 0, merged: layout) }
            if let (key, number) = ShardFigures.beyondAnyCount(tree) {
                throw .outOfRange(source, key: key, reason: "\(number) is beyond any count or time a part holds (±2^64)")
            }
            try totals.add(tree, keys: figures, source: source)
            do {
                parts.append((source, try value(Part.self, fromJSON: data)))
            } catch {
                throw problem(error, source: source)
            }
        }
        return parts
    }

    /// What a decoder's error says, as a merge tells it: the key (`fleets.grpc.devices[0].share`)
    /// and the reason, or where the text stops being JSON.
    private static func problem(_ error: any Error, source: String) -> ShardMergeProblem {
        guard let error = error as? DecodingError else { return .unreadable(source, key: "the part", reason: "\(error)") }
        let (path, reason): ([any CodingKey], String) =
            switch error {
            case .typeMismatch(let type, let context): (context.codingPath, "not a \(type): \(context.debugDescription)")
            case .valueNotFound(let type, let context): (context.codingPath, "no \(type): \(context.debugDescription)")
            case .keyNotFound(let key, let context): (context.codingPath + [key], "missing")
            case .dataCorrupted(let context):
                (
                    context.codingPath,
                    [context.debugDescription, context.underlyingError.map { "\($0)" }].compactMap { $0 }.joined(separator: " ")
                )
            @unknown default: ([], "\(error)")
            }
        if path.isEmpty, case .dataCorrupted = error { return .notJSON(source, reason: reason) }
        let key = path.reduce("") { key, next in
            next.intValue.map { "\(key)[\($0)]" } ?? (key.isEmpty ? next.stringValue : "\(key).\(next.stringValue)")
        }
        return .unreadable(source, key: key.isEmpty ? "the part" : key, reason: reason)
    }

    /// The parts in shard order, once it is certain each shard of the first part's count is
    /// given exactly once (`shard` says which a part is).
    public static func inOrder<Part>(
        _ parts: [(source: String, part: Part)], shard: (Part) -> Shard
    ) throws(ShardMergeProblem) -> [(source: String, part: Part)] {
        guard let first = parts.first else { throw .noParts }
        var byIndex: [Int: (source: String, part: Part)] = [:]
        for part in parts {
            let index = shard(part.part).index
            if let earlier = byIndex[index] { throw .duplicated(shard(part.part), earlier.source, part.source) }
            byIndex[index] = part
        }
        let count = shard(first.part).count
        let missing = (0..<count).filter { byIndex[$0] == nil }
        if !missing.isEmpty { throw .missing(missing, count: count) }
        return (0..<count).compactMap { byIndex[$0] }
    }
}

/// What every part's file starts with: what it is, in which layout.
private struct PartHeader: Decodable {
    var kind: String?
    var layout: Int?
}
