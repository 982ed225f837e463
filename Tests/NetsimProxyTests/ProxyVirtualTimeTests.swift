import Logging
import NIOCore
import NIOEmbedded
import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@testable import NetsimProxy

/// The proxy's device and connections on virtual time: an `EmbeddedEventLoop` whose clock
/// moves only when the test advances it, and `EmbeddedChannel`s for the client and upstream
/// sockets. Seconds of a slow link play in milliseconds, and the times checked are the
/// model's own, exact to the step, not a loaded machine's.
@Suite(.computes) struct ProxyVirtualTimeTests {
    static func profile(
        _ link: LinkParameters = LinkParameters(), radio: RadioParameters = .none, events: [TimelineEvent] = []
    )
        -> Profile
    {
        Profile(
            name: "test", description: "", networks: [Network(name: "net", radio: radio, up: link, down: link)], start: "net",
            timeline: Timeline(events: events))
    }

    /// 1 MB up a 1 Mbit/s link: every byte reaches the upstream in order, the last of them
    /// 8 s after the first was sent (1,000,000 bytes x 8 bits / 1,000,000 bit/s).
    @Test func aMegabitPerSecondLinkMovesAMegabyteInEightSeconds() throws {
        let phone = try VirtualPhone(Self.profile(LinkParameters(capacity: .rate(bitsPerSecond: 1e6))))
        let connection = try phone.connect(echo: false)
        let payload = Loopback.randomBytes(1_000_000, seed: 3)
        connection.write(payload)
        let done = try #require(try phone.advance(until: 9, step: 0.01) { connection.serverReceived.count == payload.count })
        #expect(connection.serverReceived == payload)
        #expect(done >= 8 && done <= 8.01, "the last byte arrived at \(done) s")
        #expect(phone.report().bytes.up == 1_000_000)
    }

    /// A 2 s stall from 1 s on a 2 Mbit/s link with 20 ms of delay: what crossed before it
    /// arrives, nothing arrives during it, and every byte arrives after it, in order, the
    /// transfer taking its 4 s and the 2 s of the stall at least.
    @Test func aStallOutageDelaysButDeliversEveryByte() throws {
        let outage = TimelineEvent(at: 1, kind: .outage(duration: 2, mode: .stall))
        let phone = try VirtualPhone(Self.profile(LinkParameters(capacity: .rate(bitsPerSecond: 2e6), delay: 0.02), events: [outage]))
        let connection = try phone.connect(echo: false)
        let payload = Loopback.randomBytes(1_000_000, seed: 4)
        connection.write(payload)
        // Reads of 64 KiB are chunks: the k-th is through at k x 0.262 s (65,536 x 8 bits at
        // 2 Mbit/s) and arrives 20 ms later, so three arrive before the stall and the fourth
        // (1.049 s) waits for it.
        try phone.advance(to: 1.02, step: 0.01)
        #expect(connection.serverReceived.count == 3 * 65_536)
        try phone.advance(to: 2.99, step: 0.01)
        #expect(connection.serverReceived.count == 3 * 65_536, "bytes arrived during the stall")
        let done = try #require(try phone.advance(until: 12, step: 0.01) { connection.serverReceived.count == payload.count })
        #expect(connection.serverReceived == payload)
        #expect(done > 4 + 2 && done < 10, "the last byte arrived at \(done) s")
        #expect(phone.report().events.map(\.kind) == [.outage])
    }

    /// LTE with a 1 s long-DRX tail and 10 ms each way: after 2 s idle a request pays the
    /// 260 ms promotion and the 20 ms round trip; the next finds the radio awake. Exact to the
    /// millisecond step, where the socket test needed 20 ms of slack.
    @Test func theFirstRequestAfterALongIdlePaysTheLTEPromotion() throws {
        var lte = LTERadioParameters()
        lte.longDRXTime = 1
        let phone = try VirtualPhone(Self.profile(LinkParameters(delay: 0.01), radio: .lte(lte)))
        let connection = try phone.connect()
        try phone.advance(to: 2)
        let afterIdle = try #require(try connection.roundTrip(100, on: phone))
        let awake = try #require(try connection.roundTrip(100, on: phone))
        #expect(abs(afterIdle - (0.26 + 0.02)) <= 0.001 + 1e-9, "first request after idle: \(afterIdle) s")
        #expect(abs(awake - 0.02) <= 0.001 + 1e-9, "the radio is awake for the next one: \(awake) s")
        let report = phone.report()
        // One promotion for the connection's SYN, one for the request after the idle.
        #expect(report.radio.promotions == 2)
        #expect(abs(report.radioLatency.promotionSeconds - 0.26) < 1e-9)
    }

    /// A reset outage from 1 s to 1.5 s resets the open connection at once; one opened after
    /// it works.
    @Test func aResetOutageResetsOpenConnectionsAndNewOnesWork() throws {
        let phone = try VirtualPhone(Self.profile(events: [TimelineEvent(at: 1, kind: .outage(duration: 0.5, mode: .reset))]))
        let first = try phone.connect()
        #expect(try first.roundTrip(10, on: phone) != nil)
        try phone.advance(to: 0.999)
        #expect(first.clientIsOpen)
        try phone.advance(to: 1.001)
        #expect(!first.clientIsOpen, "reset at the outage")
        try phone.advance(to: 1.6)
        let second = try phone.connect()
        #expect(try second.roundTrip(3, on: phone) == 0)
        #expect(phone.report().connections.reset == 1)
    }

    /// A blackhole from 0.5 s to 1 s silences the open connection: what its client writes is
    /// swallowed, and neither an answer nor a close comes; one opened after it works.
    @Test func aBlackholeSilencesOpenConnectionsAndNewOnesWork() throws {
        let phone = try VirtualPhone(Self.profile(events: [TimelineEvent(at: 0.5, kind: .outage(duration: 0.5, mode: .blackhole))]))
        let first = try phone.connect()
        #expect(try first.roundTrip(10, on: phone) != nil)
        try phone.advance(to: 0.6)
        #expect(try first.roundTrip(1, on: phone, within: 2) == nil, "an answer through the blackhole")
        #expect(first.clientIsOpen)
        let second = try phone.connect()
        #expect(try second.roundTrip(3, on: phone) == 0)
        #expect(phone.report().connections.blackholed == 1)
    }

    /// A client that stops reading (its socket takes no more: NIO's channel is not writable
    /// above the write buffer's high water mark) stops the download there: nothing more is
    /// handed to it, the upstream is no longer read, and the link and radio carry nothing more.
    /// When it reads again every byte arrives, and the report puts the time the chunks waited
    /// for it in `readerWait`, apart from the link's delays. 1 MB/s each way, the proxy
    /// holding 64 KiB a direction.
    @Test func aClientThatStopsReadingHoldsTheFlowAndTheWaitIsTheReaders() throws {
        var options = ProxyOptions()
        options.bufferLimit = 64 * 1024
        let phone = try VirtualPhone(Self.profile(LinkParameters(capacity: .rate(bitsPerSecond: 8e6))), options: options)
        let connection = try phone.connect()
        let payload = Loopback.randomBytes(2_000_000, seed: 6)
        connection.write(payload)
        try phone.advance(to: 0.5, step: 0.01)
        connection.client.channel.isWritable = false
        connection.client.channel.pipeline.fireChannelWritabilityChanged()
        let handedOver = phone.report().bytes.down
        try phone.advance(to: 1, step: 0.01)
        let onAir = phone.report().radio.bytes.down
        try phone.advance(to: 3, step: 0.01)
        let held = phone.report()
        #expect(held.bytes.down == handedOver, "bytes handed to a client that took none")
        #expect(held.radio.bytes.down == onAir, "the link carried bytes for a client that took none")
        #expect(onAir < payload.count / 2, "the upstream was read on: \(onAir) bytes on air")
        connection.client.channel.isWritable = true
        connection.client.channel.pipeline.fireChannelWritabilityChanged()
        let done = try #require(try phone.advance(until: 6, step: 0.01) { connection.clientReceived.count == payload.count })
        #expect(connection.clientReceived == payload)
        let report = phone.report()
        let waited = try #require(report.readerWait?.down)
        // The first chunk held arrived by 0.6 s and waited to 3 s.
        #expect(waited.maxSeconds > 2.3 && waited.maxSeconds <= 2.5 + 1e-9, "\(waited)")
        #expect(waited.chunks >= 1 && waited.bytes > 0, "\(waited)")
        #expect(report.readerWait?.up.chunks == 0)
        // The link's own delays stay what they were: the wait is the reader's, not a queue.
        let queued = report.destinations?.compactMap { $0.waits[.queue]?.maxSeconds }.max() ?? 0
        #expect(queued < 0.5, "the link's queue held a chunk \(queued) s")
        #expect(done < 5)
    }

    /// subway's uplink is 1 Mbit/s at a station, 150 kbit/s from 25 s as the train leaves and
    /// none in the tunnel (30-60 s): a client that writes 10 MB has megabytes queued on the
    /// phone when the link slows, and its next chunk waits behind them, minutes by the slow
    /// rate. At the next station (60 s) the queue leaves at the station's rate again: from 61 s
    /// to 90 s, 29 s at 125,000 B/s carry 3.6 MB, and the server gets at least three quarters
    /// of that (the first of those seconds go to TCP's retransmission after the tunnel) and no
    /// more than that and a read's worth at each end (chunks count whole, and one is on its way
    /// at each end), where at the slow rate it would get 0.54 MB. The echo keeps pace too: the
    /// chunk that waits behind the slow queue does not hold the radio, and with it the downlink,
    /// until the slow rate would have sent it. The stations' rates carry the 10 MB up in about
    /// 148 s (3.1 MB by 25 s, 0.09 MB more by 30 s, 1.9 MB from 60 to 75 s, as much again by
    /// 105 s, the last 1.7 MB from 135 s), and the echo is back by 160 s.
    @Test func theNextStationsRateMovesTheQueuesOnSubway() throws {
        let phone = try VirtualPhone(try ProfileCatalog.builtin(named: "subway"), seed: 5)
        let connection = try phone.connect()
        let payload = Loopback.randomBytes(10_000_000, seed: 5)
        connection.write(payload)
        try phone.advance(to: 61, step: 0.1)
        let atStation = connection.serverReceived.count
        try phone.advance(to: 90, step: 0.1)
        let carried = Double(connection.serverReceived.count - atStation)
        let atStationRate = 29 * 125_000.0
        #expect(carried >= 0.75 * atStationRate && carried <= atStationRate + 2 * Double(VirtualPhone.readSize), "\(carried) bytes")
        let echoed = try phone.advance(until: 160, step: 0.1) { connection.clientReceived.count == payload.count }
        #expect(echoed != nil, "\(connection.clientReceived.count) bytes back by 160 s")
        #expect(connection.clientReceived == payload)
    }

    /// A phone's TCP gives up on bytes a dead path swallows after `tcp_retries2` (924.6 s): the
    /// proxy fails the client then, not a step before.
    @Test func aClientWhoseBytesABlackholeSwallowedFailsWhenTCPWouldGiveUp() throws {
        let phone = try VirtualPhone(Self.profile(events: [TimelineEvent(at: 10, kind: .outage(duration: 5, mode: .blackhole))]))
        let connection = try phone.connect()
        #expect(try connection.roundTrip(10, on: phone) != nil)
        try phone.advance(to: 11)
        connection.write([9])
        let failed = try #require(try phone.advance(until: 1000, step: 0.1) { !connection.clientIsOpen })
        #expect(abs(failed - (11 + tcpRetransmissionGiveUpSeconds)) <= 0.1 + 1e-9, "the client failed at \(failed) s")
    }
}

/// One emulated phone on virtual time, with connections of a forward rule to one upstream:
/// each side's socket is an `EmbeddedChannel`, its bytes handed to the proxy only when the
/// proxy asks to read (as a socket's would be), and time moves in steps the test chooses.
/// Single-threaded: everything runs on the test's thread, the embedded loop's.
final class VirtualPhone {
    /// How much of a side's bytes one read hands over: a socket's read buffer.
    static let readSize = 65_536

    let loop: EmbeddedEventLoop
    private let device: EmulatedDevice
    private let upstreams: NIOLoopBoundBox<[EmbeddedChannel]>
    private var connections: [VirtualConnection] = []

    init(_ profile: Profile, seed: UInt64 = 1, options: ProxyOptions = ProxyOptions()) throws {
        let loop = EmbeddedEventLoop()
        self.loop = loop
        let upstreams = NIOLoopBoundBox([EmbeddedChannel](), eventLoop: loop)
        self.upstreams = upstreams
        var logger = Logger(label: "netsim.virtual-time")
        logger.logLevel = .critical
        device = EmulatedDevice(
            model: DeviceModel(profile: profile, seed: seed), phone: nil, seed: seed, loop: loop, clock: ProxyClock(loop: loop),
            options: options, events: PhoneEventPublisher(hub: PhoneEventHub(), phone: 1), logger: logger,
            dialer: UpstreamDialer { _, address, prepare in
                let channel = EmbeddedChannel(loop: loop)
                upstreams.value.append(channel)
                return prepare(channel).flatMap { channel.connect(to: address) }.map { channel }
            })
        device.startTimeline()
    }

    /// The model's seconds now.
    var now: Double { Double(loop.now.uptimeNanoseconds) / 1e9 }

    /// A client connects through the forward rule; its upstream echoes what it gets, or
    /// keeps it (`echo` false).
    func connect(echo: Bool = true) throws -> VirtualConnection {
        let client = EmbeddedChannel(loop: loop)
        let clientReads = ReadRequests()
        try client.pipeline.syncOperations.addHandler(clientReads)
        let upstreamCount = upstreams.value.count
        try device.accept(client, upstream: try SocketAddress(ipAddress: "127.0.0.1", port: 8080))
        client.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 50_000 + connections.count), promise: nil)
        let upstream = upstreams.value[upstreamCount]
        let upstreamReads = ReadRequests()
        try upstream.pipeline.syncOperations.addHandler(upstreamReads, position: .first)
        let connection = VirtualConnection(
            client: VirtualSocket(channel: client, reads: clientReads), upstream: VirtualSocket(channel: upstream, reads: upstreamReads),
            echo: echo)
        connections.append(connection)
        try pump()
        return connection
    }

    /// Plays time to `time` (seconds of the model) in steps of `step`.
    func advance(to time: Double, step: Double = 0.001) throws {
        _ = try advance(until: time, step: step) { false }
    }

    /// Plays time in steps of `step` until `condition` holds, at most to `limit`: the time it
    /// first held, or nil.
    func advance(until limit: Double, step: Double = 0.001, _ condition: () -> Bool) throws -> Double? {
        try pump()
        if condition() { return now }
        var time = now
        while time < limit - 1e-9 {
            time = min(limit, time + step)
            loop.advanceTime(to: .uptimeNanoseconds(UInt64((time * 1e9).rounded())))
            try pump()
            if condition() { return now }
        }
        return nil
    }

    func report() -> RunReport { device.report() }

    /// Does to the device now what an admin API request does (`device.trigger` for `POST
    /// /outage`, `/set`, `/network`; `endOutage`, `pauseTimeline`, `resumeTimeline`), then
    /// lets the sockets move.
    @discardableResult
    func admin<Answer>(_ request: (EmulatedDevice) -> Answer) throws -> Answer {
        let answer = request(device)
        try pump()
        return answer
    }

    /// Ends the run as `NetsimProxy.stop` does: the report as of now, then every connection
    /// closed and a capture told where the run ended.
    func stop() throws -> RunReport {
        let report = device.report()
        device.stop(at: report.durationSeconds)
        try pump()
        return report
    }

    /// Hands each side the bytes waiting for it as the proxy reads, and collects what the
    /// proxy wrote, until nothing moves.
    private func pump() throws {
        var moved = true
        while moved {
            moved = false
            for connection in connections { moved = try connection.pump() || moved }
            loop.run()
        }
    }
}

/// One side's socket: its channel and the reads the proxy let through to it.
struct VirtualSocket {
    let channel: EmbeddedChannel
    let reads: ReadRequests

    /// Hands over up to a read's worth of `waiting` if a read was asked for; whether it did.
    /// A `ByteBuffer` moves its reader index, where an array would shift megabytes a read.
    func feed(_ waiting: inout ByteBuffer) throws -> Bool {
        guard waiting.readableBytes > 0, channel.isActive else { return false }
        // The channel's automatic read, as a socket channel's autoRead issues it.
        channel.read()
        guard reads.take(), let chunk = waiting.readSlice(length: min(VirtualPhone.readSize, waiting.readableBytes)) else {
            return false
        }
        try channel.writeInbound(chunk)
        return true
    }

    /// What the proxy wrote to this side since the last call.
    func written() throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes.append(contentsOf: buffer.readableBytesView) }
        return bytes
    }
}

/// One proxied connection between a virtual client and a virtual server.
final class VirtualConnection {
    let client: VirtualSocket
    let upstream: VirtualSocket
    let echo: Bool
    private var clientWaiting = ByteBuffer()
    private var serverWaiting = ByteBuffer()
    /// Everything the server and the client received, in order.
    private(set) var serverReceived: [UInt8] = []
    private(set) var clientReceived: [UInt8] = []

    init(client: VirtualSocket, upstream: VirtualSocket, echo: Bool) {
        self.client = client
        self.upstream = upstream
        self.echo = echo
    }

    /// Whether the proxy has not closed (or reset) the client's socket.
    var clientIsOpen: Bool { client.channel.isActive }

    /// The client app writes `bytes`.
    func write(_ bytes: [UInt8]) {
        clientWaiting.writeBytes(bytes)
    }

    /// Writes `count` bytes and plays time until as many came back (at most `within`
    /// seconds): how long that took, or nil.
    func roundTrip(_ count: Int, on phone: VirtualPhone, within limit: Double = 10) throws -> Double? {
        let start = phone.now
        let expected = clientReceived.count + count
        write([UInt8](repeating: 7, count: count))
        return try phone.advance(until: start + limit) { clientReceived.count >= expected }.map { $0 - start }
    }

    func pump() throws -> Bool {
        var moved = try client.feed(&clientWaiting)
        moved = try upstream.feed(&serverWaiting) || moved
        let toServer = try upstream.written()
        serverReceived += toServer
        if echo { serverWaiting.writeBytes(toServer) }
        let toClient = try client.written()
        clientReceived += toClient
        return moved || !toServer.isEmpty || !toClient.isEmpty
    }
}

/// Whether the proxy has let a read through to a socket, between the socket and the proxy's
/// handler. Reads asked for before the socket reads are one read, as a NIO socket channel's
/// `readPending` is a flag, not a count: a count would bank a read the proxy let through
/// while it still wanted bytes and spend it after the proxy had said to hold, feeding it a
/// read's worth more each time (4 MB above the connection's buffer limit on subway, with
/// steps of 0.1 s).
final class ReadRequests: ChannelOutboundHandler {
    typealias OutboundIn = NIOAny
    private var pending = false

    func read(context: ChannelHandlerContext) {
        pending = true
        context.read()
    }

    /// Whether a read was asked for, consuming it.
    func take() -> Bool {
        defer { pending = false }
        return pending
    }
}
