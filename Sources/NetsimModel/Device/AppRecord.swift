/// What a device's app saw over a run: the server's events as they reached it, its uplink
/// messages and its connection troubles.
public struct AppRecord: Sendable, Equatable {
    /// The server's events as they reached the app.
    public var events = ArrivalTally()
    public var messagesProduced = 0
    /// Messages the full outbox dropped (the oldest first): lost unless they had arrived.
    public var droppedMessageIDs: [UInt64] = []
    public var messagesDroppedFromOutbox: Int { droppedMessageIDs.count }
    /// Connects, polls, requests or calls that failed.
    public var failedAttempts = 0
    /// gRPC calls ended by their deadline and opened again.
    public var callRenewals = 0
    /// Times the app learnt that its connection was dead, and how long after its death.
    public var detections: [Double] = []
}
