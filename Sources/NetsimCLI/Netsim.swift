import ArgumentParser
import Foundation
import NetsimCore

/// The `netsim` root command. Each subcommand lives in its own file.
public struct Netsim: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "netsim",
        abstract: "Emulate mobile networks and their radios, and compare protocols over them.",
        discussion: """
            netsim runs a userspace TCP proxy that behaves like a phone on a cellular or WiFi
            network (latency, bandwidth, loss, outages, handovers, NAT timeouts and the radio's
            RRC states), and estimates the radio's wake time and energy.
            """,
        version: NetsimVersion.current,
        subcommands: [
            RunCommand.self, BenchCommand.self, TuneCommand.self, ReportCommand.self, ProfilesCommand.self, AnalyzeCommand.self,
            FidelityCommand.self,
        ]
    )

    public init() {}

    /// Runs the command. A write beyond the file-size limit (`ulimit -f`) then fails with
    /// `EFBIG`, which netsim reports like a full disk (what was lost, a non-zero exit), instead
    /// of SIGXFSZ killing the process with its reports half written.
    public static func main() async {
        #if os(Linux)
        // netsim started as the supervisor of a wrapped command runs nothing else.
        CommandSupervisor.runIfAsked()
        #endif
        signal(SIGXFSZ, SIG_IGN)
        await main(nil)
    }
}
