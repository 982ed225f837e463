import NetsimCore

/// How `CaptureAnalysis.price` reads a counter series.
public struct CounterPricingOptions: Sendable {
    /// Why the radios are the ones given (`--radio lte`, `--access-radio CONNECTED=nr-nsa`).
    public var radioSource: String
    /// Intervals with traffic no further apart than this form one burst of the counters' flow.
    public var burstGap: Double
    /// Stop here, in seconds from the first row: later intervals are not priced, and one
    /// under way is cut here.
    public var until: Double?

    public init(radioSource: String = "given", burstGap: Double = 1.0, until: Double? = nil) {
        self.radioSource = radioSource
        self.burstGap = burstGap
        self.until = until
    }
}

/// What a counter file was and which radio priced its intervals: the analysis's `counters`.
public struct CounterSummary: Sendable, Equatable, Codable {
    public var format: CounterFormat
    /// The time format the file used (`auto` settled).
    public var timeFormat: CounterTimeFormat
    public var rows: Int
    public var intervals: Int
    /// Intervals with bytes in either direction.
    public var trafficIntervals: Int
    /// Per value of the access column (one entry `""` without one): the radio that priced it.
    public var access: [AccessShare]

    /// One access value's intervals and their radio.
    public struct AccessShare: Sendable, Equatable, Codable {
        public var access: String
        public var radioModel: String
        public var intervals: Int
        public var seconds: Double
        public var rxBytes: Int
        public var txBytes: Int
    }
}

extension CaptureAnalysis {
    /// Prices a counter series with one radio for every interval.
    public static func price(
        _ series: CounterSeries, radio: RadioParameters, options: CounterPricingOptions = CounterPricingOptions()
    ) throws(CounterError) -> CaptureAnalysis {
        try price(series, options: options) { _ in radio }
    }

    /// Prices a counter series with the radio `radios` names for each value of its access
    /// column (a missing value or column falls back to `fallback`).
    public static func price(
        _ series: CounterSeries, radios: [String: RadioParameters], fallback: RadioParameters,
        options: CounterPricingOptions = CounterPricingOptions()
    ) throws(CounterError) -> CaptureAnalysis {
        try price(series, options: options) { access in access.flatMap { radios[$0] } ?? fallback }
    }

    /// Prices a counter series through the same radio model and charging as a capture
    /// (`ChargedRadio`): each interval's bytes are a transfer spread evenly over the interval,
    /// so the radio is connected from its start (after the promotion it needed, placed before
    /// it) to its end, its tail starting there, and the throughput energy counts the bytes.
    /// `radio` gives the radio for an interval's access value (nil without an access column);
    /// when it changes between intervals the traffic moves to the new radio (`switchRadio`).
    /// The figures start one idle promotion before the first interval and end when the last
    /// interval has ended and the radio's tail with it (or at `until`). Its one flow is all the
    /// counted traffic, its bursts runs of intervals with traffic.
    public static func price(
        _ series: CounterSeries, options: CounterPricingOptions = CounterPricingOptions(),
        radio: (_ access: String?) -> RadioParameters
    ) throws(CounterError) -> CaptureAnalysis {
        var stagesByAccess: [String?: RadioStages] = [:]
        var stagesOf: [RadioStages] = []
        stagesOf.reserveCapacity(series.intervals.count)
        for interval in series.intervals {
            if let known = stagesByAccess[interval.access] {
                stagesOf.append(known)
                continue
            }
            let parameters = radio(interval.access)
            guard let stages = RadioStages(parameters) else {
                throw CounterError(
                    file: series.file, line: interval.line, column: series.format.accessColumn,
                    detail: "'\(interval.access ?? "")' maps to no radio model (\(parameters.technology.rawValue))")
            }
            stagesByAccess[interval.access] = stages
            stagesOf.append(stages)
        }
        guard let firstStages = stagesOf.first else {
            throw CounterError(file: series.file, detail: "no intervals to price")
        }

        var charged = ChargedRadio(firstStages)
        let flow = charged.addFlow()
        let startTime = series.intervals[0].start - charged.idlePromotionDelay
        charged.start(at: startTime)
        var shares: [String: CounterSummary.AccessShare] = [:]
        var accessOrder: [String] = []
        var trafficIntervals = 0
        var lastEnd = startTime
        var intervalsAfterEnd = 0
        for (interval, stages) in zip(series.intervals, stagesOf) {
            if let until = options.until, interval.start >= until {
                intervalsAfterEnd += 1
                continue
            }
            if stages != charged.stages { charged.switchRadio(to: stages, at: interval.start) }
            let end = min(interval.end, options.until ?? .infinity)
            lastEnd = end
            let access = interval.access ?? ""
            if shares[access] == nil {
                accessOrder.append(access)
                shares[access] = .init(access: access, radioModel: stages.model, intervals: 0, seconds: 0, rxBytes: 0, txBytes: 0)
            }
            shares[access]!.intervals += 1
            shares[access]!.seconds += end - interval.start
            shares[access]!.rxBytes += interval.rxBytes
            shares[access]!.txBytes += interval.txBytes
            guard interval.rxBytes > 0 || interval.txBytes > 0 else { continue }
            trafficIntervals += 1
            if interval.rxBytes > 0 {
                charged.charge(
                    from: interval.start, to: end, flow: flow, direction: .down, bytes: interval.rxBytes, burstGap: options.burstGap)
            }
            if interval.txBytes > 0 {
                charged.charge(
                    from: interval.start, to: end, flow: flow, direction: .up, bytes: interval.txBytes, burstGap: options.burstGap,
                    counted: interval.rxBytes == 0)
            }
        }
        let end: AnalysisBound
        if let until = options.until {
            end = AnalysisBound(seconds: until, reason: .until)
        } else if charged.tailEnd >= lastEnd {
            end = AnalysisBound(seconds: charged.tailEnd, reason: .lastTail)
        } else {
            end = AnalysisBound(seconds: lastEnd, reason: .lastInterval)
        }
        let (report, idleEnergy) = charged.finish(at: end.seconds)
        let identity = FlowIdentity(transport: "counters", device: "device", remote: "all traffic", serverName: nil)
        let reports = charged.flowReports([(flow, identity)], energy: report.energyJoules, burstGap: options.burstGap)

        let summary = CaptureSummary(
            file: series.file, format: "counters", linkType: "csv", packets: series.rows, devicePackets: trafficIntervals,
            nonIPPackets: 0, otherHostPackets: 0, undecodablePackets: 0, firstUndecodable: nil, outOfOrderPackets: 0,
            runBoundaryPackets: 0, packetsAfterEnd: intervalsAfterEnd,
            analysisStart: AnalysisBound(seconds: startTime, reason: .firstInterval), analysisEnd: end,
            startTime: series.startTime, durationSeconds: series.intervals[series.intervals.count - 1].end, deviceAddresses: [],
            deviceAddressSource: "counters", deviceEndGuesses: 0, radioModel: report.model, radioSource: options.radioSource,
            radioAssumed: false)
        let counters = CounterSummary(
            format: series.format, timeFormat: series.timeFormat, rows: series.rows, intervals: series.intervals.count,
            trafficIntervals: trafficIntervals, access: accessOrder.compactMap { shares[$0] })
        return CaptureAnalysis(
            capture: summary, radio: report, idleEnergyJoules: idleEnergy, flows: reports.flows, servers: reports.servers,
            periodicTransfers: reports.periodicTransfers, counters: counters)
    }
}
