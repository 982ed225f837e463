import Foundation
import NetsimCore
import NetsimInput
import Testing

@Suite("profiles/README.md")
struct ProfileReadmeTests {
    /// The Markdown table of a radio model's parameters and defaults, as the README shows it.
    static func parameterTable(_ technology: RadioTechnology) -> String {
        let rows = RadioParameters.defaults(for: technology).formattedFields.map { "| `\($0.key)` | \($0.value) |" }
        return (["| parameter | default |", "|---|---|"] + rows).joined(separator: "\n")
    }

    @Test(
        "lists every radio model's parameters with the current defaults",
        arguments: RadioTechnology.allCases.filter { $0 != .none })
    func parameterTables(technology: RadioTechnology) throws {
        let readme = try String(contentsOfFile: packageRoot + "/profiles/README.md", encoding: .utf8)
        let table = Self.parameterTable(technology)
        #expect(readme.contains(table), "profiles/README.md should have this table for \(technology.rawValue):\n\(table)")
    }

    @Test("mentions every built-in profile", arguments: ProfileCatalog.builtinNames)
    func builtinsListed(name: String) throws {
        let readme = try String(contentsOfFile: packageRoot + "/profiles/README.md", encoding: .utf8)
        #expect(readme.contains("| `\(name)` |"))
    }
}
