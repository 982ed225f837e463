import ArgumentParser

/// `netsim profiles`: tools for the profile format (schema in profiles/README.md). The
/// subcommands are in `ProfilesCommand+List.swift`, `+Show.swift` and `+Validate.swift`.
public struct ProfilesCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "profiles",
        abstract: "List, show, validate network profiles, and fit a radio to measurements.",
        discussion: """
            A profile describes a device's networks (a radio and a link per direction), its \
            carrier NAT and a timeline of outages, handovers and link changes. A NAME means \
            ./profiles/NAME.yaml if that file exists, else the built-in profile NAME; an \
            argument containing "/" or ending in .yaml or .yml is a file. The schema is in \
            profiles/README.md.
            """,
        subcommands: [List.self, Show.self, Validate.self, Fit.self]
    )

    public init() {}
}

extension String {
    /// The text followed by spaces up to `width` characters, for aligned columns.
    func padded(to width: Int) -> String {
        padding(toLength: max(width, count), withPad: " ", startingAt: 0)
    }
}
