import Foundation
import Testing

/// docs/swift-api.md quotes EmulatedPhoneExample.swift whole: the example in the docs is the
/// one CI compiles and runs.
@Test("docs/swift-api.md's example is EmulatedPhoneExample.swift, character for character")
func documentedExampleIsTheTest() throws {
    let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    let example = try String(contentsOf: here.appendingPathComponent("EmulatedPhoneExample.swift"), encoding: .utf8)
    let docs = try String(
        contentsOf: here.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/swift-api.md"),
        encoding: .utf8)
    let opening = "<!-- Tests/NetsimTestingTests/EmulatedPhoneExample.swift -->\n```swift\n"
    let start = try #require(docs.range(of: opening), "docs/swift-api.md should mark the example with \(opening)")
    let end = try #require(docs.range(of: "\n```\n", range: start.upperBound..<docs.endIndex))
    #expect(String(docs[start.upperBound..<end.lowerBound]) + "\n" == example)
}
