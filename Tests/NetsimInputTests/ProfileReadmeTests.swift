import Foundation
import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@Suite("profiles/README.md", .computes)
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

    /// The row of a named radio in the README's table of measured phones.
    static func namedRadioRow(_ name: String, _ parameters: RadioParameters) -> String {
        let duration = Quantity.formatDuration
        let power = Quantity.formatPower
        func perMbps(_ value: Double) -> String { "\(Quantity.trimmed(value * 1000))mW/Mbps" }
        let cells: [String]
        switch parameters {
        case .lte(let p):
            cells = [
                "lte", duration(p.inactivityTimer + p.shortDRXTime + p.longDRXTime), duration(p.longDRXCycle), duration(p.promotionTime),
                duration(p.pagingCycle), power(p.beta), perMbps(p.alphaDown), perMbps(p.alphaUp), power(p.tailPower), "none",
            ]
        case .nr(let p):
            let tail = duration(p.connectedTail) + (p.standalone ? ", then INACTIVE to \(duration(p.connectedTail + p.inactiveTail))" : "")
            cells = [
                p.standalone ? "nr-sa" : "nr-nsa", tail, duration(p.drxCycle), duration(p.promotionTime), duration(p.pagingCycle),
                power(p.beta), perMbps(p.alphaDown), perMbps(p.alphaUp), power(p.tailPower),
                p.rsrpSlope == 0 ? "none" : "\(Quantity.trimmed(p.rsrpSlope * 1000))mW/dB",
            ]
        default:
            cells = []
        }
        return "| `\(name)` | " + cells.joined(separator: " | ") + " |"
    }

    @Test("lists every named radio with its fitted figures", arguments: RadioCatalog.builtinNames)
    func namedRadioRows(name: String) throws {
        let readme = try String(contentsOfFile: packageRoot + "/profiles/README.md", encoding: .utf8)
        let radio = try #require(try RadioCatalog.builtin(named: name))
        let row = Self.namedRadioRow(name, radio.parameters)
        #expect(readme.contains(row), "profiles/README.md should have this row for \(name):\n\(row)")
    }

    @Test("mentions every built-in profile", arguments: ProfileCatalog.builtinNames)
    func builtinsListed(name: String) throws {
        let readme = try String(contentsOfFile: packageRoot + "/profiles/README.md", encoding: .utf8)
        #expect(readme.contains("| `\(name)` |"))
    }
}
