import Logging
import NIOCore
import NIOEmbedded
import NetsimCore
import Testing

@testable import NetsimProxy

/// The proxy's device and connections on virtual time: an `EmbeddedEventLoop` whose clock
/// moves only when the test advances it, and `EmbeddedChannel`s for the client and upstream
/// sockets. Seconds of a slow link play in milliseconds, and the times checked are the
/// model's own, not a loaded machine's.
@Suite struct ProxyVirtualTimeTests {
    static func profile(_ link: LinkParameters, events: [TimelineEvent] = []) -> Profile {
        Profile(
            name: "test", description: "", networks: [Network(name: "net", radio: .none, up: link, down: link)], start: "net",
            timeline: Timeline(events: events))
    }

    /// 1 MB up a 1 Mbit/s link: every byte reaches the upstream in order, the last of them
    /// 8 s after the first was sent (1,000,000 bytes x 8 bits / 1,000,000 bit/s), as the
    /// socket test measured it on the wall clock.
    @Test func aMegabitPerSecondLinkMovesAMegabyteInEightSeconds() throws {
        let phone = try VirtualPhone(Self.profile(LinkParameters(capacity: .rate(bitsPerSecond: 1e6))))
        let payload = Loopback.randomBytes(1_000_000, seed: 3)
        let arrivals = try phone.send(payload, until: 9)
        #expect(phone.received == payload)
        let done = try #require(arrivals.first { $0.bytes == payload.count }).time
        #expect(done >= 8 && done <= 8.01, "the last byte arrived at \(done) s")
        #expect(phone.report().bytes.up == 1_000_000)
    }

    /// A 2 s stall from 1 s on a 2 Mbit/s link with 20 ms of delay: what crossed before it
    /// arrives, nothing arrives during it, and every byte arrives after it, in order, the
    /// transfer taking its 4 s and the 2 s of the stall at least.
    @Test func aStallOutageDelaysButDeliversEveryByte() throws {
        let outage = TimelineEvent(at: 1, kind: .outage(duration: 2, mode: .stall))
        let phone = try VirtualPhone(
            Self.profile(LinkParameters(capacity: .rate(bitsPerSecond: 2e6), delay: 0.02), events: [outage]))
        let payload = Loopback.randomBytes(1_000_000, seed: 4)
        let arrivals = try phone.send(payload, until: 12)
        #expect(phone.received == payload)
        // Reads of 64 KiB are chunks: the k-th is through at k x 0.262 s (65,536 x 8 bits at
        // 2 Mbit/s) and arrives 20 ms later, so three arrive before the stall and the fourth
        // (1.049 s) waits for it.
        let before = arrivals.last { $0.time <= 1.02 }?.bytes ?? 0
        #expect(before == 3 * 65_536, "\(before) bytes before the stall")
        let during = arrivals.filter { $0.time > 1.05 && $0.time < 3 }
        #expect(during.allSatisfy { $0.bytes == before }, "bytes arrived during the stall")
        let done = try #require(arrivals.first { $0.bytes == payload.count }).time
        #expect(done > 4 + 2 && done < 10, "the last byte arrived at \(done) s")
        #expect(phone.report().events.map(\.kind) == [.outage])
    }
}

/// One emulated phone and one forwarded connection on virtual time: the client and the
/// upstream are `EmbeddedChannel`s, the client's bytes are handed over only when the proxy
/// asks to read (as a socket's would be), and time moves in steps the test chooses.
/// Single-threaded: everything runs on the test's thread, the embedded loop's.
final class VirtualPhone {
    /// How much of the client's bytes one read hands over: a socket's read buffer.
    static let readSize = 65_536

    let loop: EmbeddedEventLoop
    private let device: EmulatedDevice
    private let client: EmbeddedChannel
    private let reads = ReadRequests()
    private let upstreams: NIOLoopBoundBox<[EmbeddedChannel]>
    /// What the upstream was written, in order.
    private(set) var received: [UInt8] = []

    init(_ profile: Profile, seed: UInt64 = 1) throws {
        let loop = EmbeddedEventLoop()
        self.loop = loop
        let upstreams = NIOLoopBoundBox([EmbeddedChannel](), eventLoop: loop)
        self.upstreams = upstreams
        var logger = Logger(label: "netsim.virtual-time")
        logger.logLevel = .error
        device = EmulatedDevice(
            model: DeviceModel(profile: profile, seed: seed), phone: nil, seed: seed, loop: loop, clock: ProxyClock(loop: loop),
            options: ProxyOptions(), events: PhoneEventPublisher(hub: PhoneEventHub(), phone: 1), logger: logger,
            dialer: UpstreamDialer { _, address, prepare in
                let channel = EmbeddedChannel(loop: loop)
                upstreams.value.append(channel)
                return prepare(channel).flatMap { channel.connect(to: address) }.map { channel }
            })
        client = EmbeddedChannel(loop: loop)
        try client.pipeline.syncOperations.addHandler(reads)
        let server = try SocketAddress(ipAddress: "127.0.0.1", port: 8080)
        try device.accept(client, upstream: server)
        device.startTimeline()
        client.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 50_000), promise: nil)
        loop.run()
    }

    /// Sends `payload` from the client, handing it over as the proxy reads, and plays time
    /// to `end` in steps of `step` seconds: the upstream's byte count after each step.
    func send(_ payload: [UInt8], until end: Double, step: Double = 0.01) throws -> [(time: Double, bytes: Int)] {
        var sent = 0
        var arrivals: [(time: Double, bytes: Int)] = []
        let steps = Int((end / step).rounded())
        for index in 1...steps {
            // The channel's automatic read after each read, as a socket channel's autoRead does.
            while sent < payload.count {
                client.read()
                guard reads.take() else { break }
                let chunk = payload[sent..<min(sent + Self.readSize, payload.count)]
                sent += chunk.count
                try client.writeInbound(ByteBuffer(bytes: chunk))
            }
            loop.advanceTime(to: .uptimeNanoseconds(0) + .nanoseconds(Int64((Double(index) * step * 1e9).rounded())))
            try collect()
            arrivals.append((Double(index) * step, received.count))
        }
        return arrivals
    }

    func report() -> RunReport { device.report() }

    private func collect() throws {
        for upstream in upstreams.value {
            while let buffer = try upstream.readOutbound(as: ByteBuffer.self) {
                received.append(contentsOf: buffer.readableBytesView)
            }
        }
    }
}

/// Counts the reads the proxy lets through to the client's socket, between the socket and
/// the proxy's handler.
final class ReadRequests: ChannelOutboundHandler {
    typealias OutboundIn = NIOAny
    private var pending = 0

    func read(context: ChannelHandlerContext) {
        pending += 1
        context.read()
    }

    /// Whether a read was asked for, consuming it.
    func take() -> Bool {
        guard pending > 0 else { return false }
        pending -= 1
        return true
    }
}
