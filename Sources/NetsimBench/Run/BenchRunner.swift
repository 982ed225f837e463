import Logging
import NIOPosix
import NetsimCore
import NetsimModel
import NetsimProxy

/// A finished bench: the JSON report and what the HTML charts draw besides.
public struct BenchResult: Sendable {
    public var report: BenchReport
    public var profile: Profile
    public var workload: Workload
    public var clientSettings: ClientSettings
    public var charts: [BenchTransport: TransportCharts]
    /// The profile's events as device 0 of the first transport saw them (every device runs the
    /// same timeline), in seconds since its proxy started.
    public var profileEvents: [DeviceEvent]
}

/// Runs one bench: every transport's server, one proxy (an emulated phone) and one client per
/// device, all at once, the same seeded workload for each transport; then the drain, and the
/// analysis.
public enum BenchRunner {
    /// A configuration `BenchConfiguration.problem` refuses.
    public struct ConfigurationProblem: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// Plays the whole bench and analyses it: the merge of its one part.
    public static func run(
        _ configuration: BenchConfiguration, logger: Logger, onProgress: @escaping @Sendable (BenchProgress) -> Void
    ) async throws -> BenchResult {
        try BenchShardMerge.merge([("this run", try await play(configuration, logger: logger, onProgress: onProgress))])
    }

    /// Plays the configuration's shard of the bench (every device, unsharded): its part, for
    /// `BenchShardMerge`.
    public static func play(
        _ configuration: BenchConfiguration, logger: Logger, onProgress: @escaping @Sendable (BenchProgress) -> Void
    ) async throws -> BenchShard {
        let (measured, drainEnd) = try await measure(configuration, logger: logger, onProgress: onProgress)
        var fleets: [BenchTransport: BenchShard.FleetPart] = [:]
        var profileEvents: [DeviceEvent] = []
        for transport in configuration.transports {
            let measurements = measured[transport] ?? []
            if profileEvents.isEmpty { profileEvents = measurements.first?.proxy.events ?? [] }
            var part = BenchShard.FleetPart()
            for device in measurements { part.add(device) }
            fleets[transport] = part
        }
        return configuration.plan.shardReport(
            engine: .live, endSeconds: drainEnd, fleets: fleets, profileEvents: profileEvents, stopped: false)
    }

    /// Plays the bench and returns each device's outcome per transport, for code outside the
    /// bench that plays devices live (the keepalive tuner's `--verify`).
    public static func playDevices(
        _ configuration: BenchConfiguration, logger: Logger, onProgress: @escaping @Sendable (BenchProgress) -> Void
    ) async throws -> [BenchTransport: [LiveDeviceOutcome]] {
        try await measure(configuration, logger: logger, onProgress: onProgress).devices.mapValues { $0.map(\.outcome) }
    }

    /// Plays the bench and returns each device's measurements per transport, with the time the
    /// drain ended on the bench clock.
    static func measure(
        _ configuration: BenchConfiguration, logger: Logger, onProgress: @escaping @Sendable (BenchProgress) -> Void
    ) async throws -> (devices: [BenchTransport: [DeviceMeasurement]], drainEnd: Double) {
        if let problem = configuration.problem() { throw ConfigurationProblem(description: problem) }
        let schedules = (0..<configuration.devices).map {
            configuration.workload.schedule(device: $0, seed: configuration.seed, duration: configuration.duration)
        }
        let clock = BenchClock(timeScale: configuration.timeScale)
        // The servers stop when this closure ends, after the proxies (the fleets stop them).
        return try await BenchServers.run(
            configuration.transports, schedules: schedules, client: configuration.client,
            grpcPolicy: configuration.grpcServerPolicy ?? .matching(configuration.client.grpc), clock: clock, logger: logger
        ) { servers in
            var proxyLogger = logger
            proxyLogger.logLevel = max(logger.logLevel, .warning)
            var started: [Fleet] = []
            do {
                for transport in configuration.transports {
                    started.append(
                        try await Fleet.start(
                            transport, configuration: configuration, serverPort: servers.ports[transport]!,
                            store: servers.stores[transport]!, clock: clock, logger: proxyLogger))
                }
            } catch {
                // The bench fails with the start's error; a proxy that also fails to stop is logged.
                for fleet in started {
                    do { _ = try await fleet.stopProxies() } catch let stopError { logger.error("\(stopError)") }
                }
                throw error
            }
            let fleets = started

            var measured: [BenchTransport: [DeviceMeasurement]] = [:]
            var stopFailures: [ProxyStopFailure] = []
            var drainEnd = configuration.duration
            await withTaskGroup(of: Void.self) { group in
                for fleet in fleets {
                    group.addTask {
                        await produceEvents(fleet, schedules: schedules, workload: configuration.workload, clock: clock)
                    }
                    for device in fleet.devices {
                        group.addTask {
                            await produceMessages(
                                device.ledger, schedule: schedules[device.index], workload: configuration.workload, clock: clock)
                        }
                        group.addTask { await device.runClient(configuration: configuration, clock: clock, logger: logger) }
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        onProgress(await progress(fleets, configuration: configuration, clock: clock))
                        try? await Task.sleep(for: .seconds(1))
                    }
                }
                try? await clock.sleep(until: configuration.duration)
                await drain(fleets, schedules: schedules, until: configuration.duration + configuration.drainLimit, clock: clock)
                drainEnd = clock.now()
                onProgress(await progress(fleets, configuration: configuration, clock: clock))
                // The proxies stop before the clients do, so the clients' teardown (FINs, GOAWAYs)
                // after the run is not charged to the phones' radios.
                // A proxy that cannot stop has no report: the bench fails, once everything is stopped.
                for fleet in fleets {
                    do throws(ProxyStopFailure) {
                        measured[fleet.transport] = try await fleet.stopProxies()
                    } catch {
                        stopFailures.append(error)
                    }
                }
                for fleet in fleets { fleet.stopClients() }
                group.cancelAll()
            }
            if !stopFailures.isEmpty { throw ProxyStopFailure(stopFailures.flatMap(\.devices)) }
            return (measured, drainEnd)
        }
    }

    /// Creates the fleet's devices' events at their scheduled times (one task per transport, so
    /// each server's events are stamped by its own clock reading). The device's ledger is told
    /// first, so that it knows the event's creation when the event reaches the app.
    static func produceEvents(_ fleet: Fleet, schedules: [DeviceSchedule], workload: Workload, clock: BenchClock) async {
        // By time, then by device: the fleet's devices are in index order.
        let timeline = fleet.devices.enumerated()
            .flatMap { position, device in schedules[device.index].eventTimes.map { ($0, position) } }.sorted { $0 < $1 }
        for (time, position) in timeline {
            do { try await clock.sleep(until: time) } catch { return }
            let device = fleet.devices[position]
            let now = clock.now()
            device.ledger.eventCreated(at: now)
            fleet.store.publish(device: device.index, createdAt: now, payloadLength: workload.eventPayloadBytes)
        }
    }

    /// The app's uplink messages, produced at their scheduled times into the device's outbox.
    static func produceMessages(_ ledger: DeviceLedger, schedule: DeviceSchedule, workload: Workload, clock: BenchClock) async {
        for time in schedule.messageTimes {
            do { try await clock.sleep(until: time) } catch { return }
            ledger.produceMessage(createdAt: clock.now())
        }
    }

    /// Waits until every device has every event (but those a naive client skipped for good) and
    /// every message acknowledged, or `deadline`.
    static func drain(_ fleets: [Fleet], schedules: [DeviceSchedule], until deadline: Double, clock: BenchClock) async {
        while clock.now() < deadline {
            let settled = fleets.allSatisfy { fleet in
                fleet.devices.allSatisfy { device in
                    device.ledger.isSettled(
                        eventsCreated: schedules[device.index].eventTimes.count,
                        skippedThrough: fleet.store.skippedThrough(device: device.index))
                }
            }
            if settled { return }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    static func progress(_ fleets: [Fleet], configuration: BenchConfiguration, clock: BenchClock) async -> BenchProgress {
        let now = clock.now()
        var transports: [BenchProgress.Transport] = []
        for fleet in fleets {
            var states: [RadioState?: Int] = [:]
            var disconnected = 0
            for device in fleet.devices {
                guard let status = try? await device.proxy.status() else { continue }
                states[status.radioState, default: 0] += 1
                if status.disconnected { disconnected += 1 }
            }
            let records = fleet.devices.map { ($0.ledger, fleet.store.record(device: $0.index)) }
            transports.append(
                BenchProgress.Transport(
                    transport: fleet.transport, eventsDelivered: records.reduce(0) { $0 + $1.0.deliveredEventCount },
                    eventsCreated: records.reduce(0) { $0 + $1.1.events.count },
                    messagesDelivered: records.reduce(0) { $0 + $1.1.messages.arrived },
                    messagesProduced: records.reduce(0) { $0 + $1.0.record.messagesProduced },
                    radioStates: states, disconnectedDevices: disconnected))
        }
        return BenchProgress(
            elapsedSeconds: now, durationSeconds: configuration.duration, draining: now > configuration.duration,
            transports: transports)
    }
}

/// One transport's fleet: its devices (proxy, ledger) and its server's store.
struct Fleet: Sendable {
    let transport: BenchTransport
    let store: EventStore
    let devices: [Device]

    struct Device: Sendable {
        let index: Int
        let transport: BenchTransport
        let proxy: NetsimProxy
        let ledger: DeviceLedger
        /// When the proxy started, on the bench clock.
        let proxyOrigin: Double
        let seed: UInt64

        func runClient(configuration: BenchConfiguration, clock: BenchClock, logger: Logger) async {
            let port = proxy.listeningAddresses[0].port
            let settings = configuration.client
            // Only a resilient client watches the network: the naive one tries regardless.
            let watch =
                settings.reconnect == .resilient
                ? NetworkWatch(clock: clock) { [proxy] in (try? await proxy.status()).map { !$0.disconnected } ?? true } : nil
            switch transport {
            case .rest:
                await AppDriver(
                    machine: RESTPollingClientModel(
                        settings: settings.rest, batchLimit: RESTServer.batchLimit, batching: settings.batching,
                        reconnect: settings.reconnect, consumer: settings.consumer, seed: seed),
                    transport: LiveRESTTransport(device: index, port: port, ledger: ledger, consumer: settings.consumer, clock: clock),
                    ledger: ledger, clock: clock, network: settings.rest.watchNetwork ? watch : nil
                ).run()
            case .ws:
                await AppDriver(
                    machine: WebSocketClientModel(
                        settings: LiveWebSocketTransport.liveMachineSettings(settings.ws), batching: settings.batching,
                        reconnect: settings.reconnect, seed: seed),
                    transport: LiveWebSocketTransport(
                        device: index, port: port, ledger: ledger,
                        inbox: EventInbox(ledger: ledger, clock: clock, mode: settings.ws.receiveBuffer, consumer: settings.consumer),
                        settings: settings.ws, batched: settings.batching != nil, clock: clock, logger: logger),
                    ledger: ledger, clock: clock, network: settings.ws.watchNetwork ? watch : nil
                ).run()
            case .grpc:
                var grpc = settings.grpc
                grpc.backoff = settings.backoff(grpc.backoff)
                await LiveGRPCTransport.play(
                    GRPCApp(settings: settings.grpc, batching: settings.batching, reconnect: settings.reconnect, seed: seed),
                    device: index, port: port, settings: grpc, ledger: ledger,
                    inbox: EventInbox(ledger: ledger, clock: clock, mode: grpc.receiveBuffer, consumer: settings.consumer),
                    clock: clock, network: watch, logger: logger)
            case .quic:
                // No live QUIC client: the run is refused before it starts (`BenchConfiguration.problem`).
                return
            }
        }
    }

    static func start(
        _ transport: BenchTransport, configuration: BenchConfiguration, serverPort: Int,
        store: EventStore, clock: BenchClock, logger: Logger
    ) async throws -> Fleet {
        var options = ProxyOptions()
        options.timeScale = configuration.timeScale
        var devices: [Device] = []
        for index in 0..<configuration.devices where configuration.shard.includes(index) {
            // Device i of every transport gets the same seed: the same jitter and loss draws.
            let seed = configuration.seed &+ UInt64(index)
            options.observer = configuration.linkObserver?(transport, index)
            let origin = clock.now()
            let proxy = try await NetsimProxy.start(
                profile: configuration.profile, seed: seed,
                forwards: [
                    ForwardRule(listen: HostPort(host: "127.0.0.1", port: 0), upstream: HostPort(host: "127.0.0.1", port: serverPort))
                ],
                options: options, group: MultiThreadedEventLoopGroup.singleton, logger: logger)
            devices.append(
                Device(
                    index: index, transport: transport, proxy: proxy,
                    ledger: DeviceLedger(
                        device: index, outboxLimit: configuration.workload.outboxLimit,
                        messagePayloadBytes: configuration.workload.messagePayloadBytes),
                    proxyOrigin: origin, seed: seed))
        }
        return Fleet(transport: transport, store: store, devices: devices)
    }

    func stopClients() {
        for device in devices { device.ledger.stop() }
    }

    /// Stops every proxy and gathers each device's measurements. A proxy that cannot stop has
    /// no report, and a bench without one of its devices would be wrong: the others are still
    /// stopped, then `ProxyStopFailure` names every device that failed.
    func stopProxies() async throws(ProxyStopFailure) -> [DeviceMeasurement] {
        var measurements: [DeviceMeasurement] = []
        var failures: [ProxyStopFailure.Device] = []
        for device in devices {
            // What the app and the server saw is read before the proxy stops: its stop resets the
            // connections, and a request or a connection that fails then is the bench's teardown,
            // not a failure the run met.
            let app = device.ledger.record
            let deliveries = device.ledger.deliveries
            let server = store.record(device: device.index)
            let report: RunReport
            do {
                report = try await device.proxy.stop()
            } catch {
                failures.append(ProxyStopFailure.Device(transport: transport, index: device.index, error: error))
                continue
            }
            measurements.append(
                DeviceMeasurement(
                    index: device.index, app: app, deliveries: deliveries, server: server, proxy: report,
                    proxyOrigin: device.proxyOrigin))
        }
        if !failures.isEmpty { throw ProxyStopFailure(failures) }
        return measurements
    }
}

/// Devices whose proxy could not stop, so that their measurements are lost.
struct ProxyStopFailure: Error, CustomStringConvertible {
    struct Device: Sendable {
        let transport: BenchTransport
        let index: Int
        let error: any Error
    }

    let devices: [Device]

    init(_ devices: [Device]) {
        self.devices = devices
    }

    var description: String {
        devices.map {
            "device \($0.index) of the \($0.transport.title) fleet: its proxy could not stop (\($0.error)), so its measurements are lost"
        }.joined(separator: "; ")
    }
}
