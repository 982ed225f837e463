import NIOCore
import Synchronization

/// The admin API's answers in progress (an event stream's writer, a response waiting on the
/// proxy), each with its connection, so that stopping the server ends them all before the
/// event loops stop. A task left running would write to its channel after the loops shut
/// down: a promise that is never completed (a crash in a debug build) and "Cannot schedule
/// tasks on an EventLoop that has already shut down".
final class AdminTasks: Sendable {
    private let state = Mutex<(next: Int, running: [Int: (task: Task<Void, Never>, channel: any Channel)], stopped: Bool)>(
        (0, [:], false))

    /// Runs `body` for the answer on `channel`, unless the server has stopped (then the
    /// connection is closed); its task, for the caller to cancel should the client go.
    @discardableResult
    func run(on channel: any Channel, _ body: @escaping @Sendable () async -> Void) -> Task<Void, Never>? {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard !state.stopped else { return nil }
            let id = state.next
            state.next += 1
            let task = Task { [self] in
                await body()
                _ = self.state.withLock { $0.running.removeValue(forKey: id) }
            }
            state.running[id] = (task, channel)
            return task
        }
        if task == nil { channel.close(promise: nil) }
        return task
    }

    /// Ends every answer in progress: its task is cancelled and its connection closed (which
    /// fails a write a client that does not read holds up); returns once each task has ended.
    func stop() async {
        let running = state.withLock { state in
            state.stopped = true
            return Array(state.running.values)
        }
        for (task, channel) in running {
            task.cancel()
            channel.close(promise: nil)
        }
        for (task, _) in running { await task.value }
    }
}
