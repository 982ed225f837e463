import NIOCore
import NIOPosix
import NetsimCore

/// How a proxy treats its connections: how much it buffers, how many it holds, who may use its
/// front ends and where they may go, what observes the link, how fast its clock runs.
public struct ProxyOptions: Sendable {
    /// The most bytes one direction of one connection may hold between reading and delivering;
    /// at the limit the proxy stops reading from the sender.
    public var bufferLimit = 4 * 1024 * 1024
    /// Emulated seconds per wall-clock second (tests raise it to play long timelines quickly).
    public var timeScale = 1.0
    /// Sees what crosses the link (a capture writer).
    public var observer: (any LinkObserver)?
    /// The most connections open at once; a client beyond it is reset as soon as it is
    /// accepted. Each connection holds two file descriptors, so the default keeps the process
    /// clear of its open-file limit, with room for the admin API and a capture: running out
    /// would make accept fail, and NIO retries a failing accept without pause.
    public var maximumConnections = ProxyOptions.connectionsWithinFileLimit
    /// Which clients the front ends serve and where they may go.
    public var access = AccessPolicy()
    /// About the most bytes handed to a client's socket that its app has not read yet: a
    /// phone's TCP receive window. Without a bound, loopback's socket buffers (several MB)
    /// take bytes an app reads slowly or never, counted as delivered, and the proxy keeps
    /// reading the upstream and charging the emulated link and radio for them. Half of it is
    /// the client channel's write buffer (its high water mark: above it the channel is not
    /// writable, the connection stops delivering and reading the upstream), half the socket's
    /// send buffer (`SO_SNDBUF`, which the kernel doubles: a quarter is asked for).
    public var receiveWindow = 1024 * 1024

    public init() {}
}

extension ProxyOptions {
    /// These options with the access policy's facts of this host: this host's interface
    /// addresses, and `refusesLocalDestinations` when one of `frontEnds` listens beyond
    /// loopback.
    func guardingTheFrontDoor(_ frontEnds: [FrontEndRule]) -> ProxyOptions {
        var options = self
        if frontEnds.contains(where: { !$0.listen.isLoopback }) { options.access.refusesLocalDestinations = true }
        options.access.hostAddresses = ((try? System.enumerateDevices()) ?? []).compactMap {
            $0.address?.ipAddress.flatMap(IPAddressBytes.init)
        }
        return options
    }

    /// Two descriptors per connection within the open-file limit, less `OpenFiles.reserve`.
    static var connectionsWithinFileLimit: Int {
        guard let limit = OpenFiles.limit else { return Int.max }
        return max(1, (limit - OpenFiles.reserve) / 2)
    }
}

/// The process's limit on open files.
enum OpenFiles {
    /// The soft limit, as `ulimit -n` shows it; nil when there is none.
    static var limit: Int? {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// Descriptors kept for everything but proxied connections: listeners, the admin API and
    /// its connections, a capture, the runtime's own.
    static let reserve = 128
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
