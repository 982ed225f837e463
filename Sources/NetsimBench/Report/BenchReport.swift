import Foundation
import NetsimCore
import NetsimModel

/// The JSON report of `netsim bench` (schema in docs/bench.md). Keys are stable: CI thresholds
/// (`--fail-if`) and baselines (`--baseline`) address them by path, e.g. `grpc.latencyMs.p95`.
public struct BenchReport: Sendable, Codable, Equatable {
    public var netsimVersion: String
    /// `live` (real clients and servers through real proxies) or `model` (virtual time; see
    /// docs/model-engine.md). Absent in reports written before the model engine existed.
    public var engine: BenchEngine?
    public var profile: String
    public var seed: UInt64
    /// The workload's duration (the drain after it is not included).
    public var durationSeconds: Double
    /// How long after the workload the bench waited for what was still in flight (none when
    /// the measurements did not come from a live run).
    public var drain = Drain(limitSeconds: 0, seconds: 0)
    public var devicesPerTransport: Int
    public var workload: WorkloadSummary
    /// Where the client settings came from (`built-in` or a file path).
    public var client: String
    /// Keyed `rest`, `ws`, `grpc` (`BenchTransport` is `CodingKeyRepresentable`: its raw values
    /// are the JSON object's keys); only the transports that ran.
    public var transports: [BenchTransport: TransportReport]
    /// True when SIGINT or SIGTERM stopped the bench before every device had played (the
    /// model engine stops at its next batch): the figures cover `devicesPlayed` only. Absent
    /// from a finished bench.
    public var partial: Bool?
    /// With `partial`: the devices played, over all transports.
    public var devicesPlayed: Int?
    /// The `--fail-if` and `--baseline` gates the bench was given, and how each came out.
    /// Absent when none were given.
    public var gates: [GateOutcome]?

    /// The drain: after the workload, the bench waits until every event and message has arrived,
    /// or until `limitSeconds` (after the workload's end) have passed. The limit lets the
    /// profile's last outage or handover gap end and TCP's retransmission after it land (see
    /// `Profile.connectivitySettles`), plus a grace for clients to reconnect; what is still
    /// undelivered then is counted `inFlight`, not `lost`.
    public struct Drain: Sendable, Codable, Equatable {
        public var limitSeconds: Double
        /// How long it took: below the limit when everything arrived.
        public var seconds: Double
    }

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
        /// Connections opened beyond each device's first, summed over the fleet.
        public var reconnects: Int
        /// QUIC: times a connection moved to the phone's new address (a handover, or a NAT
        /// that forgot its mapping) instead of being replaced, summed over the fleet; absent for
        /// the TCP transports.
        public var migrations: Int? = nil
        /// After each outage or handover gap that held messages up: seconds from the network's
        /// return until the last of them arrived.
        public var recoverySeconds: Recovery
        /// The radio figures summed over the fleet: every duration, count, energy and byte figure
        /// is the devices' total (ten phones over 120 s make 1200 s), so `meanPowerMilliwatts`
        /// is the mean power of one device. Per device figures are under `perDevice`.
        public var radioFleetTotal: RadioReport
        /// Per device figures: mean, min, max and standard deviation over the fleet.
        public var perDevice: PerDevice
        public var client: ClientCounters
        /// How the client came back from losses; absent in older reports.
        public var resilience: Resilience? = nil
        /// What waited between the server and the app, and what was lost by cause (strategies 3
        /// and 5). Absent from the model engine's reports without a consumer (it plays buffers
        /// only with one) and from reports written before these figures existed.
        public var buffers: Buffers?
    }

    // MARK: Strategies: offline queue (3) and slow consumers (5)

    public struct Buffers: Sendable, Codable, Equatable {
        /// The most events and payload bytes one device's client held between the network and
        /// the app at once (the worst device): its receive buffer, or in pull mode the event the
        /// app is handling (for REST, a poll's answer).
        public var clientPeakEvents: Int
        public var clientPeakBytes: Int
        /// The longest server-side queue for one device (the worst device): events created but
        /// not yet handed to its connection, in events and payload bytes.
        public var serverQueuePeakEvents: Int
        public var serverQueuePeakBytes: Int
        public var lost: LostByCause
    }

    /// Events and messages lost (never delivered), by cause, fleet totals.
    public struct LostByCause: Sendable, Codable, Equatable {
        /// Messages dropped from a full outbox that never arrived.
        public var outboxOverflow: Int
        /// Events a full receive buffer dropped (the client resumes after later ones).
        public var receiveBufferOverflow: Int
        /// Every other loss (events skipped for other reasons).
        public var other: Int
        /// Events produced while a client that subscribes from now (`reconnect: naive`) was
        /// away: the same count as `resilience.eventsLostBySkipping`.
        public var skippedOnReconnect: Int = 0
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

    /// `sent = delivered + lost + inFlight`.
    public struct Delivery: Sendable, Codable, Equatable {
        public var sent: Int
        /// Delivered at least once (each counted once).
        public var delivered: Int
        /// Not delivered, and never will be: the client skipped it (an event its receive buffer
        /// dropped, behind one it received: it resumes after the latest) or it was dropped
        /// before it could arrive (a message dropped from a full outbox).
        public var lost: Int
        /// Not delivered when the bench ended, but still on its way: it would have arrived had
        /// the bench waited longer (held by an outage until TCP's retransmission, or waiting
        /// for a reconnect that resumes it).
        public var inFlight = 0
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
        public var secondsByState: [RadioState: Spread]
    }

    /// How a fleet's clients came back from lost connections: what a naive client loses and
    /// how hard a fleet knocks when an outage ends.
    public struct Resilience: Sendable, Codable, Equatable {
        /// Per death of a device's connection (a blackhole or reset outage or handover that
        /// hit it, a NAT expiry), the seconds the app waited on the dead connection before it
        /// noticed: until a request failed, a call ended or a connection closed, or the run's
        /// end if it never did. Its deadlines bound it. Nil when not measured (the model engine).
        public var zombieSeconds: Zombie?
        /// Events lost because the client subscribed from now after being away (`reconnect:
        /// naive`): produced while it was away and never delivered. Part of `events.lost`.
        public var eventsLostBySkipping: Int
        /// Nil when attempts were not timed (the model engine).
        public var connectionAttempts: Attempts?

        public struct Zombie: Sendable, Codable, Equatable {
            /// Connection deaths over the fleet.
            public var deaths: Int
            public var mean: Double
            public var max: Double
        }

        public struct Attempts: Sendable, Codable, Equatable {
            /// Attempts to connect again (WebSocket connects, gRPC calls, REST's first request
            /// after a failure) over the fleet; each device's first connect is not counted.
            public var total: Int
            /// The most attempts across the fleet in one second of the bench clock: the
            /// thundering herd when an outage ends.
            public var peakPerSecond: Int
            /// The start of that second, on the bench clock (0 when there were none).
            public var peakSecond: Double
        }
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
        BenchTransport.allCases.compactMap { transport in transports[transport].map { (transport, $0) } }
    }
}
