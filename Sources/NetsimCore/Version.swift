/// netsim's version, printed by `netsim --version` and written into reports.
public enum NetsimVersion {
    public static let current = "0.1.0"
}
