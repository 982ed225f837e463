extension ConnectivityGaps {
    /// The longest that bytes held by `heldFor` seconds without connectivity wait, after it
    /// returns, for TCP's retransmission to carry them: the backoff interval that crosses the
    /// return. Intervals double, so that one is shorter than the time already waited plus one
    /// RTO; and none is longer than TCP_RTO_MAX.
    public static func longestRetransmissionWait(afterHolding heldFor: Double, retransmissionTimeout rto: Double) -> Double {
        min(maximumBackoff, max(0, heldFor) + max(rto, 0.001))
    }
}

extension Profile {
    /// When every byte sent by `end` (the end of the traffic) has got through the profile's
    /// outages and handover gaps, at the latest: after each gap that began by `end`, the
    /// longest retransmission wait for bytes held since it began, or since an earlier gap whose
    /// retransmission could land in it (then they wait this one out too). `end` itself when
    /// every gap's retransmissions have landed by then. A bench drains until this (and a
    /// grace), so that what a resilient client had not received by its end is really lost,
    /// not merely late.
    public func connectivitySettles(forTrafficUntil end: Double) -> Double {
        let rto = longestRetransmissionTimeout
        var settles = end
        var heldSince = -Double.infinity
        var gapEnd = -Double.infinity
        var landing = -Double.infinity
        for gap in gaps(startingBy: end) {
            // Bytes still waiting for a retransmission when this gap starts are held again.
            if gap.start >= landing { heldSince = gap.start }
            gapEnd = max(gapEnd, gap.end)
            landing = gapEnd + ConnectivityGaps.longestRetransmissionWait(afterHolding: gapEnd - heldSince, retransmissionTimeout: rto)
            settles = max(settles, landing)
        }
        return settles
    }

    /// The timeline's gaps that begin by `end`, repetitions included, in order.
    private func gaps(startingBy end: Double) -> [ConnectivityGaps.Gap] {
        let scripted = timeline.connectivityGaps.sorted { $0.start < $1.start }
        guard !scripted.isEmpty else { return [] }
        var gaps: [ConnectivityGaps.Gap] = []
        var cycleStart = 0.0
        repeat {
            for gap in scripted where cycleStart + gap.start <= end {
                gaps.append(.init(start: cycleStart + gap.start, end: cycleStart + gap.end))
            }
            guard let period = timeline.repeatPeriod, period > 0 else { break }
            cycleStart += period
        } while cycleStart <= end
        return gaps
    }

    /// The longest RTO the device model may use on any of the profile's networks, `set` events
    /// included: both one-way delays at their longest, plus Linux's 200 ms minimum.
    var longestRetransmissionTimeout: Double {
        var up = networks.map(\.up.delay).max() ?? 0
        var down = networks.map(\.down.delay).max() ?? 0
        for event in timeline.events {
            guard case .set(_, let upChange, let downChange) = event.kind else { continue }
            up = max(up, upChange.delay ?? 0)
            down = max(down, downChange.delay ?? 0)
        }
        return up + down + LinkDirection.minimumRetransmissionTimeout
    }
}
