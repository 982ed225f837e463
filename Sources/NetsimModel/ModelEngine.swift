import Dispatch
import NetsimCore

/// A model run's results: every device played per transport (its app and server records
/// already handed over), and the engine's own figures.
public struct ModelRunResult: Sendable {
    /// Per transport, in device order.
    public var devices: [BenchTransport: [PlayedDevice]]
    /// When every device had stopped (the end of the drain), in seconds of virtual time.
    public var endSeconds: Double
    /// Occurrences the engine handled (frames, timers, workload and timeline events).
    public var steps: Int
}

/// Plays `netsim bench` in virtual time: each device of each transport is a `DeviceSimulation`
/// over its own `DeviceModel`, with the seeds the live bench gives it, so the same inputs give
/// the same results byte for byte. Devices share nothing, so they run in parallel on every
/// core, a batch at a time: each batch's records are handed to `records` in device order and
/// dropped, so memory grows with the fleet, not with the run's length.
public enum ModelEngine {
    /// Devices played at once between two hand-overs of records.
    static let batchSize = 64

    /// Runs every device; `progress` gets the fraction of devices done, `records` each
    /// device's app and server records (each transport's in device order).
    ///
    /// `shouldStop` is asked between batches: when it says yes, the devices played so far are
    /// the result (at least one batch: a report of nothing helps no one). Devices are played
    /// device by device across the transports, so a stopped run still compares them all.
    public static func run(
        _ configuration: BenchPlan, progress: (Double) -> Void = { _ in },
        shouldStop: () -> Bool = { false }, records: (BenchTransport, Int, DeviceRecords) -> Void = { _, _, _ in }
    ) -> ModelRunResult {
        let jobs = (0..<configuration.devices).filter(configuration.shard.includes).flatMap { device in
            configuration.transports.map { ($0, device) }
        }
        var remains: [(BenchTransport, PlayedDevice, stoppedAt: Double)] = []
        remains.reserveCapacity(jobs.count)
        var steps = 0
        // Each transport's work per device, estimated: a batch plays its longest devices first
        // (REST's polling is most of a run's work), so that it does not end with one long
        // device on one core while the others wait. Results keep their places in the batch.
        var work: [BenchTransport: Double] = [:]
        for transport in configuration.transports {
            work[transport] =
                WorkEstimate.bench(
                    transports: [transport], devices: 1, duration: configuration.duration, workload: configuration.workload,
                    client: configuration.client
                ).occurrences
        }
        for batchStart in stride(from: 0, to: jobs.count, by: batchSize) {
            if batchStart > 0, shouldStop() { break }
            let batch = Array(jobs[batchStart..<min(batchStart + batchSize, jobs.count)])
            let longestFirst = batch.indices.sorted { first, second in
                let (firstWork, secondWork) = (work[batch[first].0] ?? 0, work[batch[second].0] ?? 0)
                return firstWork != secondWork ? firstWork > secondWork : first < second
            }
            let finished = ResultSlots<(DeviceRecords, DeviceRemains, stoppedAt: Double, steps: Int)>(count: batch.count)
            DispatchQueue.concurrentPerform(iterations: batch.count) { turn in
                let index = longestFirst[turn]
                let (transport, device) = batch[index]
                var run = DeviceRun(transport: transport, device: device, configuration: configuration)
                finished.set(index, run.play())
            }
            for (index, result) in finished.values().enumerated() {
                records(batch[index].0, batch[index].1, result.0)
                remains.append((batch[index].0, PlayedDevice(index: batch[index].1, remains: result.1), result.stoppedAt))
                steps += result.steps
            }
            progress(Double(batchStart + batch.count) / Double(jobs.count))
        }
        let end = remains.map(\.stoppedAt).max() ?? configuration.duration
        var devices: [BenchTransport: [PlayedDevice]] = [:]
        for (transport, device, _) in remains { devices[transport, default: []].append(device) }
        return ModelRunResult(devices: devices, endSeconds: end, steps: steps)
    }
}

/// A device a model run played: its index in the fleet and what it left, whose outcome runs
/// on to the fleet's stop (`ModelRunResult.endSeconds`, or a merged run's).
public struct PlayedDevice: Sendable, Codable {
    public var index: Int
    public var remains: DeviceRemains

    public func outcome(until end: Double) -> DeviceOutcome {
        remains.outcome(until: end)
    }
}

extension ModelEngine {
    /// The client of a single modelled device.
    public enum ClientChoice: Sendable {
        case rest(ClientSettings.RESTSettings)
        case ws(ClientSettings.WebSocketSettings)
        case grpc(ClientSettings.GRPCClientSettings, server: GRPCServerPolicy)
        case heartbeat(HeartbeatSettings)
        case quic(QUICSettings)
    }

    /// Plays one device on `profile` for `duration` (then no drain): the keepalive tuner's
    /// scenarios, one phone and one connection each.
    public static func playDevice(
        profile: Profile, client: ClientChoice, workload: Workload, duration: Double, seed: UInt64
    ) -> DeviceOutcome {
        playDeviceInPeriods(profile: profile, client: client, workload: workload, duration: duration, seed: seed, marked: false).outcome
    }

    /// The device's counted figures (radio, connections, bytes, profile events) at the start
    /// of its first and of its last keepalive period: the figures of the whole periods
    /// between, which neither the first connection's set-up nor a last period the duration
    /// cut bias (a 20-minute keepalive plays 2 periods in an hour and 17.7 in 6 hours).
    public struct KeepalivePeriods: Sendable {
        public var first: DeviceOutcome
        public var last: DeviceOutcome
        public var seconds: Double { last.durationSeconds - first.durationSeconds }
    }

    /// `playDevice`, with the figures of its whole keepalive periods: nil when fewer than two
    /// periods started.
    public static func playDeviceInPeriods(
        profile: Profile, client: ClientChoice, workload: Workload, duration: Double, seed: UInt64
    ) -> (outcome: DeviceOutcome, periods: KeepalivePeriods?) {
        playDeviceInPeriods(profile: profile, client: client, workload: workload, duration: duration, seed: seed, marked: true)
    }

    private static func playDeviceInPeriods(
        profile: Profile, client: ClientChoice, workload: Workload, duration: Double, seed: UInt64, marked: Bool
    ) -> (outcome: DeviceOutcome, periods: KeepalivePeriods?) {
        let device = DeviceModel(profile: profile, seed: seed)
        let times = workload.times(device: 0, seed: seed, duration: duration)
        func wire(_ encoding: WireFormat.Encoding) -> WireFormat {
            WireFormat(encoding: encoding, eventPayloadBytes: workload.eventPayloadBytes, messagePayloadBytes: workload.messagePayloadBytes)
        }
        func play<Client: TransportClientModel>(
            _ client: Client, _ server: ModelServer.Kind, _ encoding: WireFormat.Encoding
        ) -> (outcome: DeviceOutcome, periods: KeepalivePeriods?) {
            var simulation = DeviceSimulation(
                device: device, client: client, server: ModelServer(kind: server), wire: wire(encoding), times: times,
                outboxLimit: workload.outboxLimit)
            simulation.marksPings = marked
            let end = simulation.run(duration: duration, drainDeadline: duration)
            guard let (first, last) = simulation.pingMarks, last.time > first.time else { return (simulation.outcome(until: end), nil) }
            return (
                simulation.outcome(until: end),
                KeepalivePeriods(first: first.remains.outcome(until: first.time), last: last.remains.outcome(until: last.time))
            )
        }
        switch client {
        case .rest(let settings):
            return play(
                RESTPollingClientModel(settings: settings, batchLimit: DeviceRun.restBatchLimit, seed: seed),
                .rest(batchLimit: DeviceRun.restBatchLimit), .transport(.rest))
        case .ws(let settings):
            return play(WebSocketClientModel(settings: settings, seed: seed), .ws(pingInterval: settings.pingInterval), .transport(.ws))
        case .grpc(let settings, let policy):
            return play(GRPCClientModel(settings: settings, seed: seed), .grpc(policy), .transport(.grpc))
        case .heartbeat(let settings):
            let probeBytes = if case .tcpKeepalive = settings.kind { 1 } else { 2 }
            return play(HeartbeatClientModel(settings: settings, seed: seed), .heartbeat, .plain(probeBytes: probeBytes))
        case .quic(let settings):
            return play(
                QUICClientModel(settings: settings, seed: seed), .quic(idleTimeout: settings.effectiveIdleTimeout), .transport(.quic))
        }
    }
}

/// One device of one transport, whichever its client type.
struct DeviceRun: Sendable {
    let transport: BenchTransport
    private var simulation: Simulation
    let duration: Double
    let drainDeadline: Double

    private enum Simulation: Sendable {
        case rest(DeviceSimulation<RESTPollingClientModel>)
        case ws(DeviceSimulation<WebSocketClientModel>)
        case grpc(DeviceSimulation<GRPCClientModel>)
        case quic(DeviceSimulation<QUICClientModel>)
    }

    /// The REST server's batch limit (`RESTServer.batchLimit` in the live bench).
    static let restBatchLimit = 100

    init(transport: BenchTransport, device index: Int, configuration: BenchPlan) {
        self.transport = transport
        duration = configuration.duration
        drainDeadline = configuration.duration + configuration.drainLimit
        // Device i of every transport gets the live bench's seeds: the same jitter, loss,
        // paging phase and backoff draws.
        let seed = configuration.seed &+ UInt64(index)
        let device = DeviceModel(
            profile: configuration.profile, seed: seed, recordsRadioTimeline: index < configuration.chartedDevices)
        let times = configuration.workload.times(device: index, seed: configuration.seed, duration: configuration.duration)
        let wire = WireFormat(
            encoding: .transport(transport), eventPayloadBytes: configuration.workload.eventPayloadBytes,
            messagePayloadBytes: configuration.workload.messagePayloadBytes, device: index)
        let outboxLimit = configuration.workload.outboxLimit
        let client = configuration.client
        switch transport {
        case .rest:
            simulation = .rest(
                DeviceSimulation(
                    device: device,
                    client: RESTPollingClientModel(
                        settings: client.rest, batchLimit: Self.restBatchLimit, batching: client.batching, reconnect: client.reconnect,
                        consumer: client.consumer, seed: seed),
                    server: ModelServer(kind: .rest(batchLimit: Self.restBatchLimit)), wire: wire, times: times,
                    outboxLimit: outboxLimit, consumer: client.consumer))
        case .ws:
            simulation = .ws(
                DeviceSimulation(
                    device: device,
                    client: WebSocketClientModel(settings: client.ws, batching: client.batching, reconnect: client.reconnect, seed: seed),
                    server: ModelServer(kind: .ws(pingInterval: client.ws.pingInterval)), wire: wire,
                    times: times, outboxLimit: outboxLimit, consumer: client.consumer, receiveBuffer: client.ws.receiveBuffer))
        case .grpc:
            let policy = configuration.grpcServerPolicy ?? .matching(client.grpc)
            simulation = .grpc(
                DeviceSimulation(
                    device: device,
                    client: GRPCClientModel(settings: client.grpc, batching: client.batching, reconnect: client.reconnect, seed: seed),
                    server: ModelServer(kind: .grpc(policy)),
                    wire: wire, times: times, outboxLimit: outboxLimit, consumer: client.consumer,
                    receiveBuffer: client.grpc.receiveBuffer))
        case .quic:
            simulation = .quic(
                DeviceSimulation(
                    device: device,
                    client: QUICClientModel(settings: client.quic, batching: client.batching, reconnect: client.reconnect, seed: seed),
                    server: ModelServer(kind: .quic(idleTimeout: client.quic.effectiveIdleTimeout)), wire: wire, times: times,
                    outboxLimit: outboxLimit))
        }
    }

    /// Plays the device to its stop: its records, what its radio report needs, when it
    /// stopped and the occurrences it handled.
    mutating func play() -> (DeviceRecords, DeviceRemains, stoppedAt: Double, steps: Int) {
        switch simulation {
        case .rest(var simulation): finish(&simulation)
        case .ws(var simulation): finish(&simulation)
        case .grpc(var simulation): finish(&simulation)
        case .quic(var simulation): finish(&simulation)
        }
    }

    private func finish<Client: TransportClientModel>(
        _ simulation: inout DeviceSimulation<Client>
    ) -> (DeviceRecords, DeviceRemains, stoppedAt: Double, steps: Int) {
        let stoppedAt = simulation.run(duration: duration, drainDeadline: drainDeadline)
        return (simulation.records, simulation.remains, stoppedAt, simulation.steps)
    }
}
