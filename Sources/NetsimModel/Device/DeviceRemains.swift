import NetsimCore

/// A finished device without its records: its radio's history, whose report runs on to the
/// fleet's stop, its profile events and its counters. A value a shard of a model run writes
/// down for the merge (`Codable`), so nothing of the device's simulation state is kept.
public struct DeviceRemains: Sendable, Codable {
    var radio: RadioHistory
    var events: [DeviceEvent]
    var eventCounts: [DeviceEvent.Kind: Int]
    var connections: DeviceOutcome.Tally
    var bytes: PerDirection<Int>
    var segments: SegmentCounts
    var datagrams: DatagramFigures?
    var natExpiriesWithNetwork: Int?
    /// When the app's connection died, if it still held it dead at the stop.
    var diedAt: Double?

    /// The outcome at `end`, with empty app and server records (they were handed over).
    public func outcome(until end: Double) -> DeviceOutcome {
        DeviceOutcome(
            app: AppRecord(), server: ServerRecord(), connections: connections, bytes: bytes,
            segments: segments, datagrams: datagrams, natExpiriesWithNetwork: natExpiriesWithNetwork, radio: radio.report(until: end),
            radioLatency: radio.waits(until: end),
            events: events, eventCounts: eventCounts, durationSeconds: end, undetectedDeathSeconds: diedAt.map { end - $0 })
    }
}
