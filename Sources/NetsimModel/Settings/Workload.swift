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
        var messageTimes: [Double] = []
        var messageTime = deviceRandom.unitInterval() * messageInterval
        while messageTime < duration {
            messageTimes.append(messageTime)
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
