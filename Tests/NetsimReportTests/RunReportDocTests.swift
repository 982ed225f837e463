import Foundation
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimReport

/// docs/run-report.md's key table against the report `netsim run` writes: every key it names
/// is in the report, and the keys it names inside a per-direction object are that object's.
@Suite(.computes) struct RunReportDocTests {
    static let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/run-report.md")

    /// The key paths of the table's first column: `a.b` / `c` names `a.b` and `a.c`.
    static func documentedKeys() throws -> [[String]] {
        let text = try String(contentsOf: page, encoding: .utf8)
        var keys: [[String]] = []
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cell = line.dropFirst(2).prefix { $0 != "|" }
            var previous: [String] = []
            for name in cell.split(separator: "/").map({ $0.trimmingCharacters(in: .whitespaces) }) where name.hasPrefix("`") {
                let path = name.trimmingCharacters(in: CharacterSet(charactersIn: "`")).split(separator: ".").map(String.init)
                let key = path.count == 1 && !previous.isEmpty ? previous.dropLast() + path : path
                keys.append(key)
                previous = key
            }
        }
        return keys
    }

    @Test func everyDocumentedKeyIsInTheReport() throws {
        let keys = try Self.documentedKeys()
        #expect(keys.count > 15)
        let sample = ReportSchema.run.sample
        // Lists of objects (the radio's timeline and per-radio shares, the gates) are not
        // figures a gate can name; the sample has none of them.
        for key in keys where !["timeline", "heldAtEnd", "byRadio", "gates"].contains(key.last) {
            #expect(sample.node(at: key) != nil, "docs/run-report.md names \(key.joined(separator: ".")), absent from the report")
        }
    }

    /// The doc said `chunks` where the report said `bursts`.
    @Test func theSegmentsRowNamesTheKeysOfEachDirection() throws {
        let text = try String(contentsOf: Self.page, encoding: .utf8)
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| `segments.up`") })
        let meaning = row.split(separator: "|")[1]
        let named = Set(
            meaning.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
                String($0.element)
            })
        guard case .object(let members) = ReportSchema.run.sample.node(at: ["segments", "up"]) else {
            Issue.record("no segments.up object in the report")
            return
        }
        #expect(named == Set(members.keys))
    }
}
