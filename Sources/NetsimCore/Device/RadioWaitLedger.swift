/// Chunks' radio waits, each counted once the chunk goes on air (`RadioAdmission.start`), so
/// that a report stops where the run stopped, as the radio's figures do.
struct RadioWaitLedger: Sendable, Codable {
    private var settled = RadioWaitTotals()
    /// Admissions whose chunk goes on air after the time settled so far.
    private var scheduled: [RadioAdmission] = []
    /// The latest time settled. Not written down: a ledger read back only reports.
    private var settledThrough = -Double.infinity

    private enum CodingKeys: String, CodingKey {
        case settled, scheduled
    }

    /// An admission already on air when nothing waits before it is added at once, exactly
    /// where the next `settle` would have added it (first): a chunk that waits for nothing
    /// then skips the list.
    mutating func add(_ admission: RadioAdmission) {
        if scheduled.isEmpty, admission.start <= settledThrough {
            settled.add(admission)
        } else {
            scheduled.append(admission)
        }
    }

    /// Inlined, so that a settle with nothing waiting costs a comparison; the pass over what
    /// waits is apart.
    @inline(__always)
    mutating func settle(through time: Double) {
        settledThrough = max(settledThrough, time)
        if !scheduled.isEmpty { settleScheduled(through: time) }
    }

    /// One pass: the admissions on air by `time` are added in the order they came, the rest
    /// move up in theirs.
    @inline(never)
    private mutating func settleScheduled(through time: Double) {
        var kept = 0
        for index in scheduled.indices {
            let admission = scheduled[index]
            if admission.start <= time {
                settled.add(admission)
            } else {
                if kept < index { scheduled[kept] = admission }
                kept += 1
            }
        }
        scheduled.truncate(to: kept)
    }

    func totals(until time: Double) -> RadioWaitTotals {
        var totals = settled
        for admission in scheduled where admission.start <= time { totals.add(admission) }
        return totals
    }
}
