import Synchronization

/// Set once a connection attempt got through, so the next failure starts the backoff over.
final class ConnectedFlag: Sendable {
    private let flag = Mutex(false)

    func set() { flag.withLock { $0 = true } }

    var value: Bool { flag.withLock { $0 } }
}
