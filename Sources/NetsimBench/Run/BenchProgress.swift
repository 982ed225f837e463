import NetsimCore
import NetsimModel

/// A snapshot of a running bench, for the progress display.
public struct BenchProgress: Sendable {
    public var elapsedSeconds: Double
    public var durationSeconds: Double
    /// Past the duration, waiting for messages still in flight.
    public var draining: Bool
    public var transports: [Transport]
    /// The model engine's progress: the share of devices played (it has no live per-transport
    /// state; `elapsedSeconds` is that share of the duration). Nil for the live bench.
    public var devicesPlayed: Double? = nil

    public struct Transport: Sendable {
        public var transport: BenchTransport
        public var eventsDelivered: Int
        public var eventsCreated: Int
        public var messagesDelivered: Int
        public var messagesProduced: Int
        /// How many of the fleet's radios are in each state now; nil counts the devices without
        /// a radio model (shown as `NONE`, `reportName`).
        public var radioStates: [RadioState?: Int]
        /// Devices without a network now (in an outage or a handover gap).
        public var disconnectedDevices: Int
    }
}
