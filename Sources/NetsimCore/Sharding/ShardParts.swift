import Foundation

/// Why the parts of a sharded run cannot be merged, naming the files: one vocabulary for a
/// bench's parts and a keepalive sweep's.
public enum ShardMergeProblem: Error, Equatable, CustomStringConvertible {
    /// `source` is not a part of a sharded `run` (`bench`, `keepalive sweep`).
    case notAShard(String, run: String)
    case otherLayout(String, Int, merged: Int)
    case unreadable(String, String)
    case noParts
    case otherRun(String, field: String, first: String)
    case duplicated(Shard, String, String)
    case missing([Shard])
    case stopped(String, Shard)
    /// `source` does not hold the `items` (devices of a transport, scenarios) its shard plays.
    case wrongItems(String, Shard, items: String)

    public var description: String {
        switch self {
        case .notAShard(let source, let run): "\(source) is not a part of a sharded \(run)"
        case .otherLayout(let source, let layout, let merged):
            "\(source) is a part of layout \(layout); this netsim merges layout \(merged): merge with the netsim that wrote it"
        case .unreadable(let source, let reason): "\(source) cannot be read as a part: \(reason)"
        case .noParts: "no parts to merge"
        case .otherRun(let source, let field, let first): "\(source) is a part of another run than \(first): its \(field) differs"
        case .duplicated(let shard, let first, let second): "shard \(shard) is given twice: \(first) and \(second)"
        case .missing(let shards):
            "shard(s) \(shards.map(\.description).joined(separator: ", ")) missing: a merge needs every part of the run"
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

    /// A part as `json` wrote it, once its `kind` says it is one of `run` and its `layout` is
    /// this netsim's; `source` names it in errors.
    public static func decode<Part: Decodable>(
        _ type: Part.Type, from data: Data, kind: String, layout: Int, run: String, source: String
    ) throws(ShardMergeProblem) -> Part {
        guard let header = header(of: data), header.kind == kind else {
            throw .notAShard(source, run: run)
        }
        guard header.layout == layout else { throw .otherLayout(source, header.layout ?? 0, merged: layout) }
        do {
            return try value(Part.self, fromJSON: data)
        } catch {
            throw .unreadable(source, String(describing: error))
        }
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
        if !missing.isEmpty { throw .missing(missing.compactMap { try? Shard(index: $0, count: count) }) }
        return (0..<count).compactMap { byIndex[$0] }
    }
}

/// What every part's file starts with: what it is, in which layout.
private struct PartHeader: Decodable {
    var kind: String?
    var layout: Int?
}
