import Synchronization

/// Whether a connection attempt or a call got through, set from the task that saw it and read
/// by the one that handles its end: a failure after it starts the backoff over, and an open
/// gRPC call that ends is a connection the app noticed it had lost.
final class ConnectedFlag: Sendable {
    private let flag = Mutex(false)

    func set() { flag.withLock { $0 = true } }

    func clear() { flag.withLock { $0 = false } }

    var value: Bool { flag.withLock { $0 } }
}
