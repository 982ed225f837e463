import NetsimCore

public struct CaptureAnalysisOptions: Sendable {
    /// The radio model to run the capture through; nil: the one a run's start record names
    /// (`RunStart`), else `assumedRadio`, said so in the analysis.
    public var radio: RadioStages?
    /// How the analysis names a given radio (`--radio nr-sa`, `--profile subway`).
    public var radioSource: String
    /// The device's addresses; empty to infer them (`DeviceAddressInference`).
    public var deviceAddresses: [IPAddress]
    /// The device's ports, for flows whose two ends share its address (a capture on loopback
    /// beside a local proxy): the end with one of these is the device. Empty: the ephemeral
    /// end (`DeviceSide`).
    public var devicePorts: Set<UInt16> = []
    /// Packets of one flow less than this apart belong to one burst; periodic transfers are
    /// found among the gaps between bursts.
    public var burstGap: Double
    /// Stop here, in seconds from the first packet in the file: later packets are not analyzed
    /// and the figures end at this time (a run's end-of-run record stops the analysis too).
    public var until: Double?

    /// The radio of a capture that names none: LTE with the published defaults.
    public static let assumedRadio = RadioStages(.defaults(for: .lte))!

    public init(
        radio: RadioStages?, radioSource: String = "given", deviceAddresses: [IPAddress] = [], burstGap: Double = 1.0,
        until: Double? = nil
    ) {
        self.radio = radio
        self.radioSource = radioSource
        self.deviceAddresses = deviceAddresses
        self.burstGap = burstGap
        self.until = until
    }
}

extension CaptureAnalysis {
    /// Reads and analyzes the capture at `path`, one packet at a time. A file that cannot be
    /// opened as a capture throws; one that breaks off later (truncated by a full disk or a
    /// killed tcpdump, or corrupt) is analyzed up to the packet that failed, and
    /// `capture.readError` says where and why.
    public static func analyze(file path: String, options: CaptureAnalysisOptions) throws -> CaptureAnalysis {
        let reader = try CaptureReader(path: path)
        var analyzer = CaptureAnalyzer(options: options)
        var readError: CaptureError?
        do {
            try reader.forEachPacket { analyzer.add($0, linkType: reader.linkType) }
        } catch let error as CaptureError {
            readError = error
        }
        var analysis = analyzer.finish(file: path, format: reader.format, linkType: reader.linkType)
        analysis.capture.readError = readError?.locatedReason
        return analysis
    }
}

/// Streams a capture's packets through the radio model (`RadioStateMachine.observe`, Video
/// Optimizer's method: a packet that finds the radio asleep is preceded by its promotion), and
/// charges what the radio spends to flows: a promotion and the throughput energy to the flow
/// whose packet needed them, the awake time after a packet (until the next packet of any flow,
/// or sleep) to that packet's flow. Memory holds per-flow summaries, not packets (except the
/// first `DeviceAddressInference.window` packets' summaries while the device is inferred).
public struct CaptureAnalyzer {
    private struct FlowState {
        let key: FlowKey
        /// Whether the device is endpoint `a`; nil for a flow between other hosts, or while the
        /// device is not yet known.
        var deviceIsA: Bool?
        var sniffer: FlowNameSniffer?
        /// A UDP flow's: its QUIC Initial packets' ClientHello.
        var quicSniffer: QUICServerNameSniffer?
        var serverName: String?
        /// Its index among the radio's flows (`ChargedRadio.flows`).
        let charges: Int
    }

    /// Summaries of the packets seen while the device is being inferred.
    private struct PendingPacket {
        var time: Double
        var flow: Int
        var sentByA: Bool
        var payloadBytes: Int
    }

    private let options: CaptureAnalysisOptions
    /// The device's addresses once known: given, or inferred after the inference window.
    private var deviceAddresses: [IPAddress]?
    private var inference = DeviceAddressInference()
    private var pending: [PendingPacket] = []

    private var flows: [FlowState] = []
    private var flowIndices: [FlowKey: Int] = [:]
    private var cachedFlow: (key: FlowKey, index: Int)?

    /// Started at the device's first packet, one promotion before it, so that packet gets a
    /// whole promotion as Video Optimizer gives it (or at a run's start record).
    private var radio: ChargedRadio
    /// Why the radio model the capture runs through is that one.
    private var radioSource: String
    /// Neither given nor named by the capture: `assumedRadio`.
    private var radioAssumed: Bool
    /// Where the radio's figures begin, once known.
    private var start: AnalysisBound?
    /// Where the analysis stopped, if a run-end record or `until` stopped it.
    private var end: AnalysisBound?
    private var packetsAfterEnd = 0
    private var latestDeviceTime = -Double.infinity

    private var timeBase: (seconds: Int, nanoseconds: Int)?
    private var latestTime = 0.0
    private var packets = 0
    private var devicePackets = 0
    private var nonIPPackets = 0
    private var otherHostPackets = 0
    private var undecodablePackets = 0
    private var firstUndecodable: String?
    private var outOfOrderPackets = 0
    private var runBoundaryPackets = 0
    /// Flows between two ports of the device's address whose device end was a guess.
    private var sameAddressGuesses = 0

    public init(options: CaptureAnalysisOptions) {
        self.options = options
        self.deviceAddresses = options.deviceAddresses.isEmpty ? nil : options.deviceAddresses
        self.radioAssumed = options.radio == nil
        self.radioSource =
            options.radio == nil
            ? "assumed: no --radio or --profile given, and no run-start record naming the run's radio" : options.radioSource
        self.radio = ChargedRadio(options.radio ?? CaptureAnalysisOptions.assumedRadio)
    }

    public mutating func add(_ packet: CapturedPacket, linkType: LinkType) {
        packets += 1
        let time = relativeTime(of: packet)
        if end == nil, let until = options.until, time > until { end = AnalysisBound(seconds: until, reason: .until) }
        guard end == nil else {
            packetsAfterEnd += 1
            return
        }
        latestTime = max(latestTime, time)
        let decoded: DecodedPacket
        switch PacketDecoder.decode(packet.bytes, originalLength: packet.originalLength, linkType: linkType) {
        case .ip(let ip):
            decoded = ip
        case .notIP:
            if let boundary = RunBoundary.recognize(packet.bytes, linkType: linkType) {
                mark(boundary, at: time)
            } else {
                nonIPPackets += 1
            }
            return
        case .malformed(let reason):
            undecodablePackets += 1
            if firstUndecodable == nil { firstUndecodable = "packet \(packet.number): \(reason)" }
            return
        }

        var sentByA = false
        let key = FlowKey(decoded, sentByA: &sentByA)
        let flow = flowIndex(for: key)
        if let tcp = decoded.tcp, decoded.payloadLength > 0, flows[flow].sniffer != nil,
            let payload = packet.bytes.slice(at: decoded.payloadOffset, length: decoded.capturedPayloadLength)
        {
            sniffServerName(flow, payload, payloadLength: decoded.payloadLength, sequence: tcp.sequence, sentByA: sentByA)
        } else if decoded.ipProtocol == 17, decoded.payloadLength > 0, decoded.capturedPayloadLength == decoded.payloadLength,
            flows[flow].quicSniffer != nil, let payload = packet.bytes.slice(at: decoded.payloadOffset, length: decoded.payloadLength)
        {
            sniffQUICServerName(flow, Array(payload))
        }

        if deviceAddresses != nil {
            feed(at: time, flow: flow, sentByA: sentByA, payloadBytes: decoded.payloadLength)
        } else {
            inference.add(source: decoded.source, destination: decoded.destination)
            pending.append(PendingPacket(time: time, flow: flow, sentByA: sentByA, payloadBytes: decoded.payloadLength))
            if inference.isComplete { settleDevice(inference.deviceAddresses()) }
        }
    }

    /// Ends the timeline where the run ended (its end record), at `until`, or else when the
    /// last packet's tail has ended; and reports.
    public mutating func finish(file: String, format: String, linkType: LinkType) -> CaptureAnalysis {
        if deviceAddresses == nil { settleDevice(inference.deviceAddresses()) }
        let end =
            end ?? options.until.map { AnalysisBound(seconds: $0, reason: .until) }
            ?? AnalysisBound(seconds: radio.started ? radio.tailEnd : 0, reason: .lastTail)
        let (report, idleEnergy) = radio.finish(at: end.seconds)
        let identities = flows.compactMap { flow -> (charges: Int, identity: FlowIdentity)? in
            guard let deviceIsA = flow.deviceIsA else { return nil }
            return (
                flow.charges,
                FlowIdentity(
                    transport: flow.key.protocolName, device: flow.key.endpointDescription(a: deviceIsA),
                    remote: flow.key.endpointDescription(a: !deviceIsA), serverName: flow.serverName,
                    server: flow.serverName ?? (deviceIsA ? flow.key.b : flow.key.a).description)
            )
        }
        let reports = radio.flowReports(identities, energy: report.energyJoules, burstGap: options.burstGap)

        let summary = CaptureSummary(
            file: file, format: format, linkType: linkType.description, packets: packets, devicePackets: devicePackets,
            nonIPPackets: nonIPPackets, otherHostPackets: otherHostPackets, undecodablePackets: undecodablePackets,
            firstUndecodable: firstUndecodable, outOfOrderPackets: outOfOrderPackets,
            runBoundaryPackets: runBoundaryPackets, packetsAfterEnd: packetsAfterEnd,
            analysisStart: start ?? AnalysisBound(seconds: 0, reason: .firstPacket), analysisEnd: end,
            startTime: timeBase.map { Double($0.seconds) + Double($0.nanoseconds) / 1e9 }, durationSeconds: latestTime,
            deviceAddresses: (deviceAddresses ?? []).map(\.description),
            deviceAddressSource: options.deviceAddresses.isEmpty ? "inferred" : "given", deviceEndGuesses: sameAddressGuesses,
            radioModel: radio.stages.model,
            radioSource: radioSource, radioAssumed: radioAssumed)
        return CaptureAnalysis(
            capture: summary, radio: report, idleEnergyJoules: idleEnergy, flows: reports.flows, servers: reports.servers,
            periodicTransfers: reports.periodicTransfers)
    }

    // MARK: Packets

    /// Seconds since the file's first packet, computed in integers first so nanoseconds survive.
    private mutating func relativeTime(of packet: CapturedPacket) -> Double {
        guard let base = timeBase else {
            timeBase = (packet.seconds, packet.nanoseconds)
            return 0
        }
        return Double(packet.seconds - base.seconds) + Double(packet.nanoseconds - base.nanoseconds) * 1e-9
    }

    private mutating func flowIndex(for key: FlowKey) -> Int {
        if let cachedFlow, cachedFlow.key == key { return cachedFlow.index }
        let index: Int
        if let known = flowIndices[key] {
            index = known
        } else {
            index = flows.count
            flows.append(
                FlowState(
                    key: key, deviceIsA: deviceAddresses.flatMap { deviceSide(of: key, devices: $0) },
                    sniffer: key.ipProtocol == 6 ? FlowNameSniffer() : nil,
                    quicSniffer: key.ipProtocol == 17 ? QUICServerNameSniffer() : nil, charges: radio.addFlow()))
            flowIndices[key] = index
        }
        cachedFlow = (key, index)
        return index
    }

    /// Whether the device is the flow's end `a`; nil when it is neither.
    private mutating func deviceSide(of key: FlowKey, devices: [IPAddress]) -> Bool? {
        guard key.a == key.b else {
            if devices.contains(key.a) { return true }
            if devices.contains(key.b) { return false }
            return nil
        }
        guard devices.contains(key.a) else { return nil }
        let side = DeviceSide.ofSameAddressFlow(aPort: key.aPort, bPort: key.bPort, devicePorts: options.devicePorts)
        if side.guessed { sameAddressGuesses += 1 }
        return side.deviceIsA
    }

    private mutating func sniffServerName(
        _ flow: Int, _ payload: UnsafeRawBufferPointer, payloadLength: Int, sequence: UInt32, sentByA: Bool
    ) {
        guard var sniffer = flows[flow].sniffer else { return }
        flows[flow].sniffer = nil  // moved out while it changes, so its buffers are not copied
        if let name = sniffer.inspect(payload, payloadLength: payloadLength, sequence: sequence, sentByA: sentByA) {
            flows[flow].serverName = name
            return
        }
        if !sniffer.isDone { flows[flow].sniffer = sniffer }
    }

    /// Looks for a UDP flow's server name in a datagram it carried (either way: only the
    /// client's Initial packets decrypt with the client's keys).
    private mutating func sniffQUICServerName(_ flow: Int, _ datagram: [UInt8]) {
        guard var sniffer = flows[flow].quicSniffer else { return }
        flows[flow].quicSniffer = nil
        if let name = sniffer.inspect(datagram) {
            flows[flow].serverName = name
            return
        }
        if !sniffer.isDone { flows[flow].quicSniffer = sniffer }
    }

    private mutating func settleDevice(_ addresses: [IPAddress]) {
        deviceAddresses = addresses
        for index in flows.indices {
            flows[index].deviceIsA = deviceSide(of: flows[index].key, devices: addresses)
        }
        for packet in pending {
            feed(at: packet.time, flow: packet.flow, sentByA: packet.sentByA, payloadBytes: packet.payloadBytes)
        }
        pending = []
    }

    /// A run's start record starts the radio there, IDLE, as the run's own radio started; its
    /// end record ends the analysis.
    private mutating func mark(_ boundary: RunBoundary, at time: Double) {
        runBoundaryPackets += 1
        switch boundary {
        case .start(let run):
            guard !radio.started else { return }
            if options.radio == nil, let run {
                if let recorded = RadioStages(run.radio) {
                    radio.choose(recorded)
                    radioAssumed = false
                    radioSource = "the run's start record: profile \(run.profile), seed \(run.seed), network \(run.network)"
                } else {
                    radioSource = "assumed: the run's network \(run.network) (profile \(run.profile)) has no radio model"
                }
            }
            startRadio(at: time, reason: .runStart)
        case .end:
            end = AnalysisBound(seconds: time, reason: .runEnd)
        }
    }

    private mutating func startRadio(at time: Double, reason: AnalysisBound.Reason) {
        radio.start(at: time)
        start = AnalysisBound(seconds: time, reason: reason)
    }

    // MARK: Radio and charging

    private mutating func feed(at time: Double, flow: Int, sentByA: Bool, payloadBytes: Int) {
        guard let deviceIsA = flows[flow].deviceIsA else {
            otherHostPackets += 1
            return
        }
        devicePackets += 1
        if !radio.started {
            startRadio(at: time - radio.idlePromotionDelay, reason: .firstPacket)
        }
        if time < latestDeviceTime { outOfOrderPackets += 1 }
        latestDeviceTime = max(latestDeviceTime, time)
        radio.charge(
            from: latestDeviceTime, to: latestDeviceTime, flow: flows[flow].charges, direction: sentByA == deviceIsA ? .up : .down,
            bytes: payloadBytes, burstGap: options.burstGap)
    }
}
