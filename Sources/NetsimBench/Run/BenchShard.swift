import Foundation
import NetsimCore
import NetsimModel
import NetsimProxy
import NetsimReport

/// What one part of a bench played, before any figure is pooled across devices: what
/// `netsim bench --shard I/N` writes (`bench-PROFILE.shard-I-of-N.json`) and what
/// `netsim report merge` reads. It holds the run's header, and per transport the latency
/// histogram's buckets and each device's counts, sums and radio (never a percentile or a
/// mean), so that the parts merged give the report of the whole run: every bench, sharded or
/// not, is analysed as the merge of its parts (an unsharded one of its single part).
public struct BenchShard: Sendable, Codable {
    /// Says what the file is, so a merge handed another JSON file says so.
    public static let kindName = "netsim bench shard"
    /// Bumped when the layout changes: a merge refuses parts of another layout.
    public static let layoutVersion = 3

    /// The most devices a transport a bench plays (`--phones` with the model engine).
    public static let mostDevicesPerTransport = 100_000

    public var kind = BenchShard.kindName
    public var layout = BenchShard.layoutVersion
    public var shard: Shard
    /// The whole run's report header: version, engine, profile, seed, duration, devices per
    /// transport, workload, client source, drain limit (its transports empty).
    public var header: BenchReport
    /// The profile played: parts of one run played the same one.
    public var profile: Profile
    public var workload: Workload
    public var clientSettings: ClientSettings
    /// The transports, in the order they were played.
    public var transports: [BenchTransport]
    /// When this part's last device stopped, in seconds of the bench clock (the model's virtual
    /// time, or the live drain's end): the whole run stopped at the latest of its parts'.
    public var endSeconds: Double
    /// The profile's events as the whole run's first device met them: in the part that
    /// played it.
    public var profileEvents: [DeviceEvent]?
    /// A signal stopped this part before it had played all its devices.
    public var stopped: Bool
    /// Keyed by transport (`rest`, `ws`, `grpc` in the JSON).
    var fleets: [BenchTransport: FleetPart]

    /// One transport's devices in this part.
    struct FleetPart: Sendable, Codable {
        /// The devices' latencies pooled, in the buckets of the fleet's latency histogram.
        var downlink = LatencyCounts()
        var uplink = LatencyCounts()
        /// In device order.
        var devices: [DevicePart] = []

        /// A modelled device's deliveries and counters; its radio follows when the run ends.
        mutating func add(_ figures: DeliveryFigures, app: AppRecord, server: EventStore.DeviceRecord) -> DeviceShare {
            downlink.add(figures.downlink)
            uplink.add(figures.uplink)
            return DeviceShare(figures, app: app, server: server, zombieSeconds: nil)
        }

        /// A live device, its zombie seconds measured against when its app noticed each loss.
        mutating func add(_ device: DeviceMeasurement) {
            let figures = BenchAnalysis.deliveryFigures(device)
            downlink.add(figures.downlink)
            uplink.add(figures.uplink)
            let outcome = device.outcome
            let zombieSeconds = ConnectionDeaths.detectionDelays(
                events: outcome.proxy.events, noticed: outcome.connectionLossesNoticed, end: outcome.end)
            devices.append(
                DevicePart(
                    index: device.index, share: DeviceShare(figures, app: device.app, server: device.server, zombieSeconds: zombieSeconds),
                    radio: .proxyReport(device.proxy)))
        }
    }

    struct DevicePart: Sendable, Codable {
        var index: Int
        var share: DeviceShare
        var radio: Radio

        /// A device's phone: a live proxy's report, or a modelled device's remains, reported
        /// until the whole fleet's stop when the parts are merged (as the unsharded run does).
        enum Radio: Sendable, Codable {
            case proxyReport(RunReport)
            case modelled(DeviceRemains)
        }
    }
}

extension BenchPlan {
    /// This run's part, its fleets played: the header every part of the run shares.
    func shardReport(
        engine: BenchEngine, endSeconds: Double, fleets: [BenchTransport: BenchShard.FleetPart], profileEvents: [DeviceEvent]?,
        stopped: Bool
    ) -> BenchShard {
        let header = BenchReport(
            netsimVersion: NetsimVersion.current, engine: engine, profile: profile.name, seed: seed, durationSeconds: duration,
            drain: BenchReport.Drain(limitSeconds: drainLimit, seconds: 0), devicesPerTransport: devices,
            workload: BenchReport.WorkloadSummary(
                eventMeanGapSeconds: workload.eventMeanGap, eventPayloadBytes: workload.eventPayloadBytes,
                messageIntervalSeconds: workload.messageInterval, messagePayloadBytes: workload.messagePayloadBytes,
                outboxLimit: workload.outboxLimit),
            client: client.source, transports: [:])
        return BenchShard(
            shard: shard, header: header, profile: profile,
            workload: workload, clientSettings: client, transports: transports, endSeconds: endSeconds,
            profileEvents: shard.includes(0) ? profileEvents : nil, stopped: stopped,
            fleets: fleets)
    }
}

extension BenchShard {
    /// The file a part is written to: `bench-PROFILE.shard-I-of-N.json`.
    public var fileName: String { "bench-\(header.profile).\(shard.fileLabel).json" }

    public func json() throws -> Data {
        try ShardParts.json(self)
    }

    /// One part as `json()` wrote it, alone; `source` names it in errors.
    public static func decode(_ data: Data, source: String) throws(ShardMergeProblem) -> BenchShard {
        try decode([(source: source, data: data)])[0].shard
    }

    /// The parts as `json()` wrote them, their figures (the devices' and the end) checked
    /// across all of them; `source` names each in errors.
    public static func decode(_ files: [(source: String, data: Data)]) throws(ShardMergeProblem) -> [(source: String, shard: BenchShard)] {
        let parts = try ShardParts.decode(
            BenchShard.self, from: files, kind: kindName, layout: layoutVersion, run: "bench", figures: ["fleets", "endSeconds"])
        // The profile's name becomes the merged reports' file names; the devices are counted out
        // one by one.
        for (source, part) in parts {
            let devices = part.header.devicesPerTransport
            guard (1...mostDevicesPerTransport).contains(devices) else {
                throw .outOfRange(
                    source, key: "header.devicesPerTransport",
                    reason: "a bench has 1 to \(mostDevicesPerTransport) devices a transport, not \(devices)")
            }
            for (key, name) in [("header.profile", part.header.profile), ("profile.name", part.profile.name)] {
                if let problem = ProfileName.problem(with: name) { throw .unreadable(source, key: key, reason: problem) }
            }
        }
        return parts.map { (source: $0.source, shard: $0.part) }
    }
}
