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
public struct Workload: Sendable, Equatable, Codable {
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
    public struct ServerBurst: Sendable, Equatable, Codable {
        public var at: Double
        public var events: Int
        public var eventsPerSecond: Double

        public init(at: Double, events: Int, eventsPerSecond: Double) {
            self.at = at
            self.events = events
            self.eventsPerSecond = eventsPerSecond
        }
    }

    public init() {}

    /// One device's schedule over `duration` seconds, as arrays (the live bench's servers and
    /// ledgers are sized by it). Device `index` draws from its own stream of `seed`, so every
    /// transport's device `index` gets the same schedule, and adding devices does not change
    /// the earlier ones'.
    public func schedule(device index: Int, seed: UInt64, duration: Double) -> DeviceSchedule {
        let times = times(device: index, seed: seed, duration: duration)
        return DeviceSchedule(eventTimes: Array(times.events), messageTimes: Array(times.messages))
    }

    /// The same schedule drawn one time at a time, so a long run holds none of it.
    public func times(device index: Int, seed: UInt64, duration: Double) -> DeviceTimes {
        var random = SeededRandom(seed: seed)
        for _ in 0..<index { _ = random.fork() }
        let deviceRandom = random.fork()
        // The message phase is drawn after every event gap: replay the gaps to reach it.
        var replay = PoissonTimes(random: deviceRandom, meanGap: eventMeanGap, duration: duration)
        while replay.next() != nil {}
        let phase = replay.random.unitInterval() * messageInterval
        return DeviceTimes(
            events: EventTimes(
                poisson: PoissonTimes(random: deviceRandom, meanGap: eventMeanGap, duration: duration),
                burst: serverBurst.map { BurstTimes(burst: $0, duration: duration) }),
            messages: MessageTimes(
                phase: phase, interval: messageInterval, burst: messageBurst,
                burstGap: messageBurst > 1 ? messageBurstSpan / Double(messageBurst - 1) : 0, duration: duration))
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

/// One device's schedule, drawn lazily: the same numbers in the same order as
/// `Workload.schedule`, which collects them.
public struct DeviceTimes: Sendable {
    public var events: EventTimes
    public var messages: MessageTimes
}

/// The Poisson process's event times before the duration, then nil for good.
struct PoissonTimes: Sendable, IteratorProtocol {
    var random: SeededRandom
    let meanGap: Double
    let duration: Double
    private var time = 0.0
    private var ended = false

    init(random: SeededRandom, meanGap: Double, duration: Double) {
        self.random = random
        self.meanGap = meanGap
        self.duration = duration
    }

    mutating func next() -> Double? {
        guard !ended else { return nil }
        time += -log(1 - random.unitInterval()) * meanGap
        guard time < duration else {
            ended = true
            return nil
        }
        return time
    }
}

/// A server burst's event times before the duration.
struct BurstTimes: Sendable, IteratorProtocol {
    let burst: Workload.ServerBurst
    let duration: Double
    private var index = 0

    init(burst: Workload.ServerBurst, duration: Double) {
        self.burst = burst
        self.duration = duration
    }

    mutating func next() -> Double? {
        guard index < burst.events else { return nil }
        let time = burst.at + Double(index) / burst.eventsPerSecond
        guard time < duration else { return nil }
        index += 1
        return time
    }
}

/// A device's event creation times in order: the Poisson process merged with any burst.
public struct EventTimes: Sendable, Sequence, IteratorProtocol {
    private var poisson: PoissonTimes
    private var burst: BurstTimes?
    private var nextPoisson: Double?
    private var nextBurst: Double?

    init(poisson: PoissonTimes, burst: BurstTimes?) {
        self.poisson = poisson
        self.burst = burst
        nextPoisson = self.poisson.next()
        nextBurst = self.burst?.next()
    }

    public mutating func next() -> Double? {
        if let burstTime = nextBurst, nextPoisson.map({ burstTime < $0 }) ?? true {
            nextBurst = burst?.next()
            return burstTime
        }
        defer { nextPoisson = poisson.next() }
        return nextPoisson
    }
}

/// A device's message production times in order: a burst of messages every interval from a
/// seeded phase.
public struct MessageTimes: Sendable, Sequence, IteratorProtocol {
    /// The start of the current interval.
    private var start: Double
    let interval: Double
    let burst: Int
    let burstGap: Double
    let duration: Double
    /// The next message's place in its interval's burst.
    private var index = 0

    init(phase start: Double, interval: Double, burst: Int, burstGap: Double, duration: Double) {
        self.start = start
        self.interval = interval
        self.burst = burst
        self.burstGap = burstGap
        self.duration = duration
    }

    public mutating func next() -> Double? {
        while start < duration {
            guard index < burst else {
                index = 0
                start += interval
                continue
            }
            let time = start + Double(index) * burstGap
            index += 1
            if time < duration { return time }
        }
        return nil
    }
}
