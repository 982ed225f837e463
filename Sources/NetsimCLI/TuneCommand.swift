import ArgumentParser

/// `netsim tune`: recommendations from sweeps of the model engine.
public struct TuneCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "tune",
        abstract: "Recommend settings from sweeps of the model engine.",
        subcommands: [TuneKeepaliveCommand.self]
    )

    public init() {}
}
