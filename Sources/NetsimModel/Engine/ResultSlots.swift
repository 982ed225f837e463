import Synchronization

/// Results written by parallel workers, each into its own slot, read once all are done.
final class ResultSlots<Value: Sendable>: Sendable {
    private let slots: Mutex<[Value?]>

    init(count: Int) {
        slots = Mutex(Array(repeating: nil, count: count))
    }

    func set(_ index: Int, _ value: Value) {
        slots.withLock { $0[index] = value }
    }

    /// Every slot, in order; call once every worker has written its own.
    func values() -> [Value] {
        slots.withLock { $0.map { $0! } }
    }
}
