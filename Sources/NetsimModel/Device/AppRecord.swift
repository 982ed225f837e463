/// What a device's app saw over a run, in either engine: the `AppLedger` fills it, in the model
/// engine's device or behind the live bench's `DeviceLedger`, and the bench's analysis reads it
/// whichever played the device. It holds tallies and counters, not a record per event, so a day of a
/// modelled fleet stays small; the few figures one engine does not measure say so, and stay
/// empty there.
public struct AppRecord: Sendable, Equatable {
    /// The server's events as they reached the app: both ledgers are told when the server
    /// creates each one, so its latencies are measured from the creation.
    public var events = ArrivalTally()
    public var messagesProduced = 0
    /// Messages the full outbox dropped (the oldest first): lost unless they had arrived.
    public var droppedMessageIDs: [UInt64] = []
    public var messagesDroppedFromOutbox: Int { droppedMessageIDs.count }
    /// Connects, polls, requests or calls that failed.
    public var failedAttempts = 0
    /// gRPC calls ended by their deadline and opened again.
    public var callRenewals = 0

    /// The model engine's: per death of the app's connection that it learnt of, how long after
    /// the death it did. The engine knows when each connection died; the live bench notes only
    /// when the app learnt (`connectionLossesNoticed`) and pairs that with its proxy's report.
    public var detections: [Double] = []

    /// The live bench's: when the app learnt that its connection was gone, on the bench clock:
    /// an open gRPC call that ended other than by its deadline, a REST request that failed, an
    /// open WebSocket that closed; and for REST, requests answered (the app is no longer
    /// waiting: a connection reset between polls is replaced without a failure), at most the
    /// first of each second. Paired with the deaths (`ConnectionDeaths`) for the keepalive
    /// replay's detection times and the bench's zombie seconds. The model records `detections`.
    public var connectionLossesNoticed: [Double] = []
    /// The live bench's: attempts to connect again per second of the bench clock (second →
    /// attempts): every one after a loss or failure, the device's first connect excluded (the
    /// bench starts its whole fleet at once). Fixed buckets keep it bounded by the run's length
    /// however fast a client retries. The model engine does not time attempts: empty.
    public var attemptsBySecond: [Int: Int] = [:]
    /// Events the push clients' receive buffer dropped (full, the oldest went), and the most
    /// events and payload bytes the client held between the network and the app at once (its
    /// buffer; pulling, the event being handled; REST, one poll's answer). The model engine
    /// keeps them only with a consumer (`ClientSettings.Consumer`): without one its apps
    /// handle each event as it arrives, and they stay zero.
    public var receiveBufferDrops = 0
    public var peakBufferedEvents = 0
    public var peakBufferedBytes = 0

    public init() {}
}
