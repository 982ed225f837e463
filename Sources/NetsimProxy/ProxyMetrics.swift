import NIOCore
import NetsimCore
import Prometheus
import Synchronization

/// A proxy's metrics in the Prometheus text format (`GET /metrics`), in a registry of its own:
/// not the process-wide MetricsSystem, so several proxies in one process (tests, an app's test
/// suite) each report their own phone.
///
/// The figures are the device's (its counters and the radio model's totals), read on its event
/// loop at each scrape (`Snapshot`) and set into the registry then; monotonic figures go into
/// counters by how much they grew since the last scrape. Only the event-loop lag is measured
/// between scrapes, by a probe timer (`startLagProbe`).
final class ProxyMetrics: Sendable {
    /// The device's figures at one moment.
    struct Snapshot: Sendable, Equatable {
        var bytes = PerDirection(up: 0, down: 0)
        var connectionsOpened = 0
        var openConnections = 0
        var radioState: RadioState?
        var wakeSeconds = 0.0
        var promotions = 0
        var energyJoules = 0.0
        var queuedBytes = PerDirection(up: 0, down: 0)
        var eventCounts: [DeviceEvent.Kind: Int] = [:]
        /// UDP datagrams delivered and dropped, per direction (`DatagramFigures`).
        var datagramsDelivered = PerDirection(up: 0, down: 0)
        var datagramsDropped = PerDirection(up: 0, down: 0)
    }

    private let registry: PrometheusCollectorRegistry
    /// Each phone's series, phone K at index K - 1.
    private let phones: [PhoneSeries]
    private let eventLoopLag: DurationHistogram
    private let eventSubscribers: Gauge
    /// The snapshots the counters have reached, one per phone.
    private let reported: Mutex<[Snapshot]>

    /// How often the lag probe looks at the device's event loop.
    static let lagProbeInterval = TimeAmount.milliseconds(250)

    /// - Parameters: the run's profile and seed, for `netsim_info`: a dashboard or an alert
    ///   joins them to every other series, as Prometheus's `*_info` metrics are used. With
    ///   several `phones`, each phone's series carry a `phone` label (`1` to N).
    init(profile: String, seed: UInt64, phones: Int = 1) {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        registry.makeGauge(
            descriptor: Self.name("info", "", "The run: always 1, its profile, seed and netsim version as labels."),
            labels: [("profile", profile), ("seed", String(seed)), ("version", NetsimVersion.current)]
        ).set(1.0)
        self.phones = (1...phones).map { phone in
            PhoneSeries(registry: registry, labels: phones > 1 ? [("phone", String(phone))] : [])
        }
        reported = Mutex(Array(repeating: Snapshot(), count: phones))
        eventSubscribers = registry.makeGauge(
            descriptor: Self.name(
                "event_subscribers", "", "Subscriptions to the phone's events (GET /events streams, EmulatedPhone.events)."))
        eventLoopLag = registry.makeDurationHistogram(
            descriptor: Self.name(
                "event_loop_lag", "seconds",
                "How late a timer on the device's event loop ran (probed every 250 ms): time the data plane was busy."),
            buckets: [.microseconds(100), .milliseconds(1), .milliseconds(5), .milliseconds(20), .milliseconds(100), .seconds(1)])
    }

    private static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "netsim", metricName: metric, unitName: unit, helpText: help)
    }

    /// One phone's series.
    private struct PhoneSeries: Sendable {
        let bytes: PerDirection<Counter>
        let connectionsOpened: Counter
        let openConnections: Gauge
        let radioStates: [(state: RadioState, gauge: Gauge)]
        let wakeSeconds: Counter
        let promotions: Counter
        let energyJoules: Counter
        let queuedBytes: PerDirection<Gauge>
        let events: [(kind: DeviceEvent.Kind, counter: Counter)]
        let datagramsDelivered: PerDirection<Counter>
        let datagramsDropped: PerDirection<Counter>

        init(registry: PrometheusCollectorRegistry, labels: [(String, String)]) {
            let bytesName = ProxyMetrics.name("bytes", "total", "Payload bytes delivered through the proxy (up: phone to server).")
            bytes = PerDirection(
                up: registry.makeCounter(descriptor: bytesName, labels: labels + [("direction", "up")]),
                down: registry.makeCounter(descriptor: bytesName, labels: labels + [("direction", "down")]))
            connectionsOpened = registry.makeCounter(
                descriptor: ProxyMetrics.name("connections_opened", "total", "Connections the proxy accepted."), labels: labels)
            openConnections = registry.makeGauge(
                descriptor: ProxyMetrics.name("open_connections", "", "Connections open now."), labels: labels)
            let stateName = ProxyMetrics.name("radio_state", "", "1 for the radio's RRC state now, 0 for the others.")
            radioStates = RadioState.allCases.map { state in
                (state, registry.makeGauge(descriptor: stateName, labels: labels + [("state", state.rawValue)]))
            }
            wakeSeconds = registry.makeCounter(
                descriptor: ProxyMetrics.name(
                    "radio_wake_seconds", "total", "Emulated seconds the radio was not IDLE, promotions included."), labels: labels)
            promotions = registry.makeCounter(
                descriptor: ProxyMetrics.name("radio_promotions", "total", "Radio promotions from IDLE."), labels: labels)
            energyJoules = registry.makeCounter(
                descriptor: ProxyMetrics.name("radio_energy_joules", "total", "Radio energy spent (Video Optimizer method)."),
                labels: labels)
            let queuedName = ProxyMetrics.name(
                "queued_bytes", "", "Bytes read by the proxy and waiting in its delay lines to be delivered.")
            queuedBytes = PerDirection(
                up: registry.makeGauge(descriptor: queuedName, labels: labels + [("direction", "up")]),
                down: registry.makeGauge(descriptor: queuedName, labels: labels + [("direction", "down")]))
            let eventsName = ProxyMetrics.name("events", "total", "Timeline events (scripted or triggered) by kind.")
            events = DeviceEvent.Kind.allCases.map { kind in
                (kind, registry.makeCounter(descriptor: eventsName, labels: labels + [("kind", kind.rawValue)]))
            }
            let datagramsName = ProxyMetrics.name(
                "datagrams", "total", "UDP datagrams by direction and outcome: delivered, or dropped (the run report says why).")
            func datagrams(_ outcome: String) -> PerDirection<Counter> {
                PerDirection(
                    up: registry.makeCounter(descriptor: datagramsName, labels: labels + [("direction", "up"), ("outcome", outcome)]),
                    down: registry.makeCounter(descriptor: datagramsName, labels: labels + [("direction", "down"), ("outcome", outcome)]))
            }
            datagramsDelivered = datagrams("delivered")
            datagramsDropped = datagrams("dropped")
        }

        /// Sets `snapshot` into the series: gauges to its values, counters by what grew since `last`.
        func set(_ snapshot: Snapshot, since last: Snapshot) {
            for direction in Direction.allCases {
                bytes[direction].increment(by: Int64(max(0, snapshot.bytes[direction] - last.bytes[direction])))
                queuedBytes[direction].set(Double(snapshot.queuedBytes[direction]))
                datagramsDelivered[direction].increment(
                    by: Int64(max(0, snapshot.datagramsDelivered[direction] - last.datagramsDelivered[direction])))
                datagramsDropped[direction].increment(
                    by: Int64(max(0, snapshot.datagramsDropped[direction] - last.datagramsDropped[direction])))
            }
            connectionsOpened.increment(by: Int64(max(0, snapshot.connectionsOpened - last.connectionsOpened)))
            openConnections.set(Double(snapshot.openConnections))
            for (state, gauge) in radioStates { gauge.set(state == snapshot.radioState ? 1.0 : 0.0) }
            wakeSeconds.increment(by: max(0, snapshot.wakeSeconds - last.wakeSeconds))
            promotions.increment(by: Int64(max(0, snapshot.promotions - last.promotions)))
            energyJoules.increment(by: max(0, snapshot.energyJoules - last.energyJoules))
            for (kind, counter) in events {
                counter.increment(by: Int64(max(0, snapshot.eventCounts[kind, default: 0] - last.eventCounts[kind, default: 0])))
            }
        }
    }

    /// The registry in the Prometheus text format, after setting each phone's snapshot (phone
    /// K's at index K - 1) into it.
    func render(_ snapshots: [Snapshot], eventSubscribers subscriberCount: Int) -> String {
        reported.withLock { last in
            for (phone, snapshot) in zip(phones.indices, snapshots) {
                phones[phone].set(snapshot, since: last[phone])
                last[phone] = snapshot
            }
            eventSubscribers.set(Double(subscriberCount))
            return registry.emitToString()
        }
    }

    /// Measures how late the device's event loop runs a timer, every `lagProbeInterval`, until
    /// the returned task is cancelled: a loop busy with the data plane (or blocked) runs it late.
    func startLagProbe(on loop: any EventLoop) -> RepeatedTask {
        let probe = LagProbe(firstDue: NIODeadline.now() + Self.lagProbeInterval)
        return loop.scheduleRepeatedTask(initialDelay: Self.lagProbeInterval, delay: Self.lagProbeInterval) {
            [eventLoopLag] _ in
            let now = NIODeadline.now().uptimeNanoseconds
            let expected = probe.due.load(ordering: .relaxed)
            eventLoopLag.record(.nanoseconds(Int64(now >= expected ? now - expected : 0)))
            // The next run is due an interval after this one ends (a fixed delay, not a rate).
            probe.due.store(NIODeadline.now().uptimeNanoseconds + UInt64(Self.lagProbeInterval.nanoseconds), ordering: .relaxed)
        }
    }

    /// When the probe's next run is due, in uptime nanoseconds.
    private final class LagProbe: Sendable {
        let due: Atomic<UInt64>
        init(firstDue: NIODeadline) { due = Atomic(firstDue.uptimeNanoseconds) }
    }
}
