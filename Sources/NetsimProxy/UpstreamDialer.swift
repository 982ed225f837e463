import NIOCore
import NIOPosix

/// How a device opens the upstream side of a connection: a TCP socket in a run (`sockets`);
/// in a test on virtual time, a channel on the test's loop. `prepare` adds the connection's
/// handler to the new channel before it connects.
struct UpstreamDialer: Sendable {
    let dial:
        @Sendable (
            _ loop: any EventLoop, _ upstream: SocketAddress, _ prepare: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
        ) -> EventLoopFuture<any Channel>

    /// TCP, without Nagle's delay (the link model decides when bytes leave), accepting the
    /// server's half-close, giving up after 10 s.
    static let sockets = UpstreamDialer { loop, upstream, prepare in
        ClientBootstrap(group: loop)
            .channelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer(prepare)
            .connect(to: upstream)
    }
}
