import NetsimCore

/// Plays a file's probes through a radio model, as the prober sent them: each probe is a
/// small downlink packet that reaches the phone `gap` after the phone's echo of the one before
/// (plus the network's round trip, which the echo and the probe spend in flight); the radio
/// admits it (a paging wait and a promotion when asleep, a DRX wait in connected DRX) and the
/// phone echoes it at once. The round trip is the network's plus every wait, so the played
/// file can be read by `ProbeAnalysis` exactly as the measured one is.
///
/// The same `RadioStateMachine` as `run`, `bench` and `analyze`; one machine for the whole
/// file, so the paging occasions fall where the probes' own timing puts them. Their phase is
/// drawn from `seed`.
public enum ProbePlayer {
    /// A probe and its echo: a ping's payload on the wire.
    static let probeBytes = 84

    /// The played round trips, one per probe, in order.
    public static func play(_ probes: [Probe], radio: RadioStages, networkRoundTrip: Double, seed: UInt64) -> [Probe] {
        var random = SeededRandom(seed: seed)
        let pagingCycle =
            radio.stages.compactMap { stage -> Double? in
                if case .dormant(_, let cycle) = stage.behavior, cycle > 0 { return cycle }
                return nil
            }.first ?? 1
        var machine = RadioStateMachine(radio, start: 0, pagingPhase: random.unitInterval() * pagingCycle, startsConnected: true)
        var lastEcho = 0.0
        var played: [Probe] = []
        played.reserveCapacity(probes.count)
        for probe in probes {
            let arrival = lastEcho + probe.gap + networkRoundTrip
            let down = machine.admit(at: arrival, direction: .down, bytes: probeBytes)
            machine.transmitted(from: down.start, to: down.start, direction: .down, bytes: probeBytes)
            let up = machine.admit(at: down.start, direction: .up, bytes: probeBytes)
            machine.transmitted(from: up.start, to: up.start, direction: .up, bytes: probeBytes)
            lastEcho = up.start
            machine.settle(through: lastEcho)
            played.append(Probe(gap: probe.gap, roundTrip: networkRoundTrip + down.totalWait + up.totalWait))
        }
        return played
    }
}
