/// A child task that can be cancelled on its own, as an app's timer is when its machine moves or
/// cancels it, and a connection when the machine closes it: a task group cancels its children
/// only all together, and a task outside the group would outlive the client. Cancelling a child
/// that has ended does nothing.
struct CancellableChild: Sendable {
    fileprivate let stop: AsyncStream<Void>.Continuation

    func cancel() { stop.finish() }
}

extension DiscardingTaskGroup {
    /// Adds `operation` as a child task that the returned handle cancels alone; cancelling the
    /// group cancels it too.
    mutating func addCancellableTask(_ operation: @escaping @Sendable () async -> Void) -> CancellableChild {
        let (stopped, stop) = AsyncStream.makeStream(of: Void.self)
        addTask {
            await withDiscardingTaskGroup { child in
                child.addTask {
                    await operation()
                    stop.finish()
                }
                // Ends on `cancel()`, on the operation's end, or when this task is cancelled.
                for await _ in stopped {}
                child.cancelAll()
            }
        }
        return CancellableChild(stop: stop)
    }
}
