import NetsimCore
import NetsimModel
import NetsimProxy

/// `netsim bench --engine model`: the same bench played by the model engine in virtual time,
/// its devices' outcomes analysed exactly as the live bench's measurements are, into the same
/// report (with `"engine": "model"`).
public enum ModelBenchRunner {
    /// Runs up to this long keep the charted devices' radio state timelines: a day of
    /// one-second polling is hundreds of thousands of segments per device, more than a chart
    /// can show or a report should carry.
    public static let longestChartedRun = 3600.0

    /// Plays the whole bench and analyses it: the merge of its one part. `shouldStop` is asked
    /// between batches of devices, and when it says yes the result covers the devices played so
    /// far, marked partial.
    public static func run(
        _ configuration: BenchConfiguration, shouldStop: () -> Bool = { false },
        onProgress: @escaping @Sendable (BenchProgress) -> Void
    ) throws -> BenchResult {
        try BenchShardMerge.merge([("this run", play(configuration, shouldStop: shouldStop, onProgress: onProgress))])
    }

    /// Plays the configuration's shard of the bench (every device, unsharded): its part, each
    /// device's radio kept to be reported until the whole fleet's stop (`BenchShardMerge`).
    public static func play(
        _ configuration: BenchConfiguration, shouldStop: () -> Bool = { false },
        onProgress: @escaping @Sendable (BenchProgress) -> Void
    ) -> BenchShard {
        var model = configuration.plan
        if configuration.duration > longestChartedRun { model.chartedDevices = 0 }
        var fleets = Dictionary(uniqueKeysWithValues: configuration.transports.map { ($0, BenchShard.FleetPart()) })
        var shares: [BenchTransport: [DeviceShare]] = [:]
        var profileEvents: [DeviceEvent]?
        let run = ModelEngine.run(
            model,
            progress: { fraction in
                onProgress(
                    BenchProgress(
                        elapsedSeconds: fraction * configuration.duration, durationSeconds: configuration.duration, draining: false,
                        transports: [], devicesPlayed: fraction))
            },
            shouldStop: shouldStop,
            records: { transport, _, records in
                if profileEvents == nil { profileEvents = records.events }
                let server = Self.serverRecord(records.server, eventPayloadBytes: configuration.workload.eventPayloadBytes)
                if let share = fleets[transport]?.add(records.deliveryFigures, app: records.app, server: server) {
                    shares[transport, default: []].append(share)
                }
            })
        // Records and devices come in the same (device) order.
        for transport in configuration.transports {
            fleets[transport]?.devices = zip(run.devices[transport] ?? [], shares[transport] ?? []).map { device, share in
                BenchShard.DevicePart(index: device.index, share: share, radio: .modelled(device.remains))
            }
        }
        let played = run.devices.values.map(\.count).reduce(0, +)
        return configuration.plan.shardReport(
            engine: .model, endSeconds: run.endSeconds, fleets: fleets, profileEvents: profileEvents,
            stopped: played < configuration.shard.share(of: configuration.devices) * configuration.transports.count)
    }

    /// The modelled server's queue peak (watched with a consumer; zero otherwise) as the live
    /// `EventStore` records it: events, and their payload bytes.
    static func serverRecord(_ server: ServerRecord, eventPayloadBytes: Int) -> EventStore.DeviceRecord {
        var record = EventStore.DeviceRecord(messageArrivals: [])
        record.peakQueuedEvents = server.peakQueuedEvents
        record.peakQueuedBytes = server.peakQueuedEvents * eventPayloadBytes
        return record
    }

    /// A modelled device as the analysis reads a live one's proxy report.
    static func proxyReport(_ outcome: DeviceOutcome, profile: String, seed: UInt64) -> RunReport {
        let connections = outcome.connections
        return RunReport(
            netsimVersion: NetsimVersion.current, profile: profile, seed: seed, durationSeconds: outcome.durationSeconds,
            connections: ConnectionCounters(
                opened: connections.opened, closed: connections.closed, reset: connections.reset, blackholed: connections.blackholed),
            bytes: outcome.bytes,
            segments: outcome.segments,
            radio: outcome.radio, radioLatency: outcome.radioLatency, events: outcome.events, eventCounts: outcome.eventCounts,
            eventsNotListed: outcome.eventCounts.values.reduce(0, +) - outcome.events.count, datagrams: outcome.datagrams)
    }
}
