import NIOPosix
import NetsimAdmin
import NetsimCore
import NetsimProxy

/// What `netsim run` has started, each part as it comes up: the event loops, the proxy, the
/// admin API, the wrapped command. Whatever ends the run (its end, or a part that could not
/// start), `stop` takes down what was started, by this one path.
struct RunParts {
    let eventLoops: MultiThreadedEventLoopGroup
    var proxy: NetsimProxy?
    var admin: AdminServer?
    var command: WrappedCommand?

    /// What stopping gave: the proxy's final reports, one per phone (a failure if it never
    /// started), and the command's exit status (nil if there was none).
    struct Ending {
        var reports: Result<[RunReport], any Error> = .failure(ProxyNeverStarted())
        var commandStatus: Int32?
    }

    struct ProxyNeverStarted: Error, CustomStringConvertible {
        var description: String { "the proxy never started: there is no report" }
    }

    init(eventLoops: MultiThreadedEventLoopGroup) {
        self.eventLoops = eventLoops
    }

    /// Stops the command (SIGTERM, then SIGKILL after its grace period), the proxy (its final
    /// reports; it ends every event stream's subscription), the admin API (its streams and
    /// answers in progress, all ended and closed) and the event loops, in that order, those that
    /// were started. Nothing may write to a channel once the loops stop: an event stream still
    /// writing then crashed a debug build ("leaking promise").
    func stop() async -> Ending {
        var ending = Ending()
        if let command { ending.commandStatus = await command.stop() }
        if let proxy {
            do {
                ending.reports = .success(try await proxy.stopEveryPhone())
            } catch {
                ending.reports = .failure(error)
            }
        }
        await admin?.stop()
        // The loops are idle once everything on them has stopped; a failure to shut them down
        // changes nothing for the run's outcome, which the process exit ends anyway.
        try? await eventLoops.shutdownGracefully()
        return ending
    }
}
