/// The delay the emulated phone added to the chunks of one direction: from when the proxy read a
/// chunk to when it delivered it, and that delay's two parts. `radioWait` is what the radio
/// added (paging occasions, promotions, DRX on-durations, scheduling requests: the per-chunk
/// view of `RadioWaitTotals`); `linkWait` is the rest: the link's queue and serialization, its
/// one-way delay and jitter, loss's retransmissions, and what an outage or handover held.
public struct ChunkDelayFigures: Sendable, Codable, Equatable {
    public var chunks = 0
    public var added = DelaySummary()
    public var radioWait = DelaySummary()
    public var linkWait = DelaySummary()

    public init(
        chunks: Int = 0, added: DelaySummary = DelaySummary(), radioWait: DelaySummary = DelaySummary(),
        linkWait: DelaySummary = DelaySummary()
    ) {
        self.chunks = chunks
        self.added = added
        self.radioWait = radioWait
        self.linkWait = linkWait
    }
}

/// Each chunk's delay, counted once the chunk is delivered (`PendingDeliveries`). What is kept
/// is bounded by the buckets used and the chunks in flight. Off (`isRecording` false), it keeps
/// nothing: a flag rather than an optional ledger, whose nil check was an outlined call on each
/// of the model engine's chunks (twice per chunk, about 0.7% of its time).
struct ChunkDelayLedger: Sendable {
    private struct Distributions: Sendable {
        var added = DelayDistribution()
        var radioWait = DelayDistribution()
        var linkWait = DelayDistribution()

        mutating func add(_ chunk: Pending) {
            added.record(seconds: chunk.deliveredAt - chunk.readAt)
            radioWait.record(seconds: chunk.radioWait)
            linkWait.record(seconds: chunk.deliveredAt - chunk.readAt - chunk.radioWait)
        }

        var figures: ChunkDelayFigures {
            ChunkDelayFigures(chunks: added.count, added: added.summary, radioWait: radioWait.summary, linkWait: linkWait.summary)
        }
    }

    private struct Pending: Sendable {
        var direction: Direction
        var readAt: Double
        var deliveredAt: Double
        var radioWait: Double
    }

    private var settled = PerDirection(up: Distributions(), down: Distributions())
    private var pending = PendingDeliveries<Pending>()
    let isRecording: Bool

    init(isRecording: Bool) {
        self.isRecording = isRecording
    }

    mutating func add(_ direction: Direction, readAt: Double, deliveredAt: Double, radioWait: Double) {
        guard isRecording else { return }
        pending.add(Pending(direction: direction, readAt: readAt, deliveredAt: deliveredAt, radioWait: radioWait), deliveredAt: deliveredAt)
    }

    /// Inlined, for the model engine's devices, which do not record; the settling is apart.
    @inline(__always)
    mutating func settle(through time: Double) {
        if isRecording { settleRecorded(through: time) }
    }

    @inline(never)
    private mutating func settleRecorded(through time: Double) {
        pending.settle(through: time) { settled[$0.direction].add($0) }
    }

    /// Nil when not recording.
    func figures(until time: Double) -> PerDirection<ChunkDelayFigures>? {
        guard isRecording else { return nil }
        var totals = settled
        pending.forEachDelivered(by: time) { totals[$0.direction].add($0) }
        return PerDirection(up: totals.up.figures, down: totals.down.figures)
    }
}
