import Synchronization

/// Results written by parallel workers, each into its own slot, read once all are done; and a
/// counter of finished work for progress.
final class ResultSlots<Value: Sendable>: Sendable {
    private let slots: Mutex<[Value?]>
    private let finished = Mutex(0)

    init(count: Int) {
        slots = Mutex(Array(repeating: nil, count: count))
    }

    func set(_ index: Int, _ value: Value) {
        slots.withLock { $0[index] = value }
    }

    /// Counts one more finished piece of work; returns how many are finished.
    func increment() -> Int {
        finished.withLock {
            $0 += 1
            return $0
        }
    }

    /// Every slot, in order; call once every worker has written its own.
    func values() -> [Value] {
        slots.withLock { $0.map { $0! } }
    }
}
