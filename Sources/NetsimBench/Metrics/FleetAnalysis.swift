import Histogram
import NetsimCore
import NetsimModel

/// What one device adds to its fleet's figures besides its latencies (pooled into the fleet's
/// histograms as they come) and its proxy's report: its delivery counts, recoveries, client
/// counters and buffer peaks. Small, so a fleet keeps one per device, and `Codable`, so a
/// shard of a bench writes them down and a merge adds them in device order exactly as the
/// unsharded run does.
struct DeviceShare: Sendable, Codable, Equatable {
    var events: DeliveryFigures.Stream
    var messages: DeliveryFigures.Stream
    var eventsLostBySkipping: Int
    /// Per return of the network, seconds until what it held up had arrived.
    var recoveries: [Double]
    var counters: BenchReport.ClientCounters
    /// Attempts to connect again per second of the bench clock (the live bench's; the model does
    /// not time them, and its devices' are empty).
    var attemptsBySecond: [Int: Int]
    var clientPeakEvents: Int
    var clientPeakBytes: Int
    var serverQueuePeakEvents: Int
    var serverQueuePeakBytes: Int
    /// Per death of the device's connection, seconds until the app noticed (nil: not measured,
    /// the model engine).
    var zombieSeconds: [Double]?

    init(_ figures: DeliveryFigures, app: AppRecord, server: EventStore.DeviceRecord, zombieSeconds: [Double]?) {
        events = figures.events
        messages = figures.messages
        eventsLostBySkipping = figures.eventsLostBySkipping
        recoveries = figures.recoveries
        counters = BenchReport.ClientCounters(
            failedAttempts: app.failedAttempts, callRenewals: app.callRenewals, receiveBufferDrops: app.receiveBufferDrops,
            outboxDrops: app.messagesDroppedFromOutbox)
        attemptsBySecond = app.attemptsBySecond
        clientPeakEvents = app.peakBufferedEvents
        clientPeakBytes = app.peakBufferedBytes
        serverQueuePeakEvents = server.peakQueuedEvents
        serverQueuePeakBytes = server.peakQueuedBytes
        self.zombieSeconds = zombieSeconds
    }
}

/// A fleet's analysis built one device at a time: its latencies pooled into histograms as they
/// come; each device's share and its proxy's report (both small) kept, in device order, for the
/// sums, the per-device spreads and the means, which `summary` folds in that order.
struct FleetAnalysis {
    private var downlink = LatencyCounts.makeHistogram()
    private var uplink = LatencyCounts.makeHistogram()
    private var shares: [DeviceShare] = []
    private var reports: [RunReport] = []

    /// A part of the fleet's latencies (a device's, or a shard's devices'), pooled: a
    /// histogram's counts do not depend on the order they came in.
    mutating func addLatencies(downlink: LatencyCounts, uplink: LatencyCounts) {
        downlink.add(to: &self.downlink)
        uplink.add(to: &self.uplink)
    }

    /// A device's share and its proxy's report (bytes, connections, radio); add them in device
    /// order, which the means and the fleet's radio totals are summed in.
    mutating func add(_ share: DeviceShare, proxy: RunReport) {
        shares.append(share)
        reports.append(proxy)
    }

    func summary() -> (BenchReport.TransportReport, TransportCharts) {
        var events = BenchReport.Delivery(sent: 0, delivered: 0, lost: 0, inFlight: 0, duplicated: 0, outOfOrder: 0)
        var messages = events
        var recoveries: [Double] = []
        var counters = BenchReport.ClientCounters(failedAttempts: 0, callRenewals: 0, receiveBufferDrops: 0, outboxDrops: 0)
        var eventsLostBySkipping = 0
        var zombieSeconds: [Double]?
        var buffers = BenchReport.Buffers(
            clientPeakEvents: 0, clientPeakBytes: 0, serverQueuePeakEvents: 0, serverQueuePeakBytes: 0,
            lost: BenchReport.LostByCause(outboxOverflow: 0, receiveBufferOverflow: 0, other: 0))
        for share in shares {
            events.add(share.events)
            messages.add(share.messages)
            eventsLostBySkipping += share.eventsLostBySkipping
            recoveries += share.recoveries
            counters.failedAttempts += share.counters.failedAttempts
            counters.callRenewals += share.counters.callRenewals
            counters.receiveBufferDrops += share.counters.receiveBufferDrops
            counters.outboxDrops += share.counters.outboxDrops
            // The worst device's peaks.
            buffers.clientPeakEvents = max(buffers.clientPeakEvents, share.clientPeakEvents)
            buffers.clientPeakBytes = max(buffers.clientPeakBytes, share.clientPeakBytes)
            buffers.serverQueuePeakEvents = max(buffers.serverQueuePeakEvents, share.serverQueuePeakEvents)
            buffers.serverQueuePeakBytes = max(buffers.serverQueuePeakBytes, share.serverQueuePeakBytes)
            if let delays = share.zombieSeconds { zombieSeconds = (zombieSeconds ?? []) + delays }
        }
        // Losses by cause, split from the delivery accounting.
        buffers.lost.outboxOverflow = messages.lost
        buffers.lost.skippedOnReconnect = eventsLostBySkipping
        let notSkipped = events.lost - eventsLostBySkipping
        buffers.lost.receiveBufferOverflow = min(notSkipped, counters.receiveBufferDrops)
        buffers.lost.other = notSkipped - buffers.lost.receiveBufferOverflow

        let minutes = reports.map { max($0.durationSeconds, 1e-9) / 60 }
        let wire = reports.map(WireEstimate.init)
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
            migrations: reports.contains { $0.datagrams != nil } ? reports.reduce(0) { $0 + ($1.datagrams?.remappings ?? 0) } : nil,
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
            client: counters,
            resilience: Self.resilience(
                zombieSeconds: zombieSeconds, eventsLostBySkipping: eventsLostBySkipping, attemptsBySecond: shares.map(\.attemptsBySecond)),
            buffers: buffers)
        let charts = TransportCharts(
            timelines: reports.map { $0.radio.timeline ?? [] }, latencyCDF: BenchAnalysis.cdf(downlink),
            uplinkLatencyCDF: BenchAnalysis.cdf(uplink))
        return (report, charts)
    }

    /// The reconnection and deadline figures: losses by skipping, the fleet's
    /// attempt peak, and zombie seconds.
    private static func resilience(
        zombieSeconds: [Double]?, eventsLostBySkipping: Int, attemptsBySecond: [[Int: Int]]
    ) -> BenchReport.Resilience {
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
}
