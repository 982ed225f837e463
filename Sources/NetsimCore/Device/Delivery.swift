/// When and how a chunk reaches the other side.
public struct Delivery: Sendable, Equatable {
    /// When the other side gets it.
    public var at: Double
    /// What it waited for on the way: the radio, an outage, the link's queue.
    public var waits: ChunkWaits
    /// When it was on the emulated radio link (what a capture timestamps).
    public var onAir: LinkSchedule.Transmission

    public init(at: Double, waits: ChunkWaits = ChunkWaits(), onAir: LinkSchedule.Transmission) {
        self.at = at
        self.waits = waits
        self.onAir = onAir
    }

    /// The part of its delay the radio added (paging, promotion, DRX).
    public var radioWait: Double { waits.radio }
}
