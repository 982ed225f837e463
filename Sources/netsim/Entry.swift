import ArgumentParser
import NetsimCLI

/// The executable is only the entry point; the commands live in `NetsimCLI`.
@main extension Netsim {}
