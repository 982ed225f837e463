import NetsimCore

/// What `netsim analyze` found in a capture. Its JSON form is the `analyze --format json`
/// output; `radio` is the same object every netsim report carries.
public struct CaptureAnalysis: Sendable, Equatable, Codable {
    public var capture: CaptureSummary
    public var radio: RadioReport
    /// Energy spent idle (paging): the floor no flow is charged for. The flows' energies and
    /// this add up to `radio.energyJoules`.
    public var idleEnergyJoules: Double
    /// The device's flows, the most energy first.
    public var flows: [FlowReport]
    /// The flows grouped by the server they went to (name, else address), the most energy
    /// first.
    public var servers: [ServerReport]
    /// Flows that repeat at a fixed period, the most energy per hour first.
    public var periodicTransfers: [PeriodicTransfer]
    /// A traffic counter file's columns and radio access (`CaptureAnalysis.price`); nil for a
    /// capture. Its one flow is all the counted traffic.
    public var counters: CounterSummary? = nil
}

public struct CaptureSummary: Sendable, Equatable, Codable {
    public var file: String
    /// `pcap` or `pcapng`.
    public var format: String
    public var linkType: String
    /// Every packet in the file.
    public var packets: Int
    /// The packets to or from the device, fed to the radio model.
    public var devicePackets: Int
    /// Frames without IP (ARP, LLDP...).
    public var nonIPPackets: Int
    /// IP packets between other hosts.
    public var otherHostPackets: Int
    /// Frames whose headers could not be decoded, and the first of them.
    public var undecodablePackets: Int
    public var firstUndecodable: String?
    /// Packets whose timestamp is earlier than one before them; the radio model takes them as
    /// happening at the latest time seen.
    public var outOfOrderPackets: Int
    /// A `netsim run` capture's start and end records (`RunBoundary`), not packets of anyone.
    public var runBoundaryPackets: Int
    /// Packets after `analysisEnd`, not analyzed.
    public var packetsAfterEnd: Int
    /// Where the radio's figures begin: the run's start record, or one idle promotion before
    /// the device's first packet (Video Optimizer's method).
    public var analysisStart: AnalysisBound
    /// Where the figures end: the run's end record, `--until`, or when the last packet's tail
    /// ended.
    public var analysisEnd: AnalysisBound
    /// The first packet's time, seconds since 1970. Every other time in the analysis is in
    /// seconds from this packet.
    public var startTime: Double?
    /// From the first packet to the last.
    public var durationSeconds: Double
    public var deviceAddresses: [String]
    /// `given` (`--device-ip`) or `inferred` (see `DeviceAddressInference`).
    public var deviceAddressSource: String
    /// Flows between two ports of the device's own address (a loopback capture) where neither
    /// port was the device's given one nor the only ephemeral one: the higher port was taken as
    /// the device's (`--device HOST:PORT` says which).
    public var deviceEndGuesses: Int
    /// The radio model the capture ran through (`lte`, `nr-sa`, ...).
    public var radioModel: String
    /// Why that one: given (`--radio`, `--profile`), the run's start record, or assumed.
    public var radioSource: String
    /// Neither given nor named by the capture: analyzed as `CaptureAnalysisOptions.assumedRadio`.
    public var radioAssumed: Bool
    /// Where and why reading stopped before the file's end (a truncated or corrupt capture),
    /// as `CaptureError.locatedReason` says it: the figures cover the packets before it. Nil
    /// when the whole file was read.
    public var readError: String? = nil
}

/// A time where the analysis starts or stops, in seconds from the first packet, and why.
public struct AnalysisBound: Sendable, Equatable, Codable {
    public var seconds: Double
    public var reason: Reason

    public enum Reason: String, Sendable, Equatable, Codable {
        /// A `netsim run` capture's start record.
        case runStart = "run-start"
        /// A `netsim run` capture's end record: where the run stopped.
        case runEnd = "run-end"
        /// `--until`.
        case until
        /// One idle promotion before the device's first packet.
        case firstPacket = "first-packet"
        /// The last packet's tail ended.
        case lastTail = "last-tail"
        /// One idle promotion before a counter file's first interval.
        case firstInterval = "first-interval"
        /// A counter file's last interval ended (after the radio's tail had).
        case lastInterval = "last-interval"
    }

    public init(seconds: Double, reason: Reason) {
        self.seconds = seconds
        self.reason = reason
    }
}

/// One flow's traffic and what the radio spent for it: the promotions its packets needed, the
/// awake time after its packets until the next packet of any flow or the radio's sleep (its
/// tails), and its throughput energy.
public struct FlowReport: Sendable, Equatable, Codable {
    /// 1-based rank by energy; periodic transfers refer to flows by it.
    public var id: Int
    /// `tcp`, `udp`, `icmp`, `icmpv6` or `ip-N`.
    public var transport: String
    public var device: String
    public var remote: String
    /// From the TLS SNI, HTTP Host or HTTP/2 :authority the flow carried.
    public var serverName: String?
    public var packets: Int
    /// Transport payload bytes, as the radio model counts them.
    public var bytesUp: Int
    public var bytesDown: Int
    public var firstPacketSeconds: Double
    public var lastPacketSeconds: Double
    /// Promotions (from any sleeping state) its packets triggered.
    public var wakeUps: Int
    public var wakeSeconds: Double
    public var energyJoules: Double
    public var promotionEnergyJoules: Double
    public var tailEnergyJoules: Double
    public var transferEnergyJoules: Double
    /// Its share of all energy, the idle floor included.
    public var energyShare: Double
    /// Its packets grouped into bursts (packets closer than the burst gap), in time order:
    /// when the flow was active, and which of its bursts woke the radio.
    public var bursts: [FlowBurst]
}

/// A run of a flow's packets with no gap longer than the burst gap, and what the radio spent
/// for it: the promotions its packets needed, and the awake time and energy charged to it.
public struct FlowBurst: Sendable, Equatable, Codable {
    public var start: Double
    /// Its last packet.
    public var end: Double
    public var packets: Int
    /// Promotions its packets triggered: this burst woke the radio.
    public var wakeUps: Int
    public var wakeSeconds: Double
    public var energyJoules: Double

    /// A burst whose first packet is at `time`, before anything is counted.
    init(at time: Double) {
        self.init(start: time, end: time, packets: 0, wakeUps: 0, wakeSeconds: 0, energyJoules: 0)
    }

    init(start: Double, end: Double, packets: Int, wakeUps: Int, wakeSeconds: Double, energyJoules: Double) {
        self.start = start
        self.end = end
        self.packets = packets
        self.wakeUps = wakeUps
        self.wakeSeconds = wakeSeconds
        self.energyJoules = energyJoules
    }

    /// Takes in a later burst drawn as one with this (closer than a chart's pixel).
    mutating func absorb(_ later: FlowBurst) {
        end = max(end, later.end)
        packets += later.packets
        wakeUps += later.wakeUps
        wakeSeconds += later.wakeSeconds
        energyJoules += later.energyJoules
    }
}

/// A repeating transfer (a keepalive, a poll) and what it costs: one flow's, or a server's
/// over several flows (polling that opens a new connection each time).
public struct PeriodicTransfer: Sendable, Equatable, Codable {
    /// The first of `flows`.
    public var flow: Int
    /// The flows whose bursts repeat: one, or a server's flows that are not periodic alone.
    public var flows: [Int]
    public var remote: String
    public var serverName: String?
    public var periodSeconds: Double
    /// Whole repetitions of the period seen.
    public var repetitions: Int
    /// Bursts in each repetition, on average (2 for a call and the ping that follows it).
    public var burstsPerRepetition: Double
    /// Per repetition, on average: the radio's wake time and energy it was charged.
    public var wakeSecondsPerRepetition: Double
    public var energyJoulesPerRepetition: Double
    /// At this period, per hour of the app running.
    public var wakeSecondsPerHour: Double
    public var energyJoulesPerHour: Double
    public var meanPowerMilliwatts: Double
}
