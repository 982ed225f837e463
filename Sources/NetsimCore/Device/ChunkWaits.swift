/// What one chunk waited for on its way through the emulated phone, besides the link's own
/// one-way delay, serialization, jitter and loss: the radio (paging, promotion, DRX), a
/// connectivity gap (an outage or a handover's gap, until TCP's retransmission got through),
/// and the link's queue (the bytes ahead of it). A chunk is what the proxy read from one side in
/// one read and delivers as one piece: one or more TCP segments back to back.
public struct ChunkWaits: Sendable, Equatable {
    public var paging = 0.0
    public var promotion = 0.0
    public var drx = 0.0
    public var outage = 0.0
    public var queue = 0.0

    public init(paging: Double = 0, promotion: Double = 0, drx: Double = 0, outage: Double = 0, queue: Double = 0) {
        self.paging = paging
        self.promotion = promotion
        self.drx = drx
        self.outage = outage
        self.queue = queue
    }

    /// A radio admission's waits, and the rest.
    init(_ admission: RadioAdmission, outage: Double, queue: Double) {
        self.init(
            paging: admission.pagingWait, promotion: admission.promotionWait, drx: admission.drxWait, outage: max(0, outage),
            queue: max(0, queue))
    }

    /// The radio's part: paging, promotion and DRX.
    public var radio: Double { paging + promotion + drx }

    public subscript(cause: WaitCause) -> Double {
        switch cause {
        case .paging: paging
        case .promotion: promotion
        case .drx: drx
        case .outage: outage
        case .queue: queue
        }
    }
}

/// What a chunk can wait for (`ChunkWaits`), under the report's name for it.
public enum WaitCause: String, Sendable, Codable, CodingKeyRepresentable, CaseIterable, Comparable {
    case promotion
    case paging
    case drx
    case outage
    case queue

    public static func < (lhs: WaitCause, rhs: WaitCause) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
