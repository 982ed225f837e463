import NetsimCore

/// A numbered stream (a device's events, or its uplink messages) as its receiver counts it:
/// items created, first arrivals and their latencies, duplicates, and items that arrived after
/// a later one. It keeps only what is still open (the creation times of items that have not
/// arrived, and the numbers below the highest arrived that have not arrived), so its memory
/// follows the items in flight or lost, not the run's length.
public struct ArrivalTally: Sendable, Equatable {
    public private(set) var created = 0
    public private(set) var arrived = 0
    public private(set) var duplicates = 0
    public private(set) var outOfOrder = 0
    /// The highest number that arrived.
    public private(set) var highest: UInt64 = 0
    public private(set) var latencies = LatencyCounts()
    /// Numbers below `highest` that have not arrived: lost, or still on their way.
    private var missing: Set<UInt64> = []
    /// When each item that has not arrived was created, by number.
    private var createdAt: [UInt64: Double] = [:]

    public init() {}

    /// The items kept: creation times not yet taken by an arrival, and numbers missing below
    /// the highest.
    public var retainedRecordCount: Int { createdAt.count + missing.count }

    /// Whether every item created so far arrived.
    public var isComplete: Bool { arrived == created }

    public func hasArrived(_ number: UInt64) -> Bool {
        number <= highest && !missing.contains(number)
    }

    /// Whether every item after `number` up to `last` has arrived: `hasArrived` of each, from
    /// what is missing rather than number by number (a drain asks every 100 ms, of every item
    /// of the run).
    public func hasArrived(after number: UInt64, through last: UInt64) -> Bool {
        guard last > number else { return true }
        return last <= highest && !missing.contains { $0 > number && $0 <= last }
    }

    /// The items that will never arrive, by cause, from a sender that sends in order from where
    /// each subscription starts (after the latest item the receiver has, or "from now": after
    /// the sender's latest):
    /// - `bySkipping`: those up to `skippedThrough`, the sender's latest when a subscription
    ///   last started from now (0: none did), that have not arrived: no later subscription
    ///   asks for them;
    /// - `dropped`: the others missing behind one that arrived: dropped by the receiver (its
    ///   bounded buffer) and never sent again.
    /// One missing after both may still come (in flight).
    public func unrecoverable(skippedThrough: UInt64) -> (bySkipping: Int, dropped: Int) {
        let skipped = min(UInt64(created), skippedThrough)
        let missingSkipped = missing.count { $0 <= skipped }
        let neverReached = skipped > highest ? Int(skipped - highest) : 0
        return (missingSkipped + neverReached, missing.count - missingSkipped)
    }

    /// Item number `created + 1` is created at `time`.
    public mutating func create(at time: Double) {
        created += 1
        createdAt[UInt64(created)] = time
    }

    /// Item `number` arrives at `time`; returns its creation time at its first arrival, nil
    /// for a duplicate.
    public mutating func receive(_ number: UInt64, at time: Double) -> Double? {
        guard number >= 1, number > highest || missing.remove(number) != nil else {
            if number >= 1 { duplicates += 1 }
            return nil
        }
        if number < highest { outOfOrder += 1 }
        if number > highest {
            missing.formUnion(highest + 1..<number)
            highest = number
        }
        arrived += 1
        guard let creation = createdAt.removeValue(forKey: number) else { return nil }
        latencies.record(seconds: time - creation)
        return creation
    }
}

/// For each time a device's network came back after an outage or handover gap, the seconds
/// until the last item created before it and still in flight at it arrived; a gap that held
/// nothing up has no recovery to measure. Folded as items arrive, in any order, so no arrival
/// is kept; a return must be added before the arrivals after it.
public struct RecoveryTimes: Sendable {
    private var returns: [Double] = []
    /// Per return, the longest wait so far.
    private var longest: [Double?] = []

    public init() {}

    /// When the network came back after each of `events`' outages or handover gaps, in
    /// seconds after `origin` (the time the device's clock started).
    public static func connectivityReturns(_ events: some Sequence<DeviceEvent>, origin: Double) -> [Double] {
        events.compactMap { event in
            guard let gap = event.durationSeconds, gap > 0 else { return nil }
            return origin + event.at + gap
        }
    }

    public mutating func addReturns(_ times: [Double]) {
        returns += times
        longest += repeatElement(nil, count: times.count)
    }

    /// An item created at `createdAt` arrived at `arrivedAt`.
    public mutating func arrived(createdAt: Double, at arrivedAt: Double) {
        for (index, back) in returns.enumerated() where createdAt < back && arrivedAt > back {
            longest[index] = max(longest[index] ?? 0, arrivedAt - back)
        }
    }

    /// The recovery times, in the order of the returns.
    public var times: [Double] { longest.compactMap { $0 } }
}

/// One device's deliveries as a fleet's analysis pools them, whichever engine played it: its
/// app's record (`AppRecord`, the events) and its server's count of the messages, folded.
public struct DeliveryFigures: Sendable {
    /// One stream's items: `sent`, `delivered` of them, and of the rest `unrecoverable` that
    /// will never arrive; the others were still in flight.
    public struct Stream: Sendable, Codable, Equatable {
        public var sent: Int
        public var delivered: Int
        public var unrecoverable: Int
        public var duplicated: Int
        public var outOfOrder: Int

        public init(sent: Int, delivered: Int, unrecoverable: Int, duplicated: Int, outOfOrder: Int) {
            self.sent = sent
            self.delivered = delivered
            self.unrecoverable = unrecoverable
            self.duplicated = duplicated
            self.outOfOrder = outOfOrder
        }
    }

    public var events: Stream
    /// Of the events' unrecoverable, those skipped by a subscription "from now".
    public var eventsLostBySkipping: Int
    public var messages: Stream
    public var downlink: LatencyCounts
    public var uplink: LatencyCounts
    public var recoveries: [Double]

    /// A device's figures from its app's record, whichever engine filled it (its events, those
    /// up to `skippedThrough` skipped for good by a subscription "from now"), and its messages
    /// and their latencies as its server counted them.
    public init(app: AppRecord, skippedThrough: UInt64, messages: Stream, uplink: LatencyCounts, recoveries: [Double]) {
        let lost = app.events.unrecoverable(skippedThrough: skippedThrough)
        events = Stream(
            sent: app.events.created, delivered: app.events.arrived, unrecoverable: lost.bySkipping + lost.dropped,
            duplicated: app.events.duplicates, outOfOrder: app.events.outOfOrder)
        eventsLostBySkipping = lost.bySkipping
        self.messages = messages
        downlink = app.events.latencies
        self.uplink = uplink
        self.recoveries = recoveries
    }
}
