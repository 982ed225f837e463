/// One direction of a link as it is now, as `GET /status` and a `set` event say it: the summary
/// a profile's reader knows ("rate 1mbps, delay 300ms, loss 0.5%") and the figures a script
/// compares, in base units.
public struct LinkFigures: Sendable, Codable, Equatable {
    public var summary: String
    /// The rate, or a trace's mean rate; nil when unlimited.
    public var bitsPerSecond: Double?
    public var delaySeconds: Double
    /// The jitter's amount (its distribution is in `summary`); 0 without jitter.
    public var jitterSeconds: Double
    /// nil when the queue is unlimited.
    public var queueLimitBytes: Int?

    public init(_ parameters: LinkParameters) {
        summary = parameters.summary
        switch parameters.capacity {
        case .unlimited: bitsPerSecond = nil
        case .rate(let rate): bitsPerSecond = rate
        case .trace(let trace): bitsPerSecond = trace.meanBitsPerSecond
        }
        delaySeconds = parameters.delay
        jitterSeconds = parameters.jitter?.amount ?? 0
        queueLimitBytes = parameters.queueLimit
    }
}

extension Network {
    /// Both directions' figures.
    public var linkFigures: PerDirection<LinkFigures> { PerDirection(up: LinkFigures(up), down: LinkFigures(down)) }
}
