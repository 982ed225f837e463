import NIOPosix
import NetsimAdmin
import NetsimCore
import NetsimProxy

/// What `netsim run` has started, each part as it comes up: the event loops, the proxy, the
/// admin API. Whatever ends the run (its end, or a part that could not start), `stop` takes
/// down what was started, by this one path. The wrapped command is not among them: it is a
/// child task of the run (`WrappedCommand.run`), stopped before these are.
struct RunParts {
    let eventLoops: MultiThreadedEventLoopGroup
    var proxy: NetsimProxy?
    var admin: AdminServer?

    struct ProxyNeverStarted: Error, CustomStringConvertible {
        var description: String { "the proxy never started: there is no report" }
    }

    init(eventLoops: MultiThreadedEventLoopGroup) {
        self.eventLoops = eventLoops
    }

    /// Stops the proxy (its final reports, one per phone; it ends every event stream's
    /// subscription), the admin API (its streams and answers in progress, all ended and
    /// closed) and the event loops, in that order, those that were started; the proxy's
    /// reports, or why there are none. Nothing may write to a channel once the loops stop: an
    /// event stream still writing then crashed a debug build ("leaking promise").
    func stop() async -> Result<[RunReport], any Error> {
        var reports: Result<[RunReport], any Error> = .failure(ProxyNeverStarted())
        if let proxy {
            do {
                reports = .success(try await proxy.stopEveryPhone())
            } catch {
                reports = .failure(error)
            }
        }
        await admin?.stop()
        // The loops are idle once everything on them has stopped; a failure to shut them down
        // changes nothing for the run's outcome, which the process exit ends anyway.
        try? await eventLoops.shutdownGracefully()
        return reports
    }
}
