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
    /// A number of phones outside 1 to `NetsimProxy.maximumPhones`.
    case phoneCount(Int)
    /// A phone number outside 1 to the run's `count`.
    case noSuchPhone(Int, count: Int)

    public var description: String {
        switch self {
        case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
        case .cannotResolve(let address, let reason): "cannot resolve \(address): \(reason)"
        case .phoneCount(let count): "a run has 1 to \(NetsimProxy.maximumPhones) phones, not \(count)"
        case .noSuchPhone(let phone, let count):
            count == 1
                ? "there is no phone \(phone): the run has one phone, phone 1"
                : "there is no phone \(phone): the run's phones are 1 to \(count)"
        }
    }

    /// A listener that could not bind, in the same words for every listener (forward rules,
    /// front ends, the admin API).
    package static func cannotListen(_ address: HostPort, because error: any Error) -> ProxyError {
        if let error = error as? IOError, error.errnoCode == EADDRINUSE {
            return .cannotListen(address, reason: "the address is already in use")
        }
        return .cannotListen(address, reason: "\(error)")
    }
}

/// When each phone of a run plays the profile's timeline.
public enum TimelinePhase: String, Sendable, CaseIterable {
    /// Every phone at the scripted times: a tunnel at 45 s is a tunnel for all of them.
    case together
    /// Each phone's timeline starts a seeded delay later (`Timeline.staggerDelay`, drawn from
    /// the phone's seed), as phones spread over a city meet the same conditions at different
    /// times.
    case staggered
}

/// A running emulating proxy: one emulated phone (or `phoneCount` of them) behind one or more
/// forward rules and front ends.
public final class NetsimProxy: Sendable {
    public let profile: Profile
    /// The run's seed: phone K's is `seed + K - 1`, the seed of device K - 1 of a bench.
    public let seed: UInt64
    /// The run's phones (`netsim run --phones`), numbered from 1; `PhoneAssignment` says which
    /// one a client's connections cross.
    public let phoneCount: Int
    /// Every listener as bound, each with its rule: the forward rules, then the front ends,
    /// then the UDP forward rules, each in the order given.
    public let listeners: [Listener]
    /// The forward rules' addresses actually bound, in rule order (a port 0 becomes the port
    /// the system chose).
    public var listeningAddresses: [HostPort] { listeners.compactMap { if case .forward = $0.role { $0.address } else { nil } } }
    /// The front ends' addresses actually bound, in the order given.
    public var frontEndAddresses: [HostPort] { listeners.compactMap { if case .frontEnd = $0.role { $0.address } else { nil } } }
    /// The UDP forward rules' addresses actually bound, in rule order.
    public var datagramAddresses: [HostPort] {
        listeners.compactMap { if case .datagramForward = $0.role { $0.address } else { nil } }
    }
    private let phones: NIOLoopBound<PhoneSet>
    private let channels: [any Channel]
    private let eventHub: PhoneEventHub
    private let metrics: ProxyMetrics
    private let lagProbe: RepeatedTask

    /// The most phones one run emulates: each is a radio and link model and its connections on
    /// the proxy's one event loop.
    public static let maximumPhones = 1000

    private init(
        profile: Profile, seed: UInt64, phones: NIOLoopBound<PhoneSet>, phoneCount: Int, channels: [any Channel], listeners: [Listener],
        eventHub: PhoneEventHub, metrics: ProxyMetrics
    ) {
        self.profile = profile
        self.seed = seed
        self.phones = phones
        self.phoneCount = phoneCount
        self.channels = channels
        self.listeners = listeners
        self.eventHub = eventHub
        self.metrics = metrics
        self.lagProbe = metrics.startLagProbe(on: phones.eventLoop)
    }

    /// Starts listening on every rule's and every front end's address, and on every UDP
    /// forward rule's (`datagramForwards`). The phones and all their connections and flows
    /// share one event loop of `group`. A front end listening beyond
    /// loopback turns on `AccessPolicy.refusesLocalDestinations`; every listener bound here is
    /// one of the policy's `ownListeners`.
    public static func start(
        profile: Profile, seed: UInt64, phones phoneCount: Int = 1, timelinePhase: TimelinePhase = .together, forwards: [ForwardRule],
        frontEnds: [FrontEndRule] = [], datagramForwards: [ForwardRule] = [], options: ProxyOptions = ProxyOptions(),
        group: any EventLoopGroup, logger: Logger
    ) async throws -> NetsimProxy {
        guard (1...maximumPhones).contains(phoneCount) else { throw ProxyError.phoneCount(phoneCount) }
        if let rule = (forwards + datagramForwards).first(where: { ($0.phone ?? 1) > phoneCount || ($0.phone ?? 1) < 1 }) {
            throw ProxyError.noSuchPhone(rule.phone ?? 0, count: phoneCount)
        }
        let options = options.guardingTheFrontDoor(frontEnds)
        let loop = group.next()
        // Every upstream is resolved before anything listens: a name that does not resolve
        // stops the run with nothing bound.
        var bindings: [Binding] = []
        for rule in forwards { bindings.append(.forward(rule, try resolve(rule.upstream))) }
        bindings += frontEnds.map(Binding.frontEnd)
        for rule in datagramForwards { bindings.append(.datagramForward(rule, try resolve(rule.upstream))) }
        let eventHub = PhoneEventHub()
        let phones = try await loop.submit {
            // One origin: every phone's emulated time is the run's.
            let origin = loop.now
            let devices = (1...phoneCount).map { phone in
                let phoneSeed = seed &+ UInt64(phone - 1)
                let model = DeviceModel(
                    profile: profile, seed: phoneSeed, recordsRadioTimeline: true, recordsChunkDelays: true,
                    timelineDelay: timelinePhase == .staggered ? profile.timeline.staggerDelay(seed: phoneSeed) : 0)
                var phoneLogger = logger
                if phoneCount > 1 { phoneLogger[metadataKey: "phone"] = "\(phone)" }
                return EmulatedDevice(
                    model: model, phone: phoneCount > 1 ? phone : nil, seed: phoneSeed, loop: loop,
                    clock: ProxyClock(loop: loop, origin: origin, timeScale: options.timeScale),
                    options: options, events: PhoneEventPublisher(hub: eventHub, phone: phone), logger: phoneLogger)
            }
            return NIOLoopBound(PhoneSet(devices: devices, logger: logger), eventLoop: loop)
        }.get()

        var channels: [any Channel] = []
        var listeners: [Listener] = []
        for binding in bindings {
            do {
                let channel: any Channel
                switch binding {
                case .forward(let rule, let upstream):
                    channel = try await listen(on: rule.listen, loop: loop, logger: logger) { channel in
                        try phones.value.device(forRule: rule.phone, client: channel).accept(channel, upstream: upstream)
                    }
                case .frontEnd(let rule):
                    channel = try await listen(on: rule.listen, loop: loop, logger: logger) { channel in
                        try Self.startFrontEnd(rule.frontEnd, on: channel, phones: phones.value, access: options.access, logger: logger)
                    }
                case .datagramForward(let rule, let upstream):
                    channel = try await loop.flatSubmit {
                        DatagramForwarder.start(rule: rule, upstream: upstream, udpIdleTimeout: profile.nat?.udpIdleTimeout, phones: phones)
                    }.get()
                }
                // Listed before it is protected, so that a failure below closes it with the rest.
                channels.append(channel)
                try await protect(channel, on: phones)
                listeners.append(Listener(binding.role, boundPort: channel.localAddress?.port))
            } catch {
                for channel in channels { try? await channel.close() }
                throw ProxyError.cannotListen(binding.role.listen, because: error)
            }
        }
        try await loop.submit { for device in phones.value.devices { device.startTimeline() } }.get()
        return NetsimProxy(
            profile: profile, seed: seed, phones: phones, phoneCount: phoneCount, channels: channels, listeners: listeners,
            eventHub: eventHub, metrics: ProxyMetrics(profile: profile.name, seed: seed, phones: phoneCount))
    }

    /// A listener to bind: its rule, with a forward rule's upstream resolved.
    private enum Binding {
        case forward(ForwardRule, SocketAddress)
        case frontEnd(FrontEndRule)
        case datagramForward(ForwardRule, SocketAddress)

        var role: Listener.Role {
            switch self {
            case .forward(let rule, _): .forward(rule)
            case .frontEnd(let rule): .frontEnd(rule)
            case .datagramForward(let rule, _): .datagramForward(rule)
            }
        }
    }

    /// A forward rule's upstream, resolved before anything listens.
    private static func resolve(_ upstream: HostPort) throws -> SocketAddress {
        do {
            return try SocketAddress.makeAddressResolvingHost(upstream.host, port: upstream.port)
        } catch {
            throw ProxyError.cannotResolve(upstream, reason: "\(error)")
        }
    }

    /// Refuses `listener`'s address as a front end's destination from now on, on every phone.
    private static func protect(_ listener: any Channel, on phones: NIOLoopBound<PhoneSet>) async throws {
        guard let bound = listener.localAddress, let address = bound.ipAddress.flatMap(IPAddressBytes.init), let port = bound.port
        else { return }
        try await phones.eventLoop.submit {
            for device in phones.value.devices { device.protect(OwnListener(address: address, port: port)) }
        }.get()
    }

    /// Refuses `listener` as a front end's destination from now on: another of netsim's own
    /// listening channels (the admin API), so that no proxy client can reach it.
    public func protect(_ listener: any Channel) async throws {
        try await Self.protect(listener, on: phones)
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
        _ frontEnd: FrontEndProtocol, on channel: any Channel, phones: PhoneSet, access: AccessPolicy, logger: Logger
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
            try pipeline.addHandler(SOCKSFrontEndHandler(phones: phones, credentials: credentials, readLimit: readLimit))
        case .httpProxy:
            try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)))
            try pipeline.addHandler(HTTPProxyFrontEndHandler(phones: phones, readLimit: readLimit))
        }
    }

    /// Runs `body` on `phone`'s device, on its event loop; throws `ProxyError.noSuchPhone` for
    /// a number outside 1 to `phoneCount`.
    private func onPhone<Result: Sendable>(_ phone: Int, _ body: @escaping @Sendable (EmulatedDevice) -> Result) async throws -> Result {
        guard (1...phoneCount).contains(phone) else { throw ProxyError.noSuchPhone(phone, count: phoneCount) }
        return try await phones.eventLoop.submit { [phones] in body(phones.value.devices[phone - 1]) }.get()
    }

    /// Phone `phone`'s state now.
    public func status(phone: Int = 1) async throws -> ProxyStatus {
        try await onPhone(phone) { $0.status() }
    }

    /// Every phone in a line, phone 1 first.
    public func phoneSummaries() async throws -> [PhoneSummary] {
        try await phones.eventLoop.submit { [phones] in
            phones.value.devices.enumerated().map { PhoneSummary(phone: $0.offset + 1, status: $0.element.status()) }
        }.get()
    }

    /// Phone `phone`'s report so far, without stopping.
    public func report(phone: Int = 1) async throws -> RunReport {
        try await onPhone(phone) { $0.report() }
    }

    /// The proxy's metrics now, in the Prometheus text format (see `ProxyMetrics`): each
    /// phone's series with a `phone` label when there are several.
    public func metricsText() async throws -> String {
        let snapshots = try await phones.eventLoop.submit { [phones] in phones.value.devices.map { $0.metricsSnapshot() } }.get()
        return metrics.render(snapshots, eventSubscribers: eventHub.subscriberCount)
    }

    /// What phone `phone` does (every phone, if nil) from now on (radio state changes, timeline
    /// events, connections), in order, until the proxy stops or the consumer stops iterating.
    /// A consumer that falls more than `PhoneEventHub.subscriberBufferLimit` events behind
    /// misses the later ones and gets `PhoneEvent.dropped` with their count before the next one
    /// it does get.
    public func events(phone: Int? = nil) -> AsyncStream<NumberedPhoneEvent> {
        eventHub.subscribe(phone: phone)
    }

    /// Triggers an outage, a handover or a `set` on `phone` now, as if its timeline had it at
    /// this moment.
    public func trigger(_ kind: TimelineEvent.Kind, phone: Int = 1) async throws -> DeviceEvent? {
        try await onPhone(phone) { $0.trigger(kind) }
    }

    // MARK: Live changes, checked as a profile's timeline is

    /// An outage now, as the timeline's `outage`: longer than zero and at most
    /// `Quantity.maximumDuration`. Returns the event as the report lists it.
    public func outage(seconds: Double, mode: OutageMode, phone: Int = 1) async throws -> DeviceEvent? {
        guard seconds > 0, seconds <= Quantity.maximumDuration else {
            throw LiveChangeError(
                "an outage's duration must be longer than zero and at most \(Quantity.maximumDurationText), not \(Quantity.formatDuration(seconds))"
            )
        }
        return try await trigger(.outage(duration: seconds, mode: mode), phone: phone)
    }

    /// A move to another of the profile's networks now, as the timeline's `handover`: after
    /// `gapSeconds` without connectivity, with a fresh radio that starts IDLE.
    public func handover(to network: String, mode: HandoverMode, gapSeconds: Double = 0, phone: Int = 1) async throws -> DeviceEvent? {
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
        return try await trigger(.handover(to: network, mode: mode, gap: gapSeconds), phone: phone)
    }

    /// Ends the outage or handover gap triggered through this API (`outage`, `handover`, the
    /// admin API) that is in force on `phone`, now rather than at its planned end: the bytes it
    /// held are delivered as if it had been this long from its start. Throws `LiveChangeError`
    /// when the phone has connectivity, when the gap in force is the profile's timeline's, or
    /// when the outage held too much to plan again.
    public func endOutage(phone: Int = 1) async throws -> OutageEnd {
        switch try await onPhone(phone, { $0.endOutage() }) {
        case .success(let end): return end
        case .failure(let refusal): throw LiveChangeError(refusal.description)
        }
    }

    /// Takes back the latest `set` step made on `phone` through this API (`trigger`, the admin
    /// API's `/set`, `EmulatedPhone.set`) and not yet undone, up to `DeviceModel.undoLimit`
    /// steps back: the fields it set get their earlier values. Returns the `set` event that did
    /// it (its `undoes` is the step's time); the timeline's own steps are its script and are
    /// not undone.
    public func undoSet(phone: Int = 1) async throws -> DeviceEvent {
        guard let event = try await onPhone(phone, { $0.undoSet() }) else {
            throw LiveChangeError("no set step to undo: none was made through the admin API, or each was undone already")
        }
        return event
    }

    /// Pauses `phone`'s profile timeline now: no scripted event or scripted outage begins until
    /// `resumeTimeline`, and each then begins that much later; one in force runs its course.
    /// Returns the pause. Throws `LiveChangeError` when the profile has no timeline, when it
    /// has played all its events, or when it is paused already.
    public func pauseTimeline(phone: Int = 1) async throws -> TimelinePause {
        switch try await onPhone(phone, { $0.pauseTimeline() }) {
        case .success(let pause): return pause
        case .failure(let refusal): throw LiveChangeError(refusal.description)
        }
    }

    /// Runs `phone`'s paused timeline again; returns the pause, with when it ended. Throws
    /// `LiveChangeError` when it is not paused.
    public func resumeTimeline(phone: Int = 1) async throws -> TimelinePause {
        switch try await onPhone(phone, { $0.resumeTimeline() }) {
        case .success(let pause): return pause
        case .failure(let refusal): throw LiveChangeError(refusal.description)
        }
    }

    /// Stops listening, closes every connection of every phone, and returns each phone's final
    /// report, phone 1's first.
    public func stopEveryPhone() async throws -> [RunReport] {
        for channel in channels { try? await channel.close() }
        lagProbe.cancel()
        let reports = try await phones.eventLoop.submit { [phones] in
            phones.value.devices.map { device in
                let report = device.report()
                device.stop(at: report.durationSeconds)
                return report
            }
        }.get()
        eventHub.finishAll()
        return reports
    }

    /// Stops as `stopEveryPhone` does, and returns phone 1's report: the run's, when it has
    /// one phone.
    public func stop() async throws -> RunReport {
        try await stopEveryPhone()[0]
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
