import Foundation
import NetsimCore

/// What the app does, the same for every transport: the server creates events for each device
/// as a Poisson process, and each device's app produces uplink messages at a fixed interval.
///
/// The file format (`--workload FILE.yaml`, every key optional):
/// ```yaml
/// serverEvents:
///   meanGap: 30s      # exponential gaps with this mean (a Poisson process), per device
///   payload: 256B
/// clientMessages:
///   every: 60s        # one per device at this interval, from a seeded phase
///   payload: 256B
///   burst: 20         # messages per interval (default 1), spread evenly over `over`
///   over: 2s
/// serverBurst: {at: 10s, events: 2000, rate: 500/s}   # per device, on top of the Poisson process
/// outboxLimit: 64     # uplink messages a device holds while it cannot send (oldest dropped)
/// ```
public struct Workload: Sendable, Equatable {
    public var eventMeanGap: Double = 30
    public var eventPayloadBytes = 256
    public var messageInterval: Double = 60
    public var messagePayloadBytes = 256
    /// Unacknowledged uplink messages one device keeps; beyond it the oldest is dropped (and
    /// counted lost), so a long outage cannot grow memory.
    public var outboxLimit = 64

    // MARK: Strategies: bursts (2 and 5)

    /// Messages per `messageInterval`, the first at the interval's start and the rest spread
    /// evenly over `messageBurstSpan` seconds (an analytics SDK flushing a screen's events).
    public var messageBurst = 1
    public var messageBurstSpan: Double = 0
    /// A burst of server events for every device on top of the Poisson process; nil: none.
    public var serverBurst: ServerBurst?

    /// `events` server events per device from `at` seconds, `eventsPerSecond` a second.
    public struct ServerBurst: Sendable, Equatable {
        public var at: Double
        public var events: Int
        public var eventsPerSecond: Double

        public init(at: Double, events: Int, eventsPerSecond: Double) {
            self.at = at
            self.events = events
            self.eventsPerSecond = eventsPerSecond
        }

        /// The burst's creation times that fall before `duration`.
        func times(before duration: Double) -> [Double] {
            (0..<events).lazy.map { at + Double($0) / eventsPerSecond }.filter { $0 < duration }
        }
    }

    public init() {}

    /// One device's schedule over `duration` seconds. Device `index` draws from its own stream
    /// of `seed`, so every transport's device `index` gets the same schedule, and adding devices
    /// does not change the earlier ones'.
    public func schedule(device index: Int, seed: UInt64, duration: Double) -> DeviceSchedule {
        var random = SeededRandom(seed: seed)
        for _ in 0..<index { _ = random.fork() }
        var deviceRandom = random.fork()
        var eventTimes: [Double] = []
        var time = 0.0
        while true {
            time += -log(1 - deviceRandom.unitInterval()) * eventMeanGap
            guard time < duration else { break }
            eventTimes.append(time)
        }
        if let serverBurst { eventTimes = (eventTimes + serverBurst.times(before: duration)).sorted() }
        var messageTimes: [Double] = []
        var messageTime = deviceRandom.unitInterval() * messageInterval
        let burstGap = messageBurst > 1 ? messageBurstSpan / Double(messageBurst - 1) : 0
        while messageTime < duration {
            for index in 0..<messageBurst {
                let time = messageTime + Double(index) * burstGap
                if time < duration { messageTimes.append(time) }
            }
            messageTime += messageInterval
        }
        return DeviceSchedule(eventTimes: eventTimes, messageTimes: messageTimes)
    }

    /// The text of an event or message: printable, so JSON carries it as it is and every
    /// transport moves the same payload bytes.
    public static func payload(_ kind: String, device: Int, number: UInt64, length: Int) -> String {
        let label = "\(kind) \(number) for device \(device) "
        let filler = "abcdefghijklmnopqrstuvwxyz0123456789"
        var text = label
        text.reserveCapacity(length)
        while text.utf8.count < length { text += filler }
        return String(text.utf8.prefix(length))!
    }
}

/// When, in seconds from the bench's start, a device's events are created and its messages
/// produced.
public struct DeviceSchedule: Sendable, Equatable {
    public var eventTimes: [Double]
    public var messageTimes: [Double]
}
