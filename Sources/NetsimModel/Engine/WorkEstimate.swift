import Foundation
import NetsimCore

/// What a model-engine run is about to do, estimated from its inputs before any of it is done,
/// and the bounds beyond which `netsim bench` and `netsim tune keepalive` refuse it unless
/// `--force` is given (exit 64; docs/model-engine.md, "Bounds"). A typo such as
/// `meanGap: 0.001ms` or a 100 x 100 grid should cost a message, not hours of CPU and more
/// memory than the machine has.
public struct WorkEstimate: Sendable, Equatable {
    /// Devices played: a bench's devices times its transports, a sweep's scenarios.
    public var runs: Int
    /// Occurrences the engine handles in all (its steps: workload events and messages with the
    /// frames, arrivals and timers each brings, and the transports' own polls and pings).
    public var occurrences: Double
    /// The most memory the run holds at once, in bytes.
    public var memoryBytes: Double
    /// The workload's rates above `highestRate`, each with its file key.
    public var excessiveRates: [Rate] = []

    public struct Rate: Sendable, Equatable {
        public var key: String
        public var perSecond: Double
    }

    /// Devices played: 44 times `netsim tune keepalive`'s default sweep (22,560 runs), about
    /// ten minutes of a release build.
    public static let mostRuns = 1_000_000
    /// About ten minutes of the engine's 8 million occurrences a second on two cores.
    public static let mostOccurrences = 5e9
    /// What a laptop or a CI runner can give one process.
    public static let mostMemoryBytes = 4e9
    /// Events or messages a second for one device: 20 Mbit/s of 256-byte payloads, more than a
    /// phone's app ever sees; beyond it a rate is a slip of the unit.
    public static let highestRate = 10_000.0

    /// One shard's part of a sweep's work: its share of the runs and their occurrences (a
    /// sweep holds one scenario per core at a time, so its memory is the whole sweep's).
    public func share(_ shard: Shard) -> WorkEstimate {
        var part = self
        part.runs = shard.share(of: runs)
        part.occurrences = runs > 0 ? occurrences * Double(part.runs) / Double(runs) : 0
        return part
    }

    /// Occurrences one workload event or message costs: its creation, its frame's arrival, the
    /// acknowledgement's arrival and a timer (counted from the engine's steps).
    static let occurrencesPerWorkloadItem = 4.0
    /// Bytes one device holds per workload event or message it has not delivered (its creation
    /// time, and its number if it is lost), charged for every item: the worst case, a link that
    /// carries none, since a device that keeps up holds only what is in flight. Bytes per device
    /// from its end to the fleet's (its phone model, counters and report). Measured
    /// (docs/model-engine.md, Bounds) when a device still kept every item: 100 devices of ws and
    /// gRPC on lte-tunnel peaked 22 MB above the process's own 42 MB for 1 day and 61 MB for 5.
    static let bytesPerWorkloadItem = 36.0
    static let bytesPerDevice = 60_000.0
    /// Bytes a sweep holds per scenario: its description and its metrics until the end (from
    /// their sizes, with the arrays' headers).
    static let bytesPerScenario = 400.0

    public init(runs: Int, occurrences: Double, memoryBytes: Double, excessiveRates: [Rate] = []) {
        self.runs = runs
        self.occurrences = occurrences
        self.memoryBytes = memoryBytes
        self.excessiveRates = excessiveRates
    }

    /// `netsim bench --engine model`: `devices` of each transport for `duration` seconds.
    public static func bench(
        transports: [BenchTransport], devices: Int, duration: Double, workload: Workload, client: ClientSettings
    ) -> WorkEstimate {
        let items = workload.expectedItems(duration: duration)
        let runs = transports.count * devices
        let perDevice = transports.map { transport in
            occurrencesPerWorkloadItem * items + transportOccurrences(transport, client: client, duration: duration)
        }
        let playedAtOnce = Double(min(devices * transports.count, ModelEngine.batchSize))
        return WorkEstimate(
            runs: runs, occurrences: perDevice.reduce(0, +) * Double(devices),
            memoryBytes: playedAtOnce * items * bytesPerWorkloadItem + Double(runs) * bytesPerDevice,
            excessiveRates: workload.rates.filter { $0.perSecond > highestRate })
    }

    /// `netsim tune keepalive`: `runsPerInterval` scenarios of `horizon` seconds, one device
    /// each, for each keepalive interval of the grid.
    public static func sweep(runsPerInterval: Int, intervals: [Double], horizon: Double, workload: Workload) -> WorkEstimate {
        // A keepalive round is a ping, its arrival, the answer's arrival and the next timer.
        let rounds = intervals.map { 4 * horizon / $0 }.reduce(0, +)
        let workloadOccurrences = occurrencesPerWorkloadItem * workload.expectedItems(duration: horizon) * Double(intervals.count)
        let runs = runsPerInterval * intervals.count
        return WorkEstimate(
            runs: runs, occurrences: (rounds + workloadOccurrences) * Double(runsPerInterval),
            memoryBytes: Double(runs) * bytesPerScenario, excessiveRates: workload.rates.filter { $0.perSecond > highestRate })
    }

    /// The transport's own occurrences on one device: REST's polls (request, answer, timer), the
    /// WebSocket pings of both ends and gRPC's keepalive.
    private static func transportOccurrences(_ transport: BenchTransport, client: ClientSettings, duration: Double) -> Double {
        switch transport {
        case .rest: 3 * duration / client.rest.pollInterval
        case .ws: client.ws.pingInterval.map { 4 * duration / $0 } ?? 0
        case .grpc: 2 * duration / client.grpc.keepaliveTime
        // A PING, its ACK's arrival, the next timer; and the ACKs of everything else.
        case .quic: client.quic.keepAlivePeriod.map { 3 * duration / $0 } ?? 0
        }
    }

    /// Each bound the run exceeds, as a sentence; empty when it is within all of them.
    public var excesses: [String] {
        var excesses = excessiveRates.map {
            "\($0.key) asks for \(Self.count($0.perSecond)) a second per device, over the bound of \(Self.count(Self.highestRate))"
        }
        if runs > Self.mostRuns {
            excesses.append("\(Self.count(Double(runs))) runs is over the bound of \(Self.count(Double(Self.mostRuns)))")
        }
        if occurrences > Self.mostOccurrences {
            excesses.append(
                "about \(Self.count(occurrences)) occurrences to simulate is over the bound of \(Self.count(Self.mostOccurrences))")
        }
        if memoryBytes > Self.mostMemoryBytes {
            excesses.append(
                "about \(Self.memory(memoryBytes)) of memory is over the bound of \(Self.memory(Self.mostMemoryBytes))")
        }
        return excesses
    }

    /// `200 runs, about 17.3 M occurrences, about 61.2 MB of memory`.
    public var summary: String {
        "\(Self.count(Double(runs))) runs, about \(Self.count(occurrences)) occurrences, about \(Self.memory(memoryBytes)) of memory"
    }

    /// `61.2 MB`, `4.0 GB`.
    static func memory(_ bytes: Double) -> String {
        bytes < 1e9 ? Quantity.formatDataSize(bytes) : String(format: "%.1f GB", bytes / 1e9)
    }

    /// A count for people to read: `950`, `17.3 k`, `4.8 M`, `5 G`.
    static func count(_ value: Double) -> String {
        switch value {
        case ..<1e4: Quantity.trimmed(value.rounded())
        case ..<1e6: Quantity.trimmed((value / 1e2).rounded() / 10) + " k"
        case ..<1e9: Quantity.trimmed((value / 1e5).rounded() / 10) + " M"
        default: Quantity.trimmed((value / 1e8).rounded() / 10) + " G"
        }
    }
}

extension Workload {
    /// Events and messages one device's schedule holds over `duration` seconds, on average.
    func expectedItems(duration: Double) -> Double {
        let events = duration / eventMeanGap
        let burst = serverBurst.map { burst in Double(burst.events) } ?? 0
        let messages = Double(messageBurst) * duration / messageInterval
        return events + burst + messages
    }

    /// The rates the workload asks of one device, events or messages a second, by file key.
    var rates: [WorkEstimate.Rate] {
        var rates = [
            WorkEstimate.Rate(key: "serverEvents.meanGap", perSecond: 1 / eventMeanGap),
            WorkEstimate.Rate(key: "clientMessages.every", perSecond: Double(messageBurst) / messageInterval),
        ]
        if let serverBurst { rates.append(WorkEstimate.Rate(key: "serverBurst.rate", perSecond: serverBurst.eventsPerSecond)) }
        return rates
    }
}
