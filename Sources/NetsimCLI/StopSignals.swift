import Foundation
import Synchronization

/// SIGINT, SIGTERM and SIGHUP (a closed terminal), which stop a run cleanly instead of ending
/// the process: `run` awaits the first (`next()`), and its report is still written; a model
/// bench polls a `StopRequest` between batches, and writes what was played, marked partial.
enum StopSignals {
    /// The first of the signals, by name.
    static func next() async -> String? {
        let stream = AsyncStream<String> { continuation in
            let watch = watch { continuation.yield($0) }
            continuation.onTermination = { _ in watch.cancel() }
        }
        for await name in stream { return name }
        return nil
    }

    /// Calls `handler` with the name of each of the signals that arrives, until the watch is
    /// cancelled. The handler runs on a Dispatch queue, so it is called even while every task
    /// thread is busy with a computation.
    static func watch(_ handler: @escaping @Sendable (String) -> Void) -> Watch {
        Watch(
            [(SIGINT, "Ctrl-C"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")].map { signalNumber, name in
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler { handler(name) }
                source.resume()
                return source
            })
    }

    /// Dispatch sources may be cancelled from any thread.
    struct Watch: @unchecked Sendable {
        private let sources: [any DispatchSourceSignal]
        fileprivate init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
        func cancel() { for source in sources { source.cancel() } }
    }
}

/// A stop asked for by a signal, for a computation that cannot be cancelled mid-step to poll
/// between its steps.
final class StopRequest: Sendable {
    private let signalName = Mutex<String?>(nil)

    /// The first signal that asked, if one did.
    var stoppedBy: String? { signalName.withLock { $0 } }

    func stop(by name: String) {
        signalName.withLock { $0 = $0 ?? name }
    }
}
