import Synchronization

/// A wake-up for one waiter at a time: "something new is there, look". Subscribing replaces
/// (and ends) the previous subscriber's stream, which is how a reconnecting device's new
/// session retires its old one. It holds at most one pending wake-up, so it never grows.
final class SignalSlot: Sendable {
    private let continuation = Mutex<AsyncStream<Void>.Continuation?>(nil)

    /// A stream that yields after each `signal()`, until the next `subscribe()` or `close()`.
    func subscribe() -> AsyncStream<Void> {
        let (stream, newContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let previous = continuation.withLock { current in
            defer { current = newContinuation }
            return current
        }
        previous?.finish()
        return stream
    }

    func signal() {
        _ = continuation.withLock { $0?.yield() }
    }

    func close() {
        continuation.withLock { current in
            current?.finish()
            current = nil
        }
    }
}
