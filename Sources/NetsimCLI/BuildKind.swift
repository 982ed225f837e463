/// Whether this binary was built without optimization. The model engine and the keepalive
/// tuner run about 50 times slower in a debug build (a day of 100 phones: 164.5 s against
/// 3.2 s), so a user who runs `.build/debug/netsim` hears it before waiting; the live proxy and
/// the live bench, which wait on real time, run the same in both.
enum BuildKind {
    #if DEBUG
    static let isDebug = true
    #else
    static let isDebug = false
    #endif

    /// Says on standard error that `what` is about to run in a debug build; nothing in release.
    static func noteIfDebug(_ what: String) {
        guard isDebug else { return }
        printError(
            "note: this netsim is a debug build: \(what) runs about 50 times slower than in a release build"
                + " (swift build -c release --product netsim, then .build/release/netsim)")
    }
}
