import Synchronization

/// Results written by parallel workers, each into its own slot, read once all are done. The
/// model engine's batches and the keepalive tuner's sweep both fill one.
package final class ResultSlots<Value: Sendable>: Sendable {
    private let state: Mutex<(slots: [Value?], filled: Int)>

    package init(count: Int) {
        state = Mutex((Array(repeating: nil, count: count), 0))
    }

    /// Stores a result; returns how many slots are filled now (for progress).
    @discardableResult
    package func set(_ index: Int, _ value: Value) -> Int {
        state.withLock {
            $0.slots[index] = value
            $0.filled += 1
            return $0.filled
        }
    }

    /// Every slot, in order; call once every worker has written its own.
    package func values() -> [Value] {
        state.withLock { $0.slots.map { $0! } }
    }
}
