import Foundation
import Logging
import NIOCore
import NIOPosix
import NetsimCore
import NetsimProxy
import Synchronization

/// Loopback peers for the proxy's end-to-end tests: an echo server and a client that measures.
enum Loopback {
    static let group = MultiThreadedEventLoopGroup.singleton
    static let logger = Logger(label: "netsim.test")

    /// An echo server that also echoes a half-close. Returns the channel and its port.
    static func echoServer(host: String = "127.0.0.1") async throws -> (channel: any Channel, port: Int) {
        let channel = try await ServerBootstrap(group: group)
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(EchoHandler()) }
            }
            .bind(host: host, port: 0).get()
        return (channel, channel.localAddress!.port!)
    }

    /// A proxy for `profile` in front of `upstreamPort`.
    static func proxy(_ profile: Profile, upstreamPort: Int, timeScale: Double = 1) async throws -> (proxy: NetsimProxy, port: Int) {
        var options = ProxyOptions()
        options.timeScale = timeScale
        let proxy = try await NetsimProxy.start(
            profile: profile, seed: 1,
            forwards: [
                ForwardRule(listen: HostPort(host: "127.0.0.1", port: 0), upstream: HostPort(host: "127.0.0.1", port: upstreamPort))
            ],
            options: options, group: group, logger: logger)
        return (proxy, proxy.listeningAddresses[0].port)
    }

    static func connect(port: Int, host: String = "127.0.0.1") async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try await ClientBootstrap(group: group)
            .channelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                }
            }
    }

    /// How an echo exchange ended.
    enum Ending: Equatable {
        /// The echo came back whole and the server's FIN followed.
        case finished
        /// The connection was reset or failed.
        case failed
        /// Nothing arrived for the idle timeout (a blackholed connection).
        case silent
    }

    /// Sends `payload`, half-closes, and collects what comes back until EOF, an error, or
    /// `idleTimeout` without progress.
    static func echo(_ payload: [UInt8], port: Int, idleTimeout: Duration = .seconds(3)) async throws -> (received: [UInt8], ending: Ending)
    {
        let channel = try await connect(port: port)
        let progress = Progress()
        let received = try await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                group.addTask {
                    var offset = 0
                    while offset < payload.count {
                        let end = min(offset + 65536, payload.count)
                        do { try await outbound.write(ByteBuffer(bytes: payload[offset..<end])) } catch { return nil }
                        offset = end
                    }
                    outbound.finish()
                    return nil
                }
                group.addTask {
                    var bytes: [UInt8] = []
                    do {
                        for try await var chunk in inbound {
                            bytes += chunk.readBytes(length: chunk.readableBytes)!
                            progress.state.withLock { $0.at = ContinuousClock.now }
                        }
                    } catch {}
                    return bytes
                }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .milliseconds(100))
                        let idle = progress.state.withLock { ContinuousClock.now - $0.at > idleTimeout }
                        if idle {
                            progress.state.withLock { $0.silent = true }
                            try? await channel.channel.close()
                            return nil
                        }
                    }
                    return nil
                }
                var result: [UInt8] = []
                while let next = try await group.next() {
                    if let bytes = next {
                        result = bytes
                        group.cancelAll()
                    }
                }
                return result
            }
        }
        let silent = progress.state.withLock { $0.silent }
        if silent { return (received, .silent) }
        return (received, received.count == payload.count ? .finished : .failed)
    }

    /// One request/response of `size` bytes on an open connection; returns the round trip.
    static func roundTrip(
        _ size: Int, inbound: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async throws -> Duration {
        let start = ContinuousClock.now
        try await outbound.write(ByteBuffer(repeating: 7, count: size))
        var got = 0
        while got < size {
            guard let chunk = try await inbound.next() else { throw EchoClosed() }
            got += chunk.readableBytes
        }
        return ContinuousClock.now - start
    }

    struct EchoClosed: Error {}

    /// When bytes last arrived, and whether the watchdog gave up.
    final class Progress: Sendable {
        let state = Mutex((at: ContinuousClock.now, silent: false))
    }

    /// A flag set from another task.
    final class Flag: Sendable {
        private let state = Mutex(false)
        var isSet: Bool { state.withLock { $0 } }
        func set() { state.withLock { $0 = true } }
    }

    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { buffer in
            for index in stride(from: 0, to: count - 7, by: 8) {
                buffer.storeBytes(of: random.next(), toByteOffset: index, as: UInt64.self)
            }
        }
        return bytes
    }
}

/// Echoes bytes and the peer's half-close.
final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The FIN only after every echoed byte is written, as the proxy does it: with the input
        // closed, NIO turns an output close into a full close that fails pending writes, and an
        // upstream slowed by the proxy's backpressure would cut its echo short.
        guard case ChannelEvent.inputClosed = event else { return }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer())).whenComplete { _ in channel.close(mode: .output, promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Waits until `condition` holds, for at most `limit`; returns whether it held. For what the
/// proxy finishes after a peer has seen its part: a connection's record closes once both of
/// its sides have, a little after the client read the FIN.
func eventually(within limit: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
