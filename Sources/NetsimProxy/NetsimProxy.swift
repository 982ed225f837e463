import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSOCKS
import NetsimCore
import Synchronization

/// A live change (`outage`, `handover`) the profile's rules refuse.
public struct LiveChangeError: Error, CustomStringConvertible, Equatable {
    public let description: String
    init(_ description: String) { self.description = description }
}

public enum ProxyError: Error, CustomStringConvertible, Equatable {
    case cannotListen(HostPort, reason: String)
    case cannotResolve(HostPort, reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
        case .cannotResolve(let address, let reason): "cannot resolve \(address): \(reason)"
        }
    }

    /// A listener that could not bind, in the same words for every listener (forward rules,
    /// front ends, the admin API).
    static func cannotListen(_ address: HostPort, because error: any Error) -> ProxyError {
        if let error = error as? IOError, error.errnoCode == EADDRINUSE {
            return .cannotListen(address, reason: "the address is already in use")
        }
        return .cannotListen(address, reason: "\(error)")
    }
}

/// A running emulating proxy: one emulated device behind one or more forward rules.
public final class NetsimProxy: Sendable {
    public let profile: Profile
    public let seed: UInt64
    /// The addresses actually bound, in rule order (a port 0 becomes the port the system chose).
    public let listeningAddresses: [HostPort]
    /// The front ends' addresses actually bound, in the order given.
    public let frontEndAddresses: [HostPort]
    private let device: NIOLoopBound<EmulatedDevice>
    private let listeners: [any Channel]
    private let eventHub: PhoneEventHub
    private let metrics: ProxyMetrics
    private let lagProbe: RepeatedTask

    private init(
        profile: Profile, seed: UInt64, device: NIOLoopBound<EmulatedDevice>, listeners: [any Channel], addresses: [HostPort],
        frontEndAddresses: [HostPort], eventHub: PhoneEventHub, metrics: ProxyMetrics
    ) {
        self.profile = profile
        self.seed = seed
        self.device = device
        self.listeners = listeners
        self.listeningAddresses = addresses
        self.frontEndAddresses = frontEndAddresses
        self.eventHub = eventHub
        self.metrics = metrics
        self.lagProbe = metrics.startLagProbe(on: device.eventLoop)
    }

    /// Starts listening on every rule's and every front end's address. The device and all its
    /// connections share one event loop of `group`. A front end listening beyond loopback turns
    /// on `AccessPolicy.refusesLocalDestinations`; every listener bound here is one of the
    /// policy's `ownListeners`.
    public static func start(
        profile: Profile, seed: UInt64, forwards: [ForwardRule], frontEnds: [FrontEndRule] = [],
        options: ProxyOptions = ProxyOptions(), group: any EventLoopGroup, logger: Logger
    ) async throws -> NetsimProxy {
        let options = options.guardingTheFrontDoor(frontEnds)
        let loop = group.next()
        var upstreams: [SocketAddress] = []
        for rule in forwards {
            do {
                upstreams.append(try SocketAddress.makeAddressResolvingHost(rule.upstream.host, port: rule.upstream.port))
            } catch {
                throw ProxyError.cannotResolve(rule.upstream, reason: "\(error)")
            }
        }
        let eventHub = PhoneEventHub()
        let device = try await loop.submit {
            let model = DeviceModel(
                profile: profile, seed: seed, recordsRadioTimeline: true, recordsChunkDelays: true)
            return NIOLoopBound(
                EmulatedDevice(
                    model: model, loop: loop, clock: ProxyClock(timeScale: options.timeScale), options: options, events: eventHub,
                    logger: logger),
                eventLoop: loop)
        }.get()

        var listeners: [any Channel] = []
        var addresses: [HostPort] = []
        let listenAddresses = forwards.map(\.listen) + frontEnds.map(\.listen)
        do {
            for (rule, upstream) in zip(forwards, upstreams) {
                let channel = try await listen(on: rule.listen, loop: loop, logger: logger) { channel in
                    try device.value.accept(channel, upstream: upstream)
                }
                try await protect(channel, on: device)
                listeners.append(channel)
                addresses.append(HostPort(host: rule.listen.host, port: channel.localAddress?.port ?? rule.listen.port))
            }
            for rule in frontEnds {
                let channel = try await listen(on: rule.listen, loop: loop, logger: logger) { channel in
                    try Self.startFrontEnd(rule.frontEnd, on: channel, device: device.value, access: options.access, logger: logger)
                }
                try await protect(channel, on: device)
                listeners.append(channel)
                addresses.append(HostPort(host: rule.listen.host, port: channel.localAddress?.port ?? rule.listen.port))
            }
        } catch {
            for listener in listeners { try? await listener.close() }
            throw ProxyError.cannotListen(listenAddresses[listeners.count], because: error)
        }
        try await loop.submit { device.value.startTimeline() }.get()
        return NetsimProxy(
            profile: profile, seed: seed, device: device, listeners: listeners, addresses: Array(addresses.prefix(forwards.count)),
            frontEndAddresses: Array(addresses.dropFirst(forwards.count)), eventHub: eventHub,
            metrics: ProxyMetrics(profile: profile.name, seed: seed))
    }

    /// Refuses `listener`'s address as a front end's destination from now on.
    private static func protect(_ listener: any Channel, on device: NIOLoopBound<EmulatedDevice>) async throws {
        guard let bound = listener.localAddress, let address = bound.ipAddress.flatMap(IPAddressBytes.init), let port = bound.port
        else { return }
        try await device.eventLoop.submit { device.value.protect(OwnListener(address: address, port: port)) }.get()
    }

    /// Refuses `listener` as a front end's destination from now on: another of netsim's own
    /// listening channels (the admin API), so that no proxy client can reach it.
    public func protect(_ listener: any Channel) async throws {
        try await Self.protect(listener, on: device)
    }

    /// A listening channel on `address` whose accepted channels `initialize` sets up, on `loop`.
    private static func listen(
        on address: HostPort, loop: any EventLoop, logger: Logger, initialize: @escaping @Sendable (any Channel) throws -> Void
    ) async throws -> any Channel {
        try await ServerBootstrap(group: loop, childGroup: loop)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptBackoff.handler(logger: logger))
                }
            }
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try initialize(channel) }
            }
            .bind(host: address.host, port: address.port)
            .get()
    }

    /// Sets up a front end's freshly accepted client, or closes it (with a log line) if
    /// `access` does not admit it.
    private static func startFrontEnd(
        _ frontEnd: FrontEndProtocol, on channel: any Channel, device: EmulatedDevice, access: AccessPolicy, logger: Logger
    ) throws {
        let peer = channel.remoteAddress
        guard let address = peer?.ipAddress.flatMap(IPAddressBytes.init), access.admits(client: address) else {
            logger.warning("refused a front-end client from \(peer?.description ?? "?"): outside --allow-from")
            throw FrontEndClientRefused()
        }
        let readLimit = try HandshakeReadLimit(limiting: channel)
        let pipeline = channel.pipeline.syncOperations
        switch frontEnd {
        case .socks5(let credentials):
            try pipeline.addHandler(SOCKSServerHandshakeHandler())
            try pipeline.addHandler(SOCKSFrontEndHandler(device: device, credentials: credentials, readLimit: readLimit))
        case .httpProxy:
            try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)))
            try pipeline.addHandler(HTTPProxyFrontEndHandler(device: device, readLimit: readLimit))
        }
    }

    public func status() async throws -> ProxyStatus {
        try await device.eventLoop.submit { [device] in device.value.status() }.get()
    }

    /// The report so far, without stopping.
    public func report() async throws -> RunReport {
        try await device.eventLoop.submit { [device, profile, seed] in device.value.report(profile: profile.name, seed: seed) }.get()
    }

    /// The proxy's metrics now, in the Prometheus text format (see `ProxyMetrics`).
    public func metricsText() async throws -> String {
        let snapshot = try await device.eventLoop.submit { [device] in device.value.metricsSnapshot() }.get()
        return metrics.render(snapshot, eventSubscribers: eventHub.subscriberCount)
    }

    /// What the phone does from now on (radio state changes, timeline events, connections),
    /// in order, until the proxy stops or the consumer stops iterating. A consumer that falls
    /// more than `PhoneEventHub.subscriberBufferLimit` events behind misses the later ones and
    /// gets `PhoneEvent.dropped` with their count before the next one it does get.
    public func events() -> AsyncStream<PhoneEvent> {
        eventHub.subscribe()
    }

    /// Triggers an outage, a handover or a `set` now, as if the timeline had it at this moment.
    public func trigger(_ kind: TimelineEvent.Kind) async throws -> DeviceEvent? {
        try await device.eventLoop.submit { [device] in device.value.trigger(kind) }.get()
    }

    // MARK: Live changes, checked as a profile's timeline is

    /// An outage now, as the timeline's `outage`: longer than zero and at most
    /// `Quantity.maximumDuration`. Returns the event as the report lists it.
    public func outage(seconds: Double, mode: OutageMode) async throws -> DeviceEvent? {
        guard seconds > 0, seconds <= Quantity.maximumDuration else {
            throw LiveChangeError(
                "an outage's duration must be longer than zero and at most \(Quantity.maximumDurationText), not \(Quantity.formatDuration(seconds))"
            )
        }
        return try await trigger(.outage(duration: seconds, mode: mode))
    }

    /// A move to another of the profile's networks now, as the timeline's `handover`: after
    /// `gapSeconds` without connectivity, with a fresh radio that starts IDLE.
    public func handover(to network: String, mode: HandoverMode, gapSeconds: Double = 0) async throws -> DeviceEvent? {
        guard profile.network(named: network) != nil else {
            throw LiveChangeError(
                "no network named '\(network)'; 'to' must name one of the profile's networks: \(profile.networks.map(\.name).joined(separator: ", "))"
            )
        }
        guard gapSeconds >= 0, gapSeconds <= Quantity.maximumDuration else {
            throw LiveChangeError(
                "a handover's gap must be at least zero and at most \(Quantity.maximumDurationText), not \(Quantity.formatDuration(gapSeconds))"
            )
        }
        return try await trigger(.handover(to: network, mode: mode, gap: gapSeconds))
    }

    /// Ends the outage or handover gap triggered through this API (`outage`, `handover`, the
    /// admin API) that is in force, now rather than at its planned end: the bytes it held are
    /// delivered as if it had been this long from its start. Throws `LiveChangeError` when
    /// the phone has connectivity, when the gap in force is the profile's timeline's, or when
    /// the outage held too much to plan again.
    public func endOutage() async throws -> OutageEnd {
        let ended = try await device.eventLoop.submit { [device] in device.value.endOutage() }.get()
        switch ended {
        case .success(let end): return end
        case .failure(let refusal): throw LiveChangeError(refusal.description)
        }
    }

    /// Takes back the latest `set` step made through this API (`trigger`, the admin API's
    /// `/set`, `EmulatedPhone.set`) and not yet undone, up to `DeviceModel.undoLimit` steps
    /// back: the fields it set get their earlier values. Returns the `set` event that did it
    /// (its `undoes` is the step's time); the timeline's own steps are its script and are not
    /// undone.
    public func undoSet() async throws -> DeviceEvent {
        let event = try await device.eventLoop.submit { [device] in device.value.undoSet() }.get()
        guard let event else {
            throw LiveChangeError("no set step to undo: none was made through the admin API, or each was undone already")
        }
        return event
    }

    /// Stops listening, closes every connection, and returns the final report.
    public func stop() async throws -> RunReport {
        for listener in listeners { try? await listener.close() }
        lagProbe.cancel()
        let report = try await device.eventLoop.submit { [device, profile, seed] in
            let report = device.value.report(profile: profile.name, seed: seed)
            device.value.stop(at: report.durationSeconds)
            return report
        }.get()
        eventHub.finishAll()
        return report
    }
}

/// A front-end client outside `--allow-from`: its channel is closed as it is accepted.
struct FrontEndClientRefused: Error {}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
