import NetsimModel
import Synchronization

/// One transport server's state, shared by its request handlers: each device's events (created
/// on the workload's schedule) and the uplink messages it received. Sizes are fixed by the
/// schedules, so nothing here grows beyond the workload.
final class EventStore: Sendable {
    struct Event: Sendable, Equatable {
        var sequence: UInt64
        /// Seconds on the bench clock.
        var createdAt: Double
        var payload: String
    }

    /// What a device's server side saw over the run.
    struct DeviceRecord: Sendable {
        var events: [Event] = []
        /// Each uplink message (id - 1) at its first arrival; nil if it never arrived. The
        /// recoveries and the uplink latencies are measured from these once the phone's proxy
        /// has reported its outages.
        var messageArrivals: [Arrival?]
        /// The messages' arrivals counted as the model engine's server counts them: duplicates
        /// (arrived again, acknowledged and not kept) and messages that first arrived after a
        /// later one (a resend after a reconnect can do it).
        var messages = ArrivalTally()
        /// The device's latest event when a client last subscribed "from now"
        /// (`EventStore.fromNow`): every event up to it that the app had not received then is
        /// skipped for good, since no later subscription asks for it again.
        var skippedThrough: UInt64 = 0
        /// The last event handed to the device's connection (pushed, or answered to a poll);
        /// the events after it are the server's queue for the device.
        var sentThrough: UInt64 = 0
        /// The longest that queue was, in events and payload bytes (strategy 5: with a slow
        /// pull-based client the backlog waits here, held back by flow control).
        var peakQueuedEvents = 0
        var peakQueuedBytes = 0

        /// Records the message's arrival; false when it had arrived before (or is not one of
        /// the device's).
        mutating func received(messageID: UInt64, createdAt: Double, at time: Double) -> Bool {
            let index = Int(clamping: messageID) - 1
            guard messageArrivals.indices.contains(index) else { return false }
            _ = messages.receive(messageID, at: time)
            guard messageArrivals[index] == nil else { return false }
            messageArrivals[index] = Arrival(createdAt: createdAt, arrivedAt: time)
            return true
        }
    }

    struct Arrival: Sendable, Equatable {
        /// When the app produced it and when it arrived, on the bench clock.
        var createdAt: Double
        var arrivedAt: Double
    }

    /// A subscription's resumption point meaning "from now": the naive client's (see
    /// `ClientSettings.Reconnect.naive`), which does not keep an offset.
    static let fromNow = ClientSettings.Reconnect.fromNow

    private let devices: Mutex<[DeviceRecord]>
    private let signals: [SignalSlot]

    init(schedules: [DeviceSchedule]) {
        devices = Mutex(schedules.map { DeviceRecord(messageArrivals: Array(repeating: nil, count: $0.messageTimes.count)) })
        signals = schedules.map { _ in SignalSlot() }
    }

    var deviceCount: Int { signals.count }

    /// Creates the device's next event now and wakes its live session, if any.
    func publish(device: Int, createdAt: Double, payloadLength: Int) {
        devices.withLock { records in
            let sequence = UInt64(records[device].events.count + 1)
            let payload = Workload.payload("event", device: device, number: sequence, length: payloadLength)
            records[device].events.append(Event(sequence: sequence, createdAt: createdAt, payload: payload))
            let queued = Int(clamping: sequence - min(sequence, records[device].sentThrough))
            records[device].peakQueuedEvents = max(records[device].peakQueuedEvents, queued)
            records[device].peakQueuedBytes = max(records[device].peakQueuedBytes, queued * payloadLength)
        }
        signals[device].signal()
    }

    /// The device's events after `sequence`, at most `limit` of them.
    func events(device: Int, after sequence: UInt64, limit: Int) -> [Event] {
        devices.withLock { records in
            let events = records[device].events
            let start = min(Int(clamping: sequence), events.count)
            return Array(events[start..<min(events.count, start + limit)])
        }
    }

    /// The device's connection has been handed every event through `sequence`.
    func markSent(device: Int, through sequence: UInt64) {
        devices.withLock { $0[device].sentThrough = sequence }
    }

    /// Records an uplink message's arrival; false when it had arrived before (or is not one of
    /// the device's). Either way the sender should be acknowledged.
    @discardableResult
    func receive(device: Int, messageID: UInt64, createdAt: Double, at time: Double) -> Bool {
        devices.withLock { records in
            guard records.indices.contains(device) else { return false }
            return records[device].received(messageID: messageID, createdAt: createdAt, at: time)
        }
    }

    /// Where a subscription after `sequence` starts: `sequence` itself, or for `fromNow` the
    /// device's latest event, recorded as skipped through (`DeviceRecord.skippedThrough`).
    func start(device: Int, after sequence: UInt64) -> UInt64 {
        guard sequence == Self.fromNow else { return sequence }
        return devices.withLock { records in
            let latest = UInt64(records[device].events.count)
            records[device].skippedThrough = max(records[device].skippedThrough, latest)
            return latest
        }
    }

    /// Sends the device's events after `sequence` (or from now: `fromNow`) through `write`,
    /// then each new one as it is created, until a newer session for the device takes over or
    /// the task is cancelled. This is the push side the WebSocket and gRPC servers share.
    func push(device: Int, after sequence: UInt64, write: (Event) async throws -> Void) async throws {
        var wakeUps = signals[device].subscribe().makeAsyncIterator()
        var sent = start(device: device, after: sequence)
        markSent(device: device, through: sent)
        repeat {
            while true {
                let batch = events(device: device, after: sent, limit: 64)
                guard !batch.isEmpty else { break }
                for event in batch {
                    try await write(event)
                    sent = event.sequence
                    markSent(device: device, through: sent)
                }
            }
        } while await wakeUps.next() != nil && !Task.isCancelled
    }

    /// The device's `DeviceRecord.skippedThrough`.
    func skippedThrough(device: Int) -> UInt64 {
        devices.withLock { $0[device].skippedThrough }
    }

    func record(device: Int) -> DeviceRecord {
        devices.withLock { $0[device] }
    }

    /// Ends every live push (the bench is over).
    func closeSessions() {
        for signal in signals { signal.close() }
    }
}
