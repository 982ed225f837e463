import NetsimCore

/// A finished device's app and server records, handed over as soon as it stops. They hold
/// tallies, not a record per event or message, so a device's memory does not grow with the
/// run's length while it plays either.
public struct DeviceRecords: Sendable {
    public var app: AppRecord
    public var server: ServerRecord
    /// The profile's events as the device met them.
    public var events: [DeviceEvent]
    /// Per return of the network, the time until what it held up had arrived.
    public var recoveries: [Double]

    /// The deliveries as a fleet's analysis pools them; the events a naive client skipped
    /// (`ServerRecord.skippedThrough`) are lost by skipping.
    public var deliveryFigures: DeliveryFigures {
        DeliveryFigures(
            app: app, skippedThrough: server.skippedThrough,
            messages: .init(
                sent: app.messagesProduced, delivered: server.messages.arrived,
                unrecoverable: app.droppedMessageIDs.count { !server.messages.hasArrived($0) },
                duplicated: server.messages.duplicates, outOfOrder: server.messages.outOfOrder),
            uplink: server.messages.latencies, recoveries: recoveries)
    }
}
