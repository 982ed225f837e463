import Foundation
import NetsimCore
import NetsimModel

/// The JSON report of `netsim bench` (schema in docs/bench.md). Keys are stable: CI thresholds
/// (`--fail-if`) and baselines (`--baseline`) address them by path, e.g. `grpc.latencyMs.p95`.
public struct BenchReport: Sendable, Codable, Equatable {
    public var netsimVersion: String
    /// `live` (real clients and servers through real proxies) or `model` (virtual time; see
    /// docs/model-engine.md). Absent in reports written before the model engine existed.
    public var engine: String?
    public var profile: String
    public var seed: UInt64
    /// The workload's duration (the drain after it is not included).
    public var durationSeconds: Double
    public var devicesPerTransport: Int
    public var workload: WorkloadSummary
    /// Where the client settings came from (`built-in` or a file path).
    public var client: String
    /// Keyed `rest`, `ws`, `grpc`; only the transports that ran.
    public var transports: [String: TransportReport]

    public struct WorkloadSummary: Sendable, Codable, Equatable {
        public var eventMeanGapSeconds: Double
        public var eventPayloadBytes: Int
        public var messageIntervalSeconds: Double
        public var messagePayloadBytes: Int
        public var outboxLimit: Int
    }

    public struct TransportReport: Sendable, Codable, Equatable {
        /// Per device (fleet mean), payload through the proxy.
        public var bytes: Bytes
        /// Server events, creation to delivery in the app, pooled over the fleet.
        public var latencyMs: Latency
        /// Client messages, production in the app to arrival at the server.
        public var uplinkLatencyMs: Latency
        public var events: Delivery
        public var messages: Delivery
        /// TCP connections opened beyond each device's first, summed over the fleet.
        public var reconnects: Int
        /// After each outage or handover gap that held messages up: seconds from the network's
        /// return until the last of them arrived.
        public var recoverySeconds: Recovery
        /// Fleet totals: every duration, count, energy and byte figure is summed over the
        /// devices, so `meanPowerMilliwatts` is the mean power of one device.
        public var radio: RadioReport
        /// Per device figures: mean, min, max and standard deviation over the fleet.
        public var perDevice: PerDevice
        public var client: ClientCounters
    }

    public struct Bytes: Sendable, Codable, Equatable {
        public var up: Double
        public var down: Double
        /// Up and down together, per minute of the run.
        public var perMinute: Double
        /// Fleet payload over delivered events and messages.
        public var perDeliveredMessage: Double
        /// Estimated on-the-wire bytes (TCP/IP headers, ACKs, handshakes; see WireEstimate).
        public var wire: Wire
    }

    public struct Wire: Sendable, Codable, Equatable {
        public var up: Double
        public var down: Double
        public var perMinute: Double
    }

    public struct Latency: Sendable, Codable, Equatable {
        public var count: Int
        public var p50: Double
        public var p95: Double
        public var p99: Double
        public var max: Double
    }

    public struct Delivery: Sendable, Codable, Equatable {
        public var sent: Int
        /// Delivered at least once (each counted once).
        public var delivered: Int
        /// Never delivered.
        public var lost: Int
        /// Delivered again after the first time (for messages: arrived again, acknowledged and
        /// ignored by id).
        public var duplicated: Int
        /// Delivered after a later one.
        public var outOfOrder: Int
    }

    public struct Recovery: Sendable, Codable, Equatable {
        public var count: Int
        public var mean: Double
        public var max: Double
    }

    public struct PerDevice: Sendable, Codable, Equatable {
        public var bytesPerMinute: Spread
        public var wireBytesPerMinute: Spread
        public var wakeSeconds: Spread
        public var promotions: Spread
        public var energyJoules: Spread
        public var meanPowerMilliwatts: Spread
        public var reconnects: Spread
        public var secondsByState: [String: Spread]
    }

    public struct ClientCounters: Sendable, Codable, Equatable {
        /// Connects, polls or calls that failed.
        public var failedAttempts: Int
        /// gRPC calls that reached their deadline and were opened again.
        public var callRenewals: Int
        /// Events the gRPC receive buffer dropped.
        public var receiveBufferDrops: Int
        /// Uplink messages dropped from a full outbox.
        public var outboxDrops: Int
    }
}

extension BenchReport {
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    /// The transports that ran, in the order rest, ws, grpc.
    public var orderedTransports: [(BenchTransport, TransportReport)] {
        BenchTransport.allCases.compactMap { transport in transports[transport.rawValue].map { (transport, $0) } }
    }
}
