import Foundation
import NIOCore
import NIOPosix
import NetsimCore
import NetsimProxy
import NetsimTestSupport
import Synchronization
import Testing

/// Faults at the proxy's edges: upstreams that refuse, peers that leave or reset. Nothing may
/// leak or stay pinned, and a reset must arrive as a reset.
@Suite(.serialized, .playsLive(timeLimit: .seconds(120))) struct ProxyFaultTests {
    @Test("a refused upstream connect leaves no connection record behind")
    func refusedConnectsAreForgotten() async throws {
        let (closed, closedPort) = try await Loopback.echoServer()
        try await closed.close()
        let (proxy, port) = try await Loopback.proxy(.passThrough, upstreamPort: closedPort)
        for _ in 0..<20 {
            // The proxy resets the client, which may already fail its connect.
            let echo = try? await Loopback.echo([1, 2, 3], port: port)
            #expect(echo == nil || (echo!.received.isEmpty && echo!.ending == .failed))
        }
        #expect(try await eventually { try await proxy.status().openConnections == 0 })
        let report = try await proxy.stop()
        #expect(report.connections.opened == 20)
        #expect(report.connections.closed == 20)
    }

    /// A download the end of the run cuts short ends in ECONNRESET for the client, not a clean
    /// EOF that a client reading to the end would take for the whole transfer.
    @Test("a client mid-download when the run ends gets a reset, not a clean end")
    func theRunsEndResetsAnUnfinishedDownload() async throws {
        let (server, serverPort) = try await Loopback.echoServer()
        let slow = LinkParameters(capacity: .rate(bitsPerSecond: 1e6))
        let profile = Profile(
            name: "slow-down", description: "", networks: [Network(name: "net", radio: .none, up: LinkParameters(), down: slow)],
            start: "net")
        let (proxy, port) = try await Loopback.proxy(profile, upstreamPort: serverPort)
        let client = try await Loopback.connect(port: port)
        let payload = 400_000
        let (received, failure) = try await client.executeThenClose { inbound, outbound -> (Int, (any Error)?) in
            try await outbound.write(ByteBuffer(repeating: 1, count: payload))
            var received = 0
            var stopped = false
            do {
                for try await chunk in inbound {
                    received += chunk.readableBytes
                    if received >= 10_000, !stopped {
                        stopped = true
                        _ = try await proxy.stop()
                    }
                }
                return (received, nil)
            } catch {
                return (received, error)
            }
        }
        #expect(received < payload)
        #expect((failure as? IOError)?.errnoCode == ECONNRESET, "after \(received) bytes: \(String(describing: failure))")
        try await server.close()
    }

    /// A client that never reads holds about the receive window (1 MiB) handed over unread:
    /// the proxy's write buffer and its socket's send buffer are bounded, so loopback's socket
    /// buffers (several MB) no longer take a download the app never reads.
    @Test("a client that never reads is handed about a receive window, not megabytes")
    func aClientThatNeverReadsIsHandedAboutAWindow() async throws {
        let (server, serverPort) = try await Loopback.echoServer()
        let (proxy, port) = try await Loopback.proxy(.passThrough, upstreamPort: serverPort)
        let client = try await ClientBootstrap(group: Loopback.group).channelOption(ChannelOptions.autoRead, value: false)
            .connect(host: "127.0.0.1", port: port).get()
        for _ in 0..<64 { client.write(ByteBuffer(repeating: 5, count: 256 * 1024), promise: nil) }
        client.flush()
        // Until what was handed over stops growing (checked every half second).
        var handedOver = -1
        for _ in 0..<40 {
            let now = try await proxy.status().bytes.down
            if now == handedOver, now > 0 { break }
            handedOver = now
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(handedOver > 0 && handedOver < 2_500_000, "\(handedOver) bytes handed to a client that read none")
        try await client.close()
        _ = try await proxy.stop()
        try await server.close()
    }

    @Test("a client beyond the connection cap is reset at once; the cap frees as connections close")
    func connectionCap() async throws {
        let (server, serverPort) = try await Loopback.echoServer()
        var options = ProxyOptions()
        options.maximumConnections = 2
        let proxy = try await NetsimProxy.start(
            profile: .passThrough, seed: 1,
            forwards: [ForwardRule(listen: HostPort(host: "127.0.0.1", port: 0), upstream: HostPort(host: "127.0.0.1", port: serverPort))],
            options: options, group: Loopback.group, logger: Loopback.logger)
        let port = proxy.listeningAddresses[0].port
        let first = try await Loopback.connect(port: port)
        let second = try await Loopback.connect(port: port)
        #expect(try await eventually { try await proxy.status().openConnections == 2 })
        let refused = try? await Loopback.echo([1, 2, 3], port: port)
        #expect(refused == nil || refused!.ending == .failed, "the third connection is reset")
        try await first.channel.close()
        try await second.channel.close()
        #expect(try await eventually { try await proxy.status().openConnections == 0 })
        let payload = Loopback.randomBytes(1000, seed: 5)
        #expect(try await Loopback.echo(payload, port: port).received == payload)
        _ = try await proxy.stop()
        try await server.close()
    }

    @Test("connections held back by a full link queue are woken when it drains, and deliver every byte")
    func fullQueueWakesItsWaiters() async throws {
        let (server, serverPort) = try await Loopback.echoServer()
        let link = LinkParameters(capacity: .rate(bitsPerSecond: 4e6), queueLimit: 32 * 1024)
        let profile = Profile(
            name: "queue", description: "", networks: [Network(name: "net", radio: .none, up: link, down: LinkParameters())],
            start: "net")
        let (proxy, port) = try await Loopback.proxy(profile, upstreamPort: serverPort)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let payload = Loopback.randomBytes(100_000, seed: UInt64(index))
                    let echo = try await Loopback.echo(payload, port: port)
                    return echo.ending == .finished && echo.received == payload
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
        _ = try await proxy.stop()
        try await server.close()
    }

    @Test("a client that leaves while the upstream still sends does not pin the upstream")
    func clientLeavesWhileUpstreamSends() async throws {
        let upstream = try await FaultServer.start { BackpressuredEchoHandler(counts: $0) }
        let (proxy, port) = try await Loopback.proxy(.passThrough, upstreamPort: upstream.port)
        let client = try await Loopback.connect(port: port)
        // The client sends and never reads: the echo fills the path back and the upstream
        // stops reading, as `cat` behind socat does.
        let writer = Task {
            try? await client.executeThenClose { _, outbound in
                for _ in 0..<256 { try await outbound.write(ByteBuffer(repeating: 1, count: 65536)) }
            }
        }
        // Full once what the upstream received holds still for half a second (how much that is
        // depends on the kernel's socket buffers and how busy the machine is).
        var received = 0
        let deadline = ContinuousClock.now + .seconds(20)
        while received == 0 || upstream.receivedBytes != received, ContinuousClock.now < deadline {
            received = upstream.receivedBytes
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(received > 0 && upstream.receivedBytes == received, "the upstream still reads: \(upstream.receivedBytes) bytes")
        try? await client.channel.close()
        writer.cancel()
        #expect(await eventually { upstream.openConnections == 0 }, "the upstream connection is still open")
        #expect(try await eventually { try await proxy.status().openConnections == 0 })
        _ = try await proxy.stop()
        try await upstream.channel.close()
    }

    @Test("an upstream's RST reaches the client as a RST, after the bytes before it")
    func upstreamResetIsPassedOn() async throws {
        let upstream = try await FaultServer.start { _ in SendThenResetHandler(bytes: 100_000) }
        let observer = ClosingObserver()
        var options = ProxyOptions()
        options.observer = observer
        let proxy = try await NetsimProxy.start(
            profile: .passThrough, seed: 1,
            forwards: [
                ForwardRule(listen: HostPort(host: "127.0.0.1", port: 0), upstream: HostPort(host: "127.0.0.1", port: upstream.port))
            ],
            options: options, group: Loopback.group, logger: Loopback.logger)
        let client = try await Loopback.connect(port: proxy.listeningAddresses[0].port)
        var received = 0
        var ending = "EOF"
        try await client.executeThenClose { inbound, _ in
            do {
                for try await chunk in inbound { received += chunk.readableBytes }
            } catch let error as IOError {
                ending = error.errnoCode == ECONNRESET ? "reset" : "\(error)"
            }
        }
        #expect(ending == "reset", "\(received) bytes, resets \(observer.resets)")
        #expect(received <= 100_000)
        #expect(await eventually { observer.resets == 1 }, "the capture is told of the reset")
        _ = try await proxy.stop()
        try await upstream.channel.close()
    }

    @Test("a client's RST reaches the upstream as a RST")
    func clientResetIsPassedOn() async throws {
        let upstream = try await FaultServer.start { EndingRecorder(counts: $0) }
        let (proxy, port) = try await Loopback.proxy(.passThrough, upstreamPort: upstream.port)
        let client = try await Loopback.connect(port: port)
        try await client.executeThenClose { _, outbound in
            try await outbound.write(ByteBuffer(repeating: 2, count: 1000))
            #expect(await eventually { upstream.receivedBytes == 1000 })
            try await (client.channel as! any SocketOptionProvider).setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
            try await client.channel.close()
        }
        #expect(await eventually { !upstream.endings.isEmpty })
        #expect(upstream.endings == ["reset"])
        #expect(try await eventually { try await proxy.status().openConnections == 0 })
        _ = try await proxy.stop()
        try await upstream.channel.close()
    }

    /// Found by a blackhole soak: silenced connections held 180 KB each, the bytes
    /// their clients kept sending read into buffers only to be dropped, and a client that closed
    /// kept its socket open for its TCP's give-up, 924.6 s.
    @Test("a blackholed client is read no further once its bytes are swallowed, and is closed at once when it closes")
    func blackholedClientHoldsNoBuffersAndClosesAtOnce() async throws {
        let outage = TimelineEvent(at: 0.5, kind: .outage(duration: 3600, mode: .blackhole))
        let profile = Profile(
            name: "blackhole", description: "",
            networks: [Network(name: "net", radio: .none, up: LinkParameters(), down: LinkParameters())],
            start: "net", timeline: Timeline(events: [outage]))
        let (server, serverPort) = try await Loopback.echoServer()
        let (proxy, port) = try await Loopback.proxy(profile, upstreamPort: serverPort)
        let sender = try await Loopback.connect(port: port)
        let closer = try await Loopback.connect(port: port)
        #expect(try await eventually { try await proxy.status().openConnections == 2 })
        try await Task.sleep(for: .seconds(1))

        // 64 MiB into the blackhole: the proxy stops reading after the first bytes, so the
        // client's writes back up in its socket instead of being read and dropped. A write
        // counts once NIO has handed all of it to the kernel (its future), not when it was
        // queued: an async writer's writes return before the channel has even seen them.
        let written = Mutex(0)
        let chunk = ByteBuffer(repeating: 5, count: 1 << 20)
        for _ in 0..<64 {
            sender.channel.writeAndFlush(chunk).whenSuccess { written.withLock { $0 += 1 } }
        }
        try await Task.sleep(for: .seconds(2))
        // The kernel holds a few MiB (the client's send buffer and the proxy's receive buffer).
        #expect(written.withLock { $0 } < 32, "the proxy read most of the 64 MiB a blackhole swallows")
        try? await sender.channel.close()

        // A client that half-closes on the blackholed path is failed now, not after 924.6 s.
        let ended = Loopback.Flag()
        let reader = Task {
            try? await closer.executeThenClose { inbound, outbound in
                outbound.finish()
                do { for try await _ in inbound {} } catch {}
                ended.set()
            }
        }
        #expect(await eventually(within: .seconds(2)) { ended.isSet }, "the client's socket is still open")
        try? await closer.channel.close()
        _ = await reader.value
        _ = try await proxy.stop()
        try await server.close()
    }
}

/// What a `FaultServer`'s connections received, how many are open and how they ended.
final class FaultCounts: Sendable {
    private let state = Mutex((received: 0, open: 0, endings: [String]()))
    var receivedBytes: Int { state.withLock { $0.received } }
    var openConnections: Int { state.withLock { $0.open } }
    var endings: [String] { state.withLock { $0.endings } }
    func received(_ bytes: Int) { state.withLock { $0.received += bytes } }
    func opened() { state.withLock { $0.open += 1 } }
    func closed() { state.withLock { $0.open -= 1 } }
    func ended(_ how: String) { state.withLock { $0.endings.append(how) } }
}

/// A loopback server whose connections get a fresh handler each, sharing one `FaultCounts`.
struct FaultServer {
    let channel: any Channel
    let counts: FaultCounts
    var port: Int { channel.localAddress!.port! }
    var receivedBytes: Int { counts.receivedBytes }
    var openConnections: Int { counts.openConnections }
    var endings: [String] { counts.endings }

    static func start<Handler: ChannelInboundHandler>(
        _ makeHandler: @escaping @Sendable (FaultCounts) -> Handler
    ) async throws -> FaultServer {
        let counts = FaultCounts()
        let channel = try await ServerBootstrap(group: Loopback.group)
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelOption(ChannelOptions.autoRead, value: false)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    counts.opened()
                    channel.closeFuture.whenComplete { _ in counts.closed() }
                    try channel.pipeline.syncOperations.addHandler(makeHandler(counts))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return FaultServer(channel: channel, counts: counts)
    }
}

/// Echoes, reading more only once its echo has been written, as `cat` does: when the other end
/// stops reading, this one stops reading too.
final class BackpressuredEchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let counts: FaultCounts

    init(counts: FaultCounts) { self.counts = counts }

    func channelActive(context: ChannelHandlerContext) { context.read() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        counts.received(unwrapInboundIn(data).readableBytes)
        context.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer())).whenSuccess { loopBound.value.read() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}

/// Sends `bytes`, then resets the connection.
final class SendThenResetHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let bytes: Int

    init(bytes: Int) { self.bytes = bytes }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(repeating: 3, count: bytes))).whenComplete { _ in
            (channel as! any SocketOptionProvider).setSoLinger(linger(l_onoff: 1, l_linger: 0))
                .whenComplete { _ in channel.close(promise: nil) }
        }
    }
}

/// Reads everything and records how the connection ended: "fin" or "reset".
final class EndingRecorder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let counts: FaultCounts

    init(counts: FaultCounts) { self.counts = counts }

    func channelActive(context: ChannelHandlerContext) { context.read() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        counts.received(unwrapInboundIn(data).readableBytes)
    }

    func channelReadComplete(context: ChannelHandlerContext) { context.read() }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            counts.ended("fin")
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let reset = (error as? IOError)?.errnoCode == ECONNRESET
        counts.ended(reset ? "reset" : "\(error)")
        context.close(promise: nil)
    }
}

/// Counts the resets a capture would be told of.
final class ClosingObserver: LinkObserver {
    private let state = Mutex(0)
    var resets: Int { state.withLock { $0 } }

    func opened(
        _ connection: ConnectionID, clientPort: Int, upstreamAddress: String?, upstreamPort: Int?, handshakeOnAir: Double
    ) {}
    func carried(_ connection: ConnectionID, _ direction: Direction, _ bytes: [UInt8], onAir: LinkSchedule.Transmission, at time: Double) {}
    func datagram(_ datagram: DatagramRecord, onAir: LinkSchedule.Transmission) {}
    func closed(_ connection: ConnectionID, reset: Bool, at time: Double) {
        if reset { state.withLock { $0 += 1 } }
    }
    func runEnded(at time: Double) {}
}
