import Histogram
import NetsimCore
import NetsimModel
import NetsimProxy

/// What one device of one transport left behind at the end of a run.
struct DeviceMeasurement: Sendable {
    /// The device's index in the whole fleet.
    var index: Int
    var app: AppRecord
    /// Each event's first delivery to the app, for the recoveries (`DeviceLedger.deliveries`).
    var deliveries: [DeviceLedger.Delivery]
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

/// What a fleet's report is made of (`FleetAnalysis` pools it): a live device's delivery
/// accounting against what the server created and the app produced (delivered, lost for good,
/// or still in flight when the bench ended), losses by cause, recovery after gaps, attempt
/// peaks, and the latency figures of the pooled histograms.
enum BenchAnalysis {
    /// A live fleet's report (an unsharded bench's is its one part merged, the same).
    static func summarize(_ devices: [DeviceMeasurement]) -> (BenchReport.TransportReport, TransportCharts) {
        var part = BenchShard.FleetPart()
        for device in devices { part.add(device) }
        return BenchShardMerge.analyse([part], end: 0, profile: "", seed: 0)
    }

    /// The most attempts in one second of the bench clock over `devices`' attempts per second.
    static func peakPerSecond(_ devices: [[Int: Int]]) -> (count: Int, second: Int)? {
        var fleet: [Int: Int] = [:]
        for device in devices { fleet.merge(device, uniquingKeysWith: +) }
        return fleet.max { ($0.value, $1.key) < ($1.value, $0.key) }.map { ($0.value, $0.key) }
    }

    /// A live device's app record, as the model engine's, with its server's record of the
    /// messages; its recoveries measured from the deliveries and arrivals against its proxy's
    /// report.
    static func deliveryFigures(_ device: DeviceMeasurement) -> DeliveryFigures {
        let app = device.app
        let server = device.server
        var uplink = LatencyCounts()
        var recoveries = RecoveryTimes()
        recoveries.addReturns(connectivityReturns(device))
        for delivery in device.deliveries {
            recoveries.arrived(createdAt: delivery.createdAt, at: delivery.deliveredAt)
        }
        let arrivals = server.messageArrivals.compactMap { $0 }
        for arrival in arrivals {
            uplink.record(seconds: arrival.arrivedAt - arrival.createdAt)
            recoveries.arrived(createdAt: arrival.createdAt, at: arrival.arrivedAt)
        }
        return DeliveryFigures(
            app: app, skippedThrough: server.skippedThrough,
            messages: .init(
                sent: app.messagesProduced, delivered: arrivals.count,
                unrecoverable: app.droppedMessageIDs.count { !server.messages.hasArrived($0) },
                duplicated: server.messages.duplicates, outOfOrder: server.messages.outOfOrder),
            uplink: uplink, recoveries: recoveries.times)
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

    /// The latency at each percent, and at 99.5, 99.9 and 100: `valueAtPercentile`'s values,
    /// found in one walk over the recorded values rather than in one scan of every bucket from
    /// the first for each of the 103 points (a third of `report merge`'s time).
    static func cdf(_ histogram: Histogram<UInt64>) -> [CDFPoint] {
        guard histogram.totalCount > 0 else { return [] }
        let percentiles = Array(stride(from: 0.0, through: 99.0, by: 1.0)) + [99.5, 99.9, 100]
        var recorded = histogram.recordedValues()
        var step = recorded.next()
        return percentiles.map { percentile in
            let value: UInt64
            if percentile == 0 {
                value = histogram.min
            } else if percentile >= 100 {
                value = histogram.maxRecorded
            } else {
                // valueAtPercentile's count: a ulp below the percentile, rounded up, at least 1.
                let count = max(1, UInt64((percentile.nextDown * Double(histogram.totalCount) / 100).rounded(.up)))
                while let current = step, current.totalCountToThisValue < count { step = recorded.next() }
                value = step.map { min(max($0.value, histogram.min), histogram.maxRecorded) } ?? 0
            }
            return CDFPoint(milliseconds: Double(value) / 1000, fraction: percentile / 100)
        }
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
