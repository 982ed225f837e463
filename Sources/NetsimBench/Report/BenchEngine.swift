/// Which engine played a bench: `netsim bench --engine` and the report's `engine` key, by the
/// same names.
public enum BenchEngine: String, Sendable, Codable, CaseIterable {
    /// Real clients and servers through real proxies, in real time.
    case live
    /// The model engine: the same profiles, models and workload in virtual time
    /// (docs/model-engine.md).
    case model
}
