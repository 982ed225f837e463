import Foundation

/// Where the test material is: the repository's synthetic trace and the real ones shared beside
/// the repository, for the link tests and the built-in profiles' tests.
public enum TestPaths {
    /// The package root, found from this file's path.
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    /// The `netsim` binary `swift build` made beside the test executable, in the tests' own
    /// configuration (debug, or release where scripts/test.sh builds them), for what only a
    /// process of its own can show.
    public static let builtNetsim = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("netsim").path
    /// The material shared beside the repository (../shared); never copied into it.
    /// `NETSIM_SHARED_DIRECTORY` names another place (one that does not exist skips the tests
    /// that need it, as on a machine without it).
    public static let shared =
        ProcessInfo.processInfo.environment["NETSIM_SHARED_DIRECTORY"]
        ?? URL(fileURLWithPath: packageRoot).deletingLastPathComponent().appendingPathComponent("shared").path
    /// Real cellular traces (mahimahi's Saturator recordings).
    public static let traces = shared + "/traces"
    /// Whether the real traces are here: the trace tests add them to the synthetic drive's runs
    /// when they are, and fail if the directory is here but a trace in it is not.
    public static let tracesArePresent = FileManager.default.fileExists(atPath: traces)
    /// The synthetic drive the built-in `lte-trace` plays (scripts/make-synthetic-trace.py), in
    /// the repository, so the trace tests run on every clone.
    public static let syntheticTrace = packageRoot + "/profiles/traces/synthetic-lte-drive"
    /// The trace files the link tests play: the synthetic drive always, and three real
    /// recordings (the longest, a driving uplink, a 3G one) where ../shared/traces is here.
    public static let traceFiles =
        [syntheticTrace + ".down", syntheticTrace + ".up"]
        + (tracesArePresent
            ? ["Verizon-LTE-short.down", "ATT-LTE-driving-2016.up", "TMobile-UMTS-driving.down"].map { traces + "/" + $0 } : [])
    /// Each trace with the mean rate its source gives, in Mbit/s, and how close it must come.
    public static let traceMeanRates: [(String, Double, Double)] =
        [(syntheticTrace + ".down", 4.388, 1e-9), (syntheticTrace + ".up", 1.0968, 1e-9)]
        + (tracesArePresent ? [(traces + "/Verizon-LTE-short.down", 5.0, 0.5)] : [])
}
