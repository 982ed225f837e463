import Logging
import NIOCore
import NIOPosix
import NetsimCore

/// One `--udp-forward LISTEN=UPSTREAM` rule: every client address and port that sends to the
/// listening socket is a flow (`DatagramFlow`) of the phone the rule names or its source address
/// gets, relayed to the upstream. The server's datagrams come back to the client from the
/// listening socket, as from the server itself.
///
/// Flows idle for `idleFlowSeconds` (or the NAT's UDP timeout, if longer) are closed; at most
/// `maximumFlows` are open, and a new client beyond them is dropped with a log line. Lives on
/// the phones' event loop.
final class DatagramForwarder {
    private let phones: PhoneSet
    private let rule: ForwardRule
    private let upstream: SocketAddress
    private var listener: (any Channel)?
    private var flows: [SocketAddress: DatagramFlow] = [:]
    private var sweep: Scheduled<Void>?
    private var warnedOfFlowLimit = false
    /// How long a flow may be idle before its sockets are closed, in emulated seconds.
    private let idleSeconds: Double

    /// The most flows one rule holds: each is a socket.
    static let maximumFlows = 4096
    /// Emulated seconds without a datagram after which a flow's sockets are closed, unless the
    /// NAT keeps UDP mappings longer (RFC 4787 REQ-5 asks at least 2 minutes of a NAT).
    static let idleFlowSeconds = 300.0

    init(phones: PhoneSet, rule: ForwardRule, upstream: SocketAddress, udpIdleTimeout: Double?) {
        self.phones = phones
        self.rule = rule
        self.upstream = upstream
        self.idleSeconds = max(Self.idleFlowSeconds, udpIdleTimeout ?? 0)
    }

    /// Binds the rule's listening socket and starts closing idle flows; returns the socket.
    static func start(
        rule: ForwardRule, upstream: SocketAddress, udpIdleTimeout: Double?, phones: NIOLoopBound<PhoneSet>
    ) -> EventLoopFuture<any Channel> {
        let loop = phones.eventLoop
        let forwarder = NIOLoopBound(
            DatagramForwarder(phones: phones.value, rule: rule, upstream: upstream, udpIdleTimeout: udpIdleTimeout), eventLoop: loop)
        return DatagramBootstrap(group: loop)
            .channelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .channelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: DatagramFlow.receiveBufferBytes))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let forwarder = forwarder.value
                    try channel.pipeline.syncOperations.addHandler(DatagramReader { forwarder.clientSent($0) })
                }
            }
            .bind(host: rule.listen.host, port: rule.listen.port)
            .map { channel in
                forwarder.value.started(on: channel)
                return channel
            }
    }

    private func started(on channel: any Channel) {
        listener = channel
        scheduleSweep(on: channel.eventLoop)
        channel.closeFuture.assumeIsolated().whenComplete { [self] _ in stop() }
    }

    /// Every phone's clock: they share the run's origin and scale.
    private var clock: ProxyClock { phones.devices[0].clock }

    /// A datagram from a client: to its flow, opened on its first.
    func clientSent(_ envelope: AddressedEnvelope<ByteBuffer>) {
        guard let listener else { return }
        let client = envelope.remoteAddress
        let flow: DatagramFlow
        if let known = flows[client] {
            flow = known
        } else {
            guard flows.count < Self.maximumFlows else {
                if !warnedOfFlowLimit {
                    warnedOfFlowLimit = true
                    phones.logger.warning(
                        "UDP \(rule.listen): \(Self.maximumFlows) flows open; datagrams from new clients are dropped until some go idle")
                }
                return
            }
            let device = phones.device(forRule: rule.phone, source: client.ipAddress.flatMap(IPAddressBytes.init))
            flow = DatagramFlow(id: device.openDatagramFlow(), client: client, device: device) { payload, _ in
                guard listener.isWritable else { return false }
                listener.writeAndFlush(AddressedEnvelope(remoteAddress: client, data: payload), promise: nil)
                return true
            }
            flows[client] = flow
            device.logger.debug("UDP flow \(flow.id) from \(client.logText) to \(upstream.logText)")
        }
        flow.clientSent(envelope.data, to: upstream)
    }

    /// Looks for idle flows ten times per `idleSeconds`.
    private func scheduleSweep(on loop: any EventLoop) {
        let period = TimeAmount.nanoseconds(Int64(idleSeconds / 10 / clock.timeScale * 1e9))
        sweep = loop.assumeIsolated().scheduleTask(in: period) { [self] in
            closeIdleFlows()
            scheduleSweep(on: loop)
        }
    }

    private func closeIdleFlows() {
        let now = clock.now()
        for (client, flow) in flows where flow.lastActivity < now - idleSeconds {
            flow.close()
            flows[client] = nil
        }
    }

    private func stop() {
        sweep?.cancel()
        sweep = nil
        listener = nil
        for flow in flows.values { flow.close() }
        flows = [:]
    }
}
