/// The radio's share of added latency, summed over chunks.
public struct RadioWaitTotals: Sendable, Equatable, Codable {
    public var chunks = 0
    public var delayedChunks = 0
    public var pagingSeconds = 0.0
    public var promotionSeconds = 0.0
    public var drxSeconds = 0.0

    public init() {}

    mutating func add(_ admission: RadioAdmission) {
        chunks += 1
        if admission.totalWait > 0 { delayedChunks += 1 }
        pagingSeconds += admission.pagingWait
        promotionSeconds += admission.promotionWait
        drxSeconds += admission.drxWait
    }
}
