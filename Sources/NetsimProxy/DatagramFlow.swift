import Logging
import NIOCore
import NIOPosix
import NetsimCore

/// One UDP flow through a phone: a client's address and port on one side, on the other the
/// upstream socket that stands for the carrier NAT's mapping, and every datagram between them
/// crossing the phone's model (`EmulatedDevice.sendDatagram`). A new mapping (the NAT forgot
/// the old one, or a handover changed the phone's address) is a new upstream socket, so the
/// server sees a new source port, as it would from a real phone; the old socket is closed, and
/// what the server sends to it is gone.
///
/// Only the addresses the flow has sent to may answer it (a carrier NAT's address-and-port-
/// dependent filtering, RFC 4787 section 5): nothing else reaches the client through netsim.
/// Lives on the phone's event loop.
final class DatagramFlow {
    let id: DatagramFlowID
    /// The client's address and port: the flow's key.
    let client: SocketAddress
    /// Emulated seconds when a datagram last went either way, for closing idle flows.
    private(set) var lastActivity: Double
    private let device: EmulatedDevice
    /// Writes a datagram from `source` (an upstream peer) to the client; false if the socket had
    /// no room.
    private let reply: (ByteBuffer, _ source: SocketAddress) -> Bool
    private var upstream = Upstream.none
    /// The peers sent to, at most `peerLimit`.
    private var peers: Set<SocketAddress> = []
    private var closed = false

    /// The upstream socket of the NAT mapping in force.
    private enum Upstream {
        case none
        /// Binding, with the datagrams due meanwhile (at most `waitingLimit`).
        case binding(mapping: Int, waiting: [AddressedEnvelope<ByteBuffer>])
        case bound(any Channel, mapping: Int)
    }

    /// The most datagrams kept while a new upstream socket binds (it binds at once on a
    /// working host; this bounds a host out of ports).
    static let waitingLimit = 256
    /// The most peers a flow remembers (a SOCKS5 client may send anywhere it is allowed to).
    static let peerLimit = 256

    init(
        id: DatagramFlowID, client: SocketAddress, device: EmulatedDevice,
        reply: @escaping (ByteBuffer, _ source: SocketAddress) -> Bool
    ) {
        self.id = id
        self.client = client
        self.device = device
        self.reply = reply
        self.lastActivity = device.clock.now()
    }

    /// A datagram the client sent to `destination`: through the phone, then out of the
    /// upstream socket of the mapping it left on.
    func clientSent(_ payload: ByteBuffer, to destination: SocketAddress) {
        guard !closed else { return }
        lastActivity = device.clock.now()
        let bytes = payload.readableBytes
        guard bytes <= UDPDatagram.maximumPayload else {
            return tooLarge(bytes, .up)
        }
        _ = device.sendDatagram(payload, .up, on: id, mapping: nil, clientPort: client.port ?? 0, peer: destination) { [self] mapping in
            writeUpstream(AddressedEnvelope(remoteAddress: destination, data: payload), mapping: mapping)
        }
    }

    private func tooLarge(_ bytes: Int, _ direction: Direction) {
        device.logger.warning(
            "UDP flow \(id) from \(client.logText): dropped a datagram of \(bytes) bytes, more than the \(UDPDatagram.maximumPayload) a UDP datagram carries"
        )
        device.datagramDropped(bytes, direction, .unsupported)
    }

    /// The datagram reached the carrier's NAT on `mapping`: it leaves by that mapping's socket,
    /// made now if the mapping is new.
    private func writeUpstream(_ envelope: AddressedEnvelope<ByteBuffer>, mapping: Int) -> Bool {
        guard !closed else { return false }
        if peers.count < Self.peerLimit { peers.insert(envelope.remoteAddress) }
        switch upstream {
        case .bound(let channel, let current) where current >= mapping:
            guard channel.isWritable else { return false }
            channel.writeAndFlush(envelope, promise: nil)
            return true
        case .binding(let current, var waiting) where current >= mapping:
            guard waiting.count < Self.waitingLimit else { return false }
            waiting.append(envelope)
            upstream = .binding(mapping: current, waiting: waiting)
            return true
        case .none, .bound, .binding:
            remap(to: mapping, first: envelope)
            return true
        }
    }

    /// Closes the old mapping's socket and binds the new one's.
    private func remap(to mapping: Int, first: AddressedEnvelope<ByteBuffer>) {
        if case .bound(let old, _) = upstream {
            old.close(promise: nil)
            device.datagramFlowRemapped()
        } else if case .binding = upstream {
            device.datagramFlowRemapped()
        }
        upstream = .binding(mapping: mapping, waiting: [first])
        let bound = NIOLoopBound(self, eventLoop: device.loop)
        let any = first.remoteAddress.protocol == .inet6 ? "::" : "0.0.0.0"
        DatagramBootstrap(group: device.loop)
            .channelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.receiveBufferBytes))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let flow = bound.value
                    try channel.pipeline.syncOperations.addHandler(
                        DatagramReader { flow.upstreamSent($0.data, from: $0.remoteAddress, mapping: mapping) })
                }
            }
            .bind(host: any, port: 0)
            .assumeIsolated()
            .whenComplete { [self] result in upstreamBound(result, mapping: mapping) }
    }

    private func upstreamBound(_ result: Result<any Channel, any Error>, mapping: Int) {
        guard case .binding(let current, let waiting) = upstream, current == mapping, !closed else {
            if case .success(let channel) = result { channel.close(promise: nil) }
            return
        }
        switch result {
        case .success(let channel):
            upstream = .bound(channel, mapping: mapping)
            for envelope in waiting where channel.isWritable { channel.write(envelope, promise: nil) }
            channel.flush()
        case .failure(let error):
            device.logger.warning(
                "UDP flow \(id) from \(client.logText): cannot open its upstream socket (\(error)); its datagrams are dropped")
            upstream = .none
        }
    }

    /// A datagram the upstream socket of `mapping` received from `source`: through the phone
    /// (which drops it if that mapping is no longer the flow's), then to the client.
    func upstreamSent(_ payload: ByteBuffer, from source: SocketAddress, mapping: Int) {
        guard !closed, peers.contains(source) else { return }
        lastActivity = device.clock.now()
        let bytes = payload.readableBytes
        guard bytes <= UDPDatagram.maximumPayload else { return tooLarge(bytes, .down) }
        _ = device.sendDatagram(payload, .down, on: id, mapping: mapping, clientPort: client.port ?? 0, peer: source) { [self] _ in
            !closed && reply(payload, source)
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        if case .bound(let channel, _) = upstream { channel.close(promise: nil) }
        upstream = .none
        device.closeDatagramFlow(id)
    }

    /// Room for the largest datagram (65,535 bytes with its headers) in one read.
    static let receiveBufferBytes = 65_536
}

/// Hands each datagram a socket reads to `received`. An ICMP error or a failed send is
/// ignored: UDP promises nothing, and the socket goes on. Every datagram socket of netsim's
/// reads through one: a rule's listener, a flow's upstream, a SOCKS5 relay.
final class DatagramReader: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let received: (AddressedEnvelope<ByteBuffer>) -> Void

    init(_ received: @escaping (AddressedEnvelope<ByteBuffer>) -> Void) {
        self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received(unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}

extension SocketAddress {
    /// `127.0.0.1:4433` or `[::1]:4433`, for log lines (NIO's own description repeats the
    /// address and names its family).
    var logText: String {
        let host = ipAddress ?? "?"
        return host.contains(":") ? "[\(host)]:\(port ?? 0)" : "\(host):\(port ?? 0)"
    }
}
