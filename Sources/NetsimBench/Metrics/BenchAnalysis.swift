import Histogram
import NetsimCore
import NetsimModel
import NetsimProxy

/// What one device of one transport left behind at the end of a run.
struct DeviceMeasurement: Sendable {
    var app: DeviceLedger.Record
    var server: EventStore.DeviceRecord
    var proxy: RunReport
    /// The bench-clock time the proxy started, to place its events (which are in proxy time).
    var proxyOrigin: Double
}

/// One device of a live bench as its zombie seconds and code outside the bench (the keepalive
/// tuner's `--verify`) see it: its phone's report with the events placed on the bench clock, when its app
/// noticed a connection was lost, and when its proxy stopped, on the bench clock.
public struct LiveDeviceOutcome: Sendable {
    public var proxy: RunReport
    public var connectionLossesNoticed: [Double]
    public var end: Double
}

extension DeviceMeasurement {
    var outcome: LiveDeviceOutcome {
        var proxy = self.proxy
        proxy.events = proxy.events.map { event in
            var event = event
            event.at += proxyOrigin
            event.expiredAt = event.expiredAt.map { $0 + proxyOrigin }
            return event
        }
        return LiveDeviceOutcome(
            proxy: proxy, connectionLossesNoticed: app.connectionLossesNoticed, end: proxyOrigin + proxy.radio.durationSeconds)
    }
}

/// A point of a latency CDF: this fraction of samples took at most `milliseconds`.
public struct CDFPoint: Sendable, Equatable {
    public var milliseconds: Double
    public var fraction: Double
}

/// What the HTML charts draw for one transport, beyond its JSON report.
public struct TransportCharts: Sendable {
    /// Each device's radio states, in seconds since its proxy started.
    public var timelines: [[RadioStateSegment]]
    public var latencyCDF: [CDFPoint]
    public var uplinkLatencyCDF: [CDFPoint]
}

/// Turns a fleet's raw measurements into its report: pooled latency histograms, delivery
/// accounting against what the server created and the app produced (delivered, lost for good,
/// or still in flight when the bench ended), recovery after gaps,
/// bytes, and the radio as fleet totals and per-device spreads.
enum BenchAnalysis {
    static func summarize(_ devices: [DeviceMeasurement]) -> (BenchReport.TransportReport, TransportCharts) {
        var fleet = FleetAnalysis()
        for device in devices {
            fleet.addDeliveries(deliveryFigures(device), app: device.app, server: device.server)
            fleet.addProxyReport(device.proxy)
            let outcome = device.outcome
            fleet.addZombieSeconds(
                ConnectionDeaths.detectionDelays(events: outcome.proxy.events, noticed: outcome.connectionLossesNoticed, end: outcome.end))
        }
        return fleet.summary()
    }

    /// Events the app will never get, by cause. A server sends a device's events in order, and
    /// a client subscribes either after the latest event it received (resilient) or from now
    /// (naive), so:
    /// - `bySkipping`: missing events up to `skippedThrough`, the latest event when the client
    ///   last subscribed from now: produced while it was away, and no later subscription asks
    ///   for them;
    /// - `dropped`: the other missing events behind one the app received: dropped by the client
    ///   (its bounded receive buffer) and never sent again.
    /// One missing after both is still to come (in flight).
    ///
    /// - Parameter received: per event, in sequence order, whether the app received it.
    static func lostEvents(_ received: [Bool], skippedThrough: UInt64) -> (bySkipping: Int, dropped: Int) {
        let skipped = min(received.count, Int(clamping: skippedThrough))
        let bySkipping = received[..<skipped].count { !$0 }
        guard let latest = received.lastIndex(of: true), latest > skipped else { return (bySkipping, 0) }
        return (bySkipping, received[skipped..<latest].count { !$0 })
    }

    /// The most attempts in one second of the bench clock over `devices`' attempts per second.
    static func peakPerSecond(_ devices: [[Int: Int]]) -> (count: Int, second: Int)? {
        var fleet: [Int: Int] = [:]
        for device in devices { fleet.merge(device, uniquingKeysWith: +) }
        return fleet.max { ($0.value, $1.key) < ($1.value, $0.key) }.map { ($0.value, $0.key) }
    }

    /// A live device's ledger and server records folded as the model engine folds its
    /// deliveries, for the same analysis.
    static func deliveryFigures(_ device: DeviceMeasurement) -> DeliveryFigures {
        let app = device.app
        let server = device.server
        var downlink = LatencyCounts()
        var uplink = LatencyCounts()
        var recoveries = RecoveryTimes()
        recoveries.addReturns(connectivityReturns(device))
        let deliveries = app.deliveries.prefix(server.events.count).compactMap { $0 }
        for delivery in deliveries {
            downlink.record(seconds: delivery.deliveredAt - delivery.createdAt)
            recoveries.arrived(createdAt: delivery.createdAt, at: delivery.deliveredAt)
        }
        let arrivals = server.messageArrivals.compactMap { $0 }
        for arrival in arrivals {
            uplink.record(seconds: arrival.arrivedAt - arrival.createdAt)
            recoveries.arrived(createdAt: arrival.createdAt, at: arrival.arrivedAt)
        }
        let received = app.deliveries.prefix(server.events.count).map { $0 != nil }
        let lost = lostEvents(received, skippedThrough: server.skippedThrough)
        return DeliveryFigures(
            events: .init(
                sent: server.events.count, delivered: deliveries.count, unrecoverable: lost.bySkipping + lost.dropped,
                duplicated: app.duplicateEvents, outOfOrder: app.outOfOrderEvents),
            eventsLostBySkipping: lost.bySkipping,
            messages: .init(
                sent: app.messagesProduced, delivered: arrivals.count,
                unrecoverable: app.droppedMessageIDs.count { !server.hasArrived(messageID: $0) },
                duplicated: server.duplicateMessages, outOfOrder: server.outOfOrderMessages),
            downlink: downlink, uplink: uplink, recoveries: recoveries.times)
    }

    /// When, on the bench clock, the device's network came back after each outage or handover.
    static func connectivityReturns(_ device: DeviceMeasurement) -> [Double] {
        RecoveryTimes.connectivityReturns(device.proxy.events, origin: device.proxyOrigin)
    }

    static func latency(_ histogram: Histogram<UInt64>) -> BenchReport.Latency {
        guard histogram.totalCount > 0 else { return BenchReport.Latency(count: 0, p50: 0, p95: 0, p99: 0, max: 0) }
        let milliseconds = { (value: UInt64) in Double(value) / 1000 }
        return BenchReport.Latency(
            count: Int(histogram.totalCount), p50: milliseconds(histogram.valueAtPercentile(50)),
            p95: milliseconds(histogram.valueAtPercentile(95)), p99: milliseconds(histogram.valueAtPercentile(99)),
            max: milliseconds(histogram.max))
    }

    static func cdf(_ histogram: Histogram<UInt64>) -> [CDFPoint] {
        guard histogram.totalCount > 0 else { return [] }
        let percentiles = Array(stride(from: 0.0, through: 99.0, by: 1.0)) + [99.5, 99.9, 100]
        return percentiles.map { CDFPoint(milliseconds: Double(histogram.valueAtPercentile($0)) / 1000, fraction: $0 / 100) }
    }
}

extension BenchReport.Delivery {
    /// Adds one device's stream: of the items not delivered, those that will never arrive are
    /// lost; the others were still in flight.
    mutating func add(_ stream: DeliveryFigures.Stream) {
        sent += stream.sent
        delivered += stream.delivered
        let missing = max(0, stream.sent - stream.delivered)
        lost += min(stream.unrecoverable, missing)
        inFlight += missing - min(stream.unrecoverable, missing)
        duplicated += stream.duplicated
        outOfOrder += stream.outOfOrder
    }
}

/// A fleet's analysis built one device at a time: its deliveries, which both engines fold into
/// `DeliveryFigures` (the model engine as they happen), are pooled into histograms and counts
/// as they come; the proxies' reports (small) are kept for the per-device spreads.
struct FleetAnalysis {
    private var downlink = LatencyCounts.makeHistogram()
    private var uplink = LatencyCounts.makeHistogram()
    private var events = BenchReport.Delivery(sent: 0, delivered: 0, lost: 0, inFlight: 0, duplicated: 0, outOfOrder: 0)
    private var messages = BenchReport.Delivery(sent: 0, delivered: 0, lost: 0, inFlight: 0, duplicated: 0, outOfOrder: 0)
    private var recoveries: [Double] = []
    private var counters = BenchReport.ClientCounters(failedAttempts: 0, callRenewals: 0, receiveBufferDrops: 0, outboxDrops: 0)
    private var reports: [RunReport] = []
    private var eventsLostBySkipping = 0
    /// Each device's attempts to connect again per second (the live bench's; the model does not
    /// time them, and its devices' are empty).
    private var attemptsBySecond: [[Int: Int]] = []
    /// Per connection death, seconds until the app noticed (nil: not measured, the model engine).
    private var zombieSeconds: [Double]?
    private var buffers = BenchReport.Buffers(
        clientPeakEvents: 0, clientPeakBytes: 0, serverQueuePeakEvents: 0, serverQueuePeakBytes: 0,
        lost: BenchReport.LostByCause(outboxOverflow: 0, receiveBufferOverflow: 0, other: 0))

    /// One device's deliveries, and its app and server records for their counters and buffer
    /// peaks.
    mutating func addDeliveries(_ figures: DeliveryFigures, app: DeviceLedger.Record, server: EventStore.DeviceRecord) {
        figures.downlink.add(to: &downlink)
        figures.uplink.add(to: &uplink)
        events.add(figures.events)
        eventsLostBySkipping += figures.eventsLostBySkipping
        attemptsBySecond.append(app.attemptsBySecond)
        messages.add(figures.messages)
        recoveries += figures.recoveries

        counters.failedAttempts += app.failedAttempts
        counters.callRenewals += app.callRenewals
        counters.receiveBufferDrops += app.receiveBufferDrops
        counters.outboxDrops += app.messagesDroppedFromOutbox
        addBuffers(app: app, server: server)
    }

    /// One device's buffer peaks (the worst device's are kept) and losses by cause. Must follow
    /// the delivery accounting of `addDeliveries`, whose losses it splits.
    private mutating func addBuffers(app: DeviceLedger.Record, server: EventStore.DeviceRecord) {
        buffers.clientPeakEvents = max(buffers.clientPeakEvents, app.peakBufferedEvents)
        buffers.clientPeakBytes = max(buffers.clientPeakBytes, app.peakBufferedBytes)
        buffers.serverQueuePeakEvents = max(buffers.serverQueuePeakEvents, server.peakQueuedEvents)
        buffers.serverQueuePeakBytes = max(buffers.serverQueuePeakBytes, server.peakQueuedBytes)
        buffers.lost.outboxOverflow = messages.lost
        buffers.lost.skippedOnReconnect = eventsLostBySkipping
        let notSkipped = events.lost - eventsLostBySkipping
        buffers.lost.receiveBufferOverflow = min(notSkipped, counters.receiveBufferDrops)
        buffers.lost.other = notSkipped - buffers.lost.receiveBufferOverflow
    }

    /// One device's zombie seconds: per death of its connection, the time until the app
    /// noticed (`ConnectionDeaths.detectionDelays`).
    mutating func addZombieSeconds(_ delays: [Double]) {
        zombieSeconds = (zombieSeconds ?? []) + delays
    }

    /// The reconnection and deadline figures (issue 12): losses by skipping, the fleet's
    /// attempt peak, and zombie seconds.
    private func resilience() -> BenchReport.Resilience {
        let peak = BenchAnalysis.peakPerSecond(attemptsBySecond) ?? (0, 0)
        return BenchReport.Resilience(
            zombieSeconds: zombieSeconds.map { BenchReport.Resilience.Zombie(deaths: $0.count, mean: Spread($0).mean, max: $0.max() ?? 0) },
            eventsLostBySkipping: eventsLostBySkipping,
            // Timed by the live bench (which measured zombie seconds too), not by the model.
            connectionAttempts: zombieSeconds == nil
                ? nil
                : BenchReport.Resilience.Attempts(
                    total: attemptsBySecond.reduce(0) { $0 + $1.values.reduce(0, +) }, peakPerSecond: peak.count,
                    peakSecond: Double(peak.second)))
    }

    /// One device's proxy report (bytes, connections, radio).
    mutating func addProxyReport(_ report: RunReport) {
        reports.append(report)
    }

    func summary() -> (BenchReport.TransportReport, TransportCharts) {
        let minutes = reports.map { max($0.durationSeconds, 1e-9) / 60 }
        let wire = reports.map { WireEstimate(payload: $0.bytes, segments: $0.segments, connections: $0.connections.opened) }
        let payloadPerMinute = zip(reports, minutes).map { Double($0.bytes.up + $0.bytes.down) / $1 }
        let wirePerMinute = zip(wire, minutes).map { Double($0.up + $0.down) / $1 }
        let reconnects = reports.map { max(0, $0.connections.opened - 1) }
        let payloadTotal = reports.reduce(0) { $0 + $1.bytes.up + $1.bytes.down }
        let delivered = events.delivered + messages.delivered
        let mean = { (values: [Double]) in Spread(values).mean }

        var radioFleetTotal = RadioReport.sequential(reports.map(\.radio))
        radioFleetTotal.timeline = nil
        let states = Set(reports.flatMap { $0.radio.secondsByState.keys })
        let report = BenchReport.TransportReport(
            bytes: BenchReport.Bytes(
                up: mean(reports.map { Double($0.bytes.up) }), down: mean(reports.map { Double($0.bytes.down) }),
                perMinute: mean(payloadPerMinute),
                perDeliveredMessage: delivered > 0 ? Double(payloadTotal) / Double(delivered) : 0,
                wire: BenchReport.Wire(
                    up: mean(wire.map { Double($0.up) }), down: mean(wire.map { Double($0.down) }), perMinute: mean(wirePerMinute))),
            latencyMs: BenchAnalysis.latency(downlink), uplinkLatencyMs: BenchAnalysis.latency(uplink), events: events, messages: messages,
            reconnects: reconnects.reduce(0, +),
            recoverySeconds: BenchReport.Recovery(count: recoveries.count, mean: mean(recoveries), max: recoveries.max() ?? 0),
            radioFleetTotal: radioFleetTotal,
            perDevice: BenchReport.PerDevice(
                bytesPerMinute: Spread(payloadPerMinute), wireBytesPerMinute: Spread(wirePerMinute),
                wakeSeconds: Spread(reports.map(\.radio.wakeSeconds)), promotions: Spread(reports.map { Double($0.radio.promotions) }),
                energyJoules: Spread(reports.map(\.radio.energyJoules)),
                meanPowerMilliwatts: Spread(reports.map(\.radio.meanPowerMilliwatts)),
                reconnects: Spread(reconnects.map(Double.init)),
                secondsByState: Dictionary(
                    uniqueKeysWithValues: states.map { state in (state, Spread(reports.map { $0.radio.secondsByState[state] ?? 0 })) })),
            client: counters, resilience: resilience(), buffers: buffers)
        let charts = TransportCharts(
            timelines: reports.map { $0.radio.timeline ?? [] }, latencyCDF: BenchAnalysis.cdf(downlink),
            uplinkLatencyCDF: BenchAnalysis.cdf(uplink))
        return (report, charts)
    }
}
