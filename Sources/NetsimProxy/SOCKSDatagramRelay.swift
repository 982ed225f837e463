import Logging
import NIOCore
import NIOPosix
import NetsimCore

/// One SOCKS5 UDP ASSOCIATE (RFC 1928 section 7): a UDP socket the client sends its datagrams
/// to, each behind a `SOCKSDatagramHeader` naming its destination, relayed through the phone as
/// one flow (`DatagramFlow`: one NAT mapping, whatever the destination, as carriers map
/// endpoint-independently, RFC 4787 REQ-1). The server's datagrams come back with a header
/// naming their source. It lasts as long as the client's TCP connection that asked for it.
///
/// Only the client's own address may use it (the TCP connection's, and the port the request
/// named, or else the first it sends from); destinations obey the front end's rules
/// (`EmulatedDevice.resolve`: `--allow-to`, never netsim's own listeners). A datagram with a
/// fragment number is dropped and counted (`DatagramDrop.unsupported`): RFC 1928's
/// fragmentation is optional, and no client in use sends it. Lives on the phones' event loop.
final class SOCKSDatagramRelay {
    private let device: EmulatedDevice
    /// The address the client's TCP connection came from: only it may send here.
    private let clientAddress: IPAddressBytes
    /// The client's UDP address and port, once known.
    private var client: SocketAddress?
    private var requestedPort: Int?
    private var socket: (any Channel)?
    private var flow: DatagramFlow?
    private var destinations: [HostPort: Destination] = [:]
    private var warned: Set<Warning> = []
    private var closed = false

    private enum Destination {
        /// Being looked up, with the datagrams sent to it meanwhile (at most `waitingLimit`).
        case resolving([ByteBuffer])
        case resolved(SocketAddress)
        case refused
    }

    private enum Warning: Hashable {
        case stranger, malformed, fragment
    }

    /// The most destinations remembered; past it, they are looked up again.
    static let destinationLimit = 256
    /// The most datagrams kept for one destination while its name is looked up.
    static let waitingLimit = 16

    private init(device: EmulatedDevice, clientAddress: IPAddressBytes, requestedPort: Int?) {
        self.device = device
        self.clientAddress = clientAddress
        self.requestedPort = requestedPort
    }

    /// Binds the relay's socket on `host` (the address the client reached the front end on),
    /// for the client at `clientAddress`; `requestedPort` is the port its request named (nil
    /// if it named none).
    static func start(
        device: EmulatedDevice, clientAddress: IPAddressBytes, requestedPort: Int?, host: String
    ) -> EventLoopFuture<SOCKSDatagramRelay> {
        let relay = SOCKSDatagramRelay(device: device, clientAddress: clientAddress, requestedPort: requestedPort)
        let bound = NIOLoopBound(relay, eventLoop: device.loop)
        return DatagramBootstrap(group: device.loop)
            .channelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: DatagramFlow.receiveBufferBytes))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let relay = bound.value
                    try channel.pipeline.syncOperations.addHandler(DatagramReader { relay.received($0) })
                }
            }
            .bind(host: host, port: 0)
            .map { channel in
                bound.value.socket = channel
                return bound.value
            }
    }

    /// Where the client sends its datagrams.
    var address: SocketAddress? { socket?.localAddress }

    /// A datagram on the relay's socket.
    func received(_ envelope: AddressedEnvelope<ByteBuffer>) {
        guard !closed else { return }
        let source = envelope.remoteAddress
        guard source.ipAddress.flatMap(IPAddressBytes.init) == clientAddress, client.map({ $0 == source }) ?? true,
            requestedPort.map({ $0 == source.port }) ?? true
        else {
            return warnOnce(.stranger, "a datagram from \(source.logText), not the client that asked for the relay: dropped")
        }
        var payload = envelope.data
        let header: SOCKSDatagramHeader
        do {
            header = try SOCKSDatagramHeader.read(from: &payload)
        } catch {
            return warnOnce(.malformed, "a datagram with \(error): dropped")
        }
        let flow = self.flow ?? openFlow(for: source)
        guard header.fragment == 0 else {
            device.datagramDropped(payload.readableBytes, .up, .unsupported)
            return warnOnce(.fragment, "a datagram with fragment number \(header.fragment) (fragmentation is not supported): dropped")
        }
        guard let destination = header.destination else {
            return warnOnce(.malformed, "a datagram to port \(header.port), which is not a destination: dropped")
        }
        switch destinations[destination] {
        case .resolved(let address):
            flow.clientSent(payload, to: address)
        case .refused:
            break
        case .resolving(var waiting):
            if waiting.count < Self.waitingLimit { waiting.append(payload) }
            destinations[destination] = .resolving(waiting)
        case nil:
            if destinations.count >= Self.destinationLimit { destinations = [:] }
            destinations[destination] = .resolving([payload])
            device.resolve(destination, for: .datagrams) { [self] result in resolved(destination, result) }
        }
    }

    private func openFlow(for client: SocketAddress) -> DatagramFlow {
        self.client = client
        let flow = DatagramFlow(id: device.openDatagramFlow(), client: client, device: device) { [self] payload, source in
            guard let socket, socket.isWritable, let header = SOCKSDatagramHeader(source: source) else { return false }
            var buffer = socket.allocator.buffer(capacity: payload.readableBytes + 22)
            header.write(to: &buffer)
            buffer.writeImmutableBuffer(payload)
            socket.writeAndFlush(AddressedEnvelope(remoteAddress: client, data: buffer), promise: nil)
            return true
        }
        self.flow = flow
        device.logger.debug("UDP flow \(flow.id) from \(client.logText) through a SOCKS5 relay")
        return flow
    }

    private func resolved(_ destination: HostPort, _ result: Result<SocketAddress, DialRefusal>) {
        guard !closed, case .resolving(let waiting) = destinations[destination] else { return }
        switch result {
        case .success(let address):
            destinations[destination] = .resolved(address)
            for payload in waiting { flow?.clientSent(payload, to: address) }
        case .failure:
            // `resolve` said why in the log.
            destinations[destination] = .refused
        }
    }

    private func warnOnce(_ warning: Warning, _ message: String) {
        guard warned.insert(warning).inserted else { return }
        device.logger.warning("SOCKS5 UDP relay \(address?.logText ?? "?"): \(message.escapingControlCharacters)")
    }

    /// The client's TCP connection ended: so does the relay.
    func close() {
        guard !closed else { return }
        closed = true
        flow?.close()
        socket?.close(promise: nil)
    }
}

/// The TCP connection of a SOCKS5 UDP association once the relay is running: what the client
/// sends on it is read and discarded (RFC 1928 gives it nothing more to say), and its end ends
/// the relay.
final class SOCKSAssociationHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let relay: SOCKSDatagramRelay

    init(relay: SOCKSDatagramRelay) {
        self.relay = relay
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func channelInactive(context: ChannelHandlerContext) {
        relay.close()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
