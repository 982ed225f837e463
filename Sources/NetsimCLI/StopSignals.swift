import Foundation
import Synchronization

/// SIGINT, SIGTERM and SIGHUP (a closed terminal), which stop a run cleanly instead of ending
/// the process: `run` stops on the first (`pending()`), and its report is still written; a model
/// bench polls a `StopRequest` between batches, and writes what was played, marked partial.
enum StopSignals {
    /// The signals from this call on, by name, kept for a run to read once it has started
    /// (`first(of:)`). The watch is set up at once, so that a signal that comes while the run is
    /// still starting (reading a trace, waiting for a `--pcap` FIFO's reader, binding its ports)
    /// stops it cleanly as soon as it is up, with its report, instead of ending the process with
    /// none. Only the first signal is kept: the run stops on it.
    static func pending() -> AsyncStream<String> {
        AsyncStream(bufferingPolicy: .bufferingOldest(1)) { continuation in
            let watch = watch { continuation.yield($0) }
            continuation.onTermination = { _ in watch.cancel() }
        }
    }

    /// The first signal of `pending()`'s stream, already come or still to come.
    static func first(of signals: AsyncStream<String>) async -> String? {
        for await name in signals { return name }
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
