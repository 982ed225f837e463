import NIOPosix
import NetsimCore
import NetsimProxy

/// What `netsim run` has started, each part as it comes up: the event loops and the proxy.
/// Whatever ends the run (its end, or a part that could not start), `stop` takes down what was
/// started, by this one path. The wrapped command and the admin API are not among them: each
/// is a child task of the run (`WrappedCommand.run`, `AdminServer.serve`), stopped before the
/// event loops are (the admin API on NIO's singleton loops, not these).
struct RunParts {
    let eventLoops: MultiThreadedEventLoopGroup
    var proxy: NetsimProxy?
    private var reports: Result<[RunReport], any Error> = .failure(ProxyNeverStarted())

    struct ProxyNeverStarted: Error, CustomStringConvertible {
        var description: String { "the proxy never started: there is no report" }
    }

    init(eventLoops: MultiThreadedEventLoopGroup) {
        self.eventLoops = eventLoops
    }

    /// Stops the proxy, if it was started and is not stopped yet: its final reports, one per
    /// phone; it ends every event stream's subscription, so that the admin API, stopped next,
    /// has sent the last events.
    mutating func stopProxy() async {
        guard let proxy else { return }
        self.proxy = nil
        do {
            reports = .success(try await proxy.stopEveryPhone())
        } catch {
            reports = .failure(error)
        }
    }

    /// Stops the proxy (`stopProxy`) and the event loops, in that order, those that were
    /// started; the proxy's reports, or why there are none. The wrapped command has stopped
    /// before, and the admin API's connections have closed (on loops of their own).
    mutating func stop() async -> Result<[RunReport], any Error> {
        await stopProxy()
        // The loops are idle once everything on them has stopped; a failure to shut them down
        // changes nothing for the run's outcome, which the process exit ends anyway.
        try? await eventLoops.shutdownGracefully()
        return reports
    }
}
