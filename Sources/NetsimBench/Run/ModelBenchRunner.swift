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

    public static func run(_ configuration: BenchConfiguration, onProgress: @escaping @Sendable (BenchProgress) -> Void) -> BenchResult {
        var model = ModelRunConfiguration(profile: configuration.profile)
        model.transports = configuration.transports
        model.devices = configuration.devices
        model.duration = configuration.duration
        model.seed = configuration.seed
        model.workload = configuration.workload
        model.client = configuration.client
        model.drainTimeout = configuration.drainLimit
        model.chartedDevices = configuration.duration <= longestChartedRun ? model.chartedDevices : 0
        let run = ModelEngine.run(model) { fraction in
            onProgress(
                BenchProgress(
                    elapsedSeconds: fraction * configuration.duration, durationSeconds: configuration.duration, draining: false,
                    transports: []))
        }
        var transports: [String: BenchReport.TransportReport] = [:]
        var charts: [BenchTransport: TransportCharts] = [:]
        var profileEvents: [DeviceEvent] = []
        for transport in configuration.transports {
            let measurements = (run.devices[transport] ?? []).map { measurement($0, profile: configuration.profile.name, seed: configuration.seed) }
            if profileEvents.isEmpty { profileEvents = measurements.first?.proxy.events ?? [] }
            let (report, chart) = BenchAnalysis.summarize(measurements)
            transports[transport.rawValue] = report
            charts[transport] = chart
        }
        return configuration.result(
            engine: "model", drainSeconds: max(0, run.endSeconds - configuration.duration), transports: transports, charts: charts,
            profileEvents: profileEvents)
    }

    /// A modelled device as the analysis reads a live one: the app's record, the server's and
    /// the proxy's report.
    static func measurement(_ outcome: DeviceOutcome, profile: String, seed: UInt64) -> DeviceMeasurement {
        var app = DeviceLedger.Record(
            deliveries: outcome.app.deliveries.map { $0.map { DeviceLedger.Delivery(createdAt: $0.createdAt, deliveredAt: $0.deliveredAt) } })
        let created = outcome.server.eventCreatedAt.count
        if app.deliveries.count < created { app.deliveries += Array(repeating: nil, count: created - app.deliveries.count) }
        app.duplicateEvents = outcome.app.duplicateEvents
        app.outOfOrderEvents = outcome.app.outOfOrderEvents
        app.messagesProduced = outcome.app.messagesProduced
        app.droppedMessageIDs = outcome.app.droppedMessageIDs
        app.failedAttempts = outcome.app.failedAttempts
        app.callRenewals = outcome.app.callRenewals
        var server = EventStore.DeviceRecord(
            messageArrivals: outcome.server.messageArrivals.map { $0.map { EventStore.Arrival(createdAt: $0.createdAt, arrivedAt: $0.arrivedAt) } })
        if server.messageArrivals.count < app.messagesProduced {
            server.messageArrivals += Array(repeating: nil, count: app.messagesProduced - server.messageArrivals.count)
        }
        server.events = outcome.server.eventCreatedAt.enumerated().map { EventStore.Event(sequence: UInt64($0 + 1), createdAt: $1, payload: "") }
        server.duplicateMessages = outcome.server.duplicateMessages
        server.outOfOrderMessages = outcome.server.outOfOrderMessages
        let connections = outcome.connections
        let proxy = RunReport(
            netsimVersion: NetsimVersion.current, profile: profile, seed: seed, durationSeconds: outcome.durationSeconds,
            connections: ConnectionCounters(
                opened: connections.opened, closed: connections.closed, reset: connections.reset, blackholed: connections.blackholed),
            bytes: outcome.bytes,
            segments: SegmentCounts(
                up: .init(bursts: outcome.bursts.up, segments: outcome.segments.up),
                down: .init(bursts: outcome.bursts.down, segments: outcome.segments.down)),
            radio: outcome.radio, radioLatency: outcome.radioLatency, events: outcome.events)
        return DeviceMeasurement(app: app, server: server, proxy: proxy, proxyOrigin: 0)
    }
}
