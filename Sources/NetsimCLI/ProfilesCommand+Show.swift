import ArgumentParser
import Foundation
import NetsimCore
import NetsimInput

extension ProfilesCommand {
    /// `netsim profiles show NAME`: everything a profile sets, defaults included.
    public struct Show: ParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: "Show a profile: every network's radio parameters and links, the NAT and the timeline."
        )

        @Argument(help: "A profile name (./profiles/NAME.yaml, else built-in) or a path to a profile file.")
        var profile: String

        @Flag(help: "Print the profile's YAML as written instead, e.g. to copy a built-in into ./profiles and edit it.")
        var yaml = false

        public init() {}

        /// A profile that cannot be found or read exits with status 2, as for `run`.
        public func run() throws {
            do {
                let source = try ProfileCatalog.locate(profile, workingDirectory: FileManager.default.currentDirectoryPath)
                if yaml {
                    print(try ProfileCatalog.text(of: source), terminator: "")
                } else {
                    print(Self.render(try ProfileCatalog.load(source), source: source))
                }
            } catch {
                printError("\(error)")
                throw ExitCode(2)
            }
        }

        static func render(_ profile: Profile, source: ProfileSource) -> String {
            var lines = ["\(profile.name) (\(source.displayName))"]
            lines += wrapped(profile.description, width: 92, indent: "  ")
            for network in profile.networks {
                lines.append("")
                lines.append("Network \(network.name)\(network.name == profile.start ? " (the device starts here)" : "")")
                lines.append("  radio: \(network.radio.technology.rawValue)")
                let fields = network.radio.formattedFields
                let keyWidth = fields.map(\.key.count).max() ?? 0
                for field in fields {
                    lines.append("    \(field.key.padded(to: keyWidth + 2))\(field.value)")
                }
                lines.append("  link up:    \(network.up.summary)")
                lines.append("  link down:  \(network.down.summary)")
            }
            lines.append("")
            if let nat = profile.nat {
                if let timeout = nat.idleTimeout {
                    lines.append("NAT: TCP mappings expire after \(Quantity.formatDuration(timeout)) idle, \(nat.mode.rawValue)")
                } else {
                    lines.append("NAT: TCP mappings never expire")
                }
                if let timeout = nat.udpIdleTimeout {
                    lines.append("     UDP mappings expire after \(Quantity.formatDuration(timeout)) idle")
                }
            } else {
                lines.append("NAT: none (idle connections never expire)")
            }
            lines.append("")
            lines += timeline(profile.timeline)
            return lines.joined(separator: "\n")
        }

        private static func timeline(_ timeline: Timeline) -> [String] {
            guard !timeline.events.isEmpty else { return ["Timeline: none"] }
            var lines = ["Timeline (time from the start of the run):"]
            if let period = timeline.repeatPeriod {
                lines[0] = "Timeline (repeats every \(Quantity.formatDuration(period)); times within each repetition):"
            }
            let times = timeline.events.map { event in
                event.connectivityGap > 0
                    ? "\(clock(event.at))-\(clock(event.at + event.connectivityGap))" : clock(event.at)
            }
            let width = times.map(\.count).max() ?? 0
            for (time, event) in zip(times, timeline.events) {
                lines.append("  \(time.padded(to: width + 2))\(event.summary)")
            }
            return lines
        }

        /// Seconds as "m:ss", with milliseconds when there are any ("1:05.25").
        static func clock(_ seconds: Double) -> String {
            let milliseconds = Int((seconds * 1000).rounded())
            let wholeSeconds = milliseconds / 1000
            let clock = "\(wholeSeconds / 60):" + (wholeSeconds % 60 < 10 ? "0" : "") + "\(wholeSeconds % 60)"
            let fraction = milliseconds % 1000
            guard fraction > 0 else { return clock }
            var digits = String(1000 + fraction).dropFirst()
            while digits.hasSuffix("0") { digits = digits.dropLast() }
            return "\(clock).\(digits)"
        }

        /// Text broken into lines of at most `width` characters (a longer word gets a line of its own).
        private static func wrapped(_ text: String, width: Int, indent: String) -> [String] {
            var lines: [String] = []
            var line = ""
            for word in text.split(whereSeparator: \.isWhitespace) {
                if !line.isEmpty, indent.count + line.count + 1 + word.count > width {
                    lines.append(indent + line)
                    line = ""
                }
                line += (line.isEmpty ? "" : " ") + word
            }
            if !line.isEmpty { lines.append(indent + line) }
            return lines
        }
    }
}
