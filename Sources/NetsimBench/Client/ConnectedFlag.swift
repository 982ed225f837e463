import Synchronization

/// Whether a push connection or call got through, set from the task that saw it open and read
/// when it ends: one that had opened and ends is a connection the app noticed it had lost
/// (`AppInputs.pushConnectionEnded`).
final class ConnectedFlag: Sendable {
    private let flag = Mutex(false)

    func set() { flag.withLock { $0 = true } }

    var value: Bool { flag.withLock { $0 } }
}
