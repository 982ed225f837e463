import ArgumentParser
import Foundation
import NetsimCore
import NetsimInput
import NetsimReport

extension ProfilesCommand {
    /// `netsim profiles list`: every profile a NAME can mean here, one line each.
    public struct List: ParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: "List the built-in profiles and those in ./profiles, one line each.",
            discussion: "Rates and delay are those of the network the device starts on; DELAY is one way."
        )

        public init() {}

        public func run() {
            print(Self.table(workingDirectory: FileManager.default.currentDirectoryPath))
        }

        /// The listing: built-ins and ./profiles, a local file shadowing a built-in of its name.
        static func table(workingDirectory: String) -> String {
            let names = Set(ProfileCatalog.builtinNames + ProfileCatalog.localNames(workingDirectory: workingDirectory))
            var rows = [["NAME", "RADIO", "DOWN / UP", "DELAY", "TIMELINE", "NAT", "SOURCE"]]
            for name in names.sorted() {
                do {
                    let source = try ProfileCatalog.locate(name, workingDirectory: workingDirectory)
                    rows.append(row(name: name, profile: try ProfileCatalog.load(source), source: source))
                } catch {
                    rows.append([name, "invalid: \(error)"])
                }
            }
            return TextTable(header: rows[0], rows: Array(rows.dropFirst())).rendered(indent: "")
        }

        static func row(name: String, profile: Profile, source: ProfileSource) -> [String] {
            let radios = profile.networks.map(\.radio.technology.rawValue).reduce(into: [String]()) { unique, radio in
                if !unique.contains(radio) { unique.append(radio) }
            }
            let start = profile.network(named: profile.start) ?? profile.networks[0]
            let delay =
                start.down.delay == start.up.delay
                ? Quantity.formatDuration(start.down.delay)
                : "\(Quantity.formatDuration(start.down.delay)) / \(Quantity.formatDuration(start.up.delay))"
            let events = profile.timeline.events.count
            var timeline = events == 0 ? "-" : "\(events) event\(events == 1 ? "" : "s")"
            if let period = profile.timeline.repeatPeriod { timeline += ", every \(Quantity.formatDuration(period))" }
            let nat = profile.nat.map(\.summary) ?? "-"
            return [
                name, radios.joined(separator: "+"),
                "\(start.down.capacity.shortSummary) / \(start.up.capacity.shortSummary)", delay, timeline, nat,
                source.displayName,
            ]
        }
    }
}
