import NIOCore
import NIOSOCKS
import NetsimCore

/// The SOCKS5 front end's server side, behind NIOSOCKS' `SOCKSServerHandshakeHandler` (which
/// parses and enforces the protocol): it picks the authentication method, checks RFC 1929
/// credentials, and dials the requested destination through the device. Once the upstream is
/// connected it replies, leaves the pipeline with the handshake handler, and the client's
/// channel is an ordinary side of an emulated connection. A UDP ASSOCIATE gets a relay
/// (`SOCKSDatagramRelay`) that lasts as long as the client's connection.
///
/// Reads are pulled only while a handshake message is awaited: while the destination is
/// dialed the client is not read, so what it sends ahead of the reply stays in the handshake
/// handler's buffer (one read at most) and reaches the connection when that handler leaves.
final class SOCKSFrontEndHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ClientMessage
    typealias OutboundIn = Never
    typealias OutboundOut = ServerMessage

    private enum State {
        case awaitingGreeting
        /// Username and password bytes so far (RFC 1929 allows at most 513).
        case authenticating(ByteBuffer)
        /// The username the client gave, if it gave one: with several phones, it names the phone.
        case awaitingRequest(username: String?)
        case dialing(HostPort)
        /// Opening a UDP relay for the client.
        case associating
        /// Replied with an error, handed over, or the client left: nothing more happens.
        case done
    }

    private let phones: PhoneSet
    private let credentials: SOCKSCredentials?
    private let readLimit: HandshakeReadLimit
    private var state = State.awaitingGreeting
    private var handshakeTimeout: Scheduled<Void>?

    init(phones: PhoneSet, credentials: SOCKSCredentials?, readLimit: HandshakeReadLimit) {
        self.phones = phones
        self.credentials = credentials
        self.readLimit = readLimit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        handshakeTimeout = scheduleHandshakeTimeout(context, frontEnd: "SOCKS5", logger: phones.logger) { [self] in
            state = .done
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        handshakeTimeout?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (state, unwrapInboundIn(data)) {
        case (.awaitingGreeting, .greeting(let greeting)):
            greet(greeting, context: context)
        case (.authenticating(var received), .authenticationData(var bytes)):
            received.writeBuffer(&bytes)
            authenticate(received, context: context)
        case (.awaitingRequest(let username), .request(let request)):
            handle(request, username: username, context: context)
        case (.done, _):
            break
        default:
            phones.logger.warning("SOCKS5 client \(frontEndPeer(context)): a message out of order; closing")
            state = .done
            writeRaw([5, SOCKSServerReply.serverFailure.value, 0, 1, 0, 0, 0, 0, 0, 0], context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !(error is IOError) else {
            state = .done
            context.close(promise: nil)
            return
        }
        switch state {
        case .awaitingGreeting:
            phones.logger.warning("SOCKS5 client \(frontEndPeer(context)): malformed greeting (\(error)); closing")
            state = .done
            // The handshake handler refuses to write after an error: the reply (no acceptable
            // method) goes straight to the socket.
            writeRaw([5, 0xFF], context: context)
        case .authenticating, .awaitingRequest, .dialing, .associating:
            phones.logger.warning("SOCKS5 client \(frontEndPeer(context)): malformed request (\(error)); closing")
            state = .done
            writeRaw([5, SOCKSServerReply.serverFailure.value, 0, 1, 0, 0, 0, 0, 0, 0], context: context)
        case .done:
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        state = .done
        context.fireChannelInactive()
        leaveBeforeTeardown(context)
    }

    func read(context: ChannelHandlerContext) {
        switch state {
        case .awaitingGreeting, .authenticating, .awaitingRequest: context.read()
        case .dialing, .associating, .done: break
        }
    }

    // MARK: Steps

    /// Picks username and password when credentials are required; without them, when the
    /// client offers it and either there are several phones (its username names its phone) or
    /// it offers nothing else (a client set up for a run of several, pointed at a run of one):
    /// any username and password will do then. Else no authentication.
    private func greet(_ greeting: ClientGreeting, context: ChannelHandlerContext) {
        let offersUsername = greeting.methods.contains(.usernamePassword)
        let readsUsername = offersUsername && (phones.clientsChoose || !greeting.methods.contains(.noneRequired))
        let wanted: AuthenticationMethod = credentials == nil && !readsUsername ? .noneRequired : .usernamePassword
        guard greeting.methods.contains(wanted) else {
            phones.logger.warning(
                "SOCKS5 client \(frontEndPeer(context)): offers no acceptable authentication method (\(credentials == nil ? "none" : "username/password") needed); closing"
            )
            state = .done
            context.writeAndFlush(wrapOutboundOut(.selectedAuthenticationMethod(.init(method: .noneAcceptable))))
                .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            return
        }
        state = wanted == .noneRequired ? .awaitingRequest(username: nil) : .authenticating(context.channel.allocator.buffer(capacity: 64))
        context.writeAndFlush(wrapOutboundOut(.selectedAuthenticationMethod(.init(method: wanted))), promise: nil)
    }

    /// RFC 1929: version 1, then the username and the password, each after its length byte.
    private func authenticate(_ received: ByteBuffer, context: ChannelHandlerContext) {
        switch UsernamePassword.parse(received) {
        case .needsMoreData:
            state = .authenticating(received)
        case .malformed:
            rejectAuthentication("malformed username/password authentication", context: context)
        case .parsed(let username, let password, let trailing):
            // A client must wait for this reply before its request: bytes after the
            // credentials are a protocol error.
            guard trailing == 0 else { return rejectAuthentication("bytes after the credentials", context: context) }
            if let credentials, username != credentials.username || password != credentials.password {
                return rejectAuthentication("wrong username or password", context: context)
            }
            state = .awaitingRequest(username: username)
            context.writeAndFlush(wrapOutboundOut(.authenticationData(ByteBuffer(bytes: [1, 0]), complete: true)), promise: nil)
        }
    }

    /// RFC 1929's failure status, then a close.
    private func rejectAuthentication(_ why: String, context: ChannelHandlerContext) {
        phones.logger.warning("SOCKS5 client \(frontEndPeer(context)): \(why); closing")
        state = .done
        context.writeAndFlush(wrapOutboundOut(.authenticationData(ByteBuffer(bytes: [1, 1]), complete: false)))
            .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    private func handle(_ request: SOCKSRequest, username: String?, context: ChannelHandlerContext) {
        if request.command == .udpAssociate { return associate(request, username: username, context: context) }
        guard request.command == .connect else {
            return fail(
                "command \(request.command.value) (only CONNECT and UDP ASSOCIATE are supported)", reply: .commandUnsupported,
                context: context)
        }
        let destination: HostPort
        switch request.addressType {
        case .address(let address):
            guard let ip = address.ipAddress, let port = address.port else {
                return fail("an address of an unknown type", reply: .addressUnsupported, context: context)
            }
            guard let valid = HostPort(validatingDestination: ip, port: port) else {
                return fail("a destination with port \(port)", reply: .hostUnreachable, context: context)
            }
            destination = valid
        case .domain(let name, let port):
            guard let valid = HostPort(validatingDestination: name, port: port) else {
                return fail(
                    "'\(name.escapingControlCharacters)' port \(port) is not a host name (RFC 1123) and port", reply: .hostUnreachable,
                    context: context)
            }
            destination = valid
        }
        let device: EmulatedDevice
        switch phones.device(named: username, client: context.channel) {
        case .success(let named): device = named
        case .failure(let refusal): return fail("\(refusal)", reply: .notAllowed, context: context)
        }
        state = .dialing(destination)
        handshakeTimeout?.cancel()
        device.dial(destination, from: context.channel) { [self] result in
            switch result {
            case .success(let connection): joinOrLeave(connection, context: context)
            case .failure(let refusal): refuse(refusal, context: context)
            }
        }
    }

    /// UDP ASSOCIATE: a relay on the address the client reached the front end on, for the
    /// client's address (and the port its request names, if it names one).
    private func associate(_ request: SOCKSRequest, username: String?, context: ChannelHandlerContext) {
        let device: EmulatedDevice
        switch phones.device(named: username, client: context.channel) {
        case .success(let named): device = named
        case .failure(let refusal): return fail("\(refusal)", reply: .notAllowed, context: context)
        }
        guard let clientAddress = context.channel.remoteAddress?.ipAddress.flatMap(IPAddressBytes.init),
            let host = context.channel.localAddress?.ipAddress
        else { return fail("a UDP ASSOCIATE on a connection without addresses", reply: .serverFailure, context: context) }
        let requestedPort: Int? =
            switch request.addressType {
            case .address(let address): address.port.flatMap { $0 == 0 ? nil : $0 }
            case .domain(_, let port): port == 0 ? nil : port
            }
        state = .associating
        handshakeTimeout?.cancel()
        SOCKSDatagramRelay.start(device: device, clientAddress: clientAddress, requestedPort: requestedPort, host: host)
            .assumeIsolated().whenComplete { [self] result in
                switch result {
                case .success(let relay): associated(relay, context: context)
                case .failure(let error): fail("cannot open a UDP relay (\(error))", reply: .serverFailure, context: context)
                }
            }
    }

    /// Replies with the relay's address; the connection then only keeps the relay alive.
    private func associated(_ relay: SOCKSDatagramRelay, context: ChannelHandlerContext) {
        guard case .associating = state, context.channel.isActive else { return relay.close() }
        state = .done
        let bound = SOCKSAddress.address(relay.address ?? Self.unspecified)
        context.writeAndFlush(wrapOutboundOut(.response(SOCKSResponse(reply: .succeeded, boundAddress: bound))), promise: nil)
        do {
            let pipeline = context.pipeline.syncOperations
            let handshake = try pipeline.handler(type: SOCKSServerHandshakeHandler.self)
            let channel = context.channel
            try pipeline.addHandler(SOCKSAssociationHandler(relay: relay))
            pipeline.removeHandler(context: context, promise: nil)
            pipeline.removeHandler(handshake, promise: nil)
            try readLimit.lift(on: channel)
            channel.read()
        } catch {
            phones.logger.warning("SOCKS5 client: cannot hand the association over (\(error)); closing")
            relay.close()
            context.channel.close(promise: nil)
        }
    }

    private func joinOrLeave(_ connection: ProxiedConnection, context: ChannelHandlerContext) {
        guard case .dialing = state else { return connection.clientLeft() }
        state = .done
        let bound = SOCKSAddress.address(context.channel.localAddress ?? Self.unspecified)
        context.writeAndFlush(wrapOutboundOut(.response(SOCKSResponse(reply: .succeeded, boundAddress: bound))), promise: nil)
        do {
            let pipeline = context.pipeline.syncOperations
            let handshake = try pipeline.handler(type: SOCKSServerHandshakeHandler.self)
            let channel = context.channel
            pipeline.removeHandler(context: context, promise: nil)
            try connection.join(channel)
            // Hands what the client sent after its request to the connection, in order.
            pipeline.removeHandler(handshake, promise: nil)
            try readLimit.lift(on: channel)
            channel.read()
        } catch {
            phones.logger.warning("SOCKS5 client: cannot hand the connection over (\(error)); closing")
            context.channel.close(promise: nil)
        }
    }

    private func refuse(_ refusal: DialRefusal, context: ChannelHandlerContext) {
        guard case .dialing(let destination) = state else { return }
        let reply: SOCKSServerReply
        switch refusal {
        case .notAllowed: reply = .notAllowed
        case .unresolvable: reply = .hostUnreachable
        case .unreachable: reply = .refused
        case .busy: reply = .serverFailure
        case .clientLeft: return
        }
        phones.logger.info("SOCKS5 client \(frontEndPeer(context)): \(destination) refused with reply \(reply.value)")
        state = .done
        respond(reply, context: context)
    }

    /// Replies to the request with `reply` and closes.
    private func fail(_ what: String, reply: SOCKSServerReply, context: ChannelHandlerContext) {
        phones.logger.warning("SOCKS5 client \(frontEndPeer(context)): \(what); closing")
        state = .done
        respond(reply, context: context)
    }

    private func respond(_ reply: SOCKSServerReply, context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(.response(SOCKSResponse(reply: reply, boundAddress: .address(Self.unspecified)))))
            .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// Writes `bytes` past the handshake handler (which refuses to write after a protocol
    /// error), then closes.
    private func writeRaw(_ bytes: [UInt8], context: ChannelHandlerContext) {
        guard let handshake = try? context.pipeline.syncOperations.context(handlerType: SOCKSServerHandshakeHandler.self) else {
            context.close(promise: nil)
            return
        }
        handshake.writeAndFlush(NIOAny(ByteBuffer(bytes: bytes))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    private static let unspecified = try! SocketAddress(ipAddress: "0.0.0.0", port: 0)
}

/// The RFC 1929 username/password request.
enum UsernamePassword: Equatable {
    case parsed(username: String, password: String, trailing: Int)
    case needsMoreData
    case malformed

    static func parse(_ buffer: ByteBuffer) -> UsernamePassword {
        var buffer = buffer
        guard let version = buffer.readInteger(as: UInt8.self) else { return .needsMoreData }
        guard version == 1 else { return .malformed }
        guard let usernameLength = buffer.readInteger(as: UInt8.self) else { return .needsMoreData }
        guard let username = buffer.readString(length: Int(usernameLength)) else { return .needsMoreData }
        guard let passwordLength = buffer.readInteger(as: UInt8.self) else { return .needsMoreData }
        guard let password = buffer.readString(length: Int(passwordLength)) else { return .needsMoreData }
        return .parsed(username: username, password: password, trailing: buffer.readableBytes)
    }
}
