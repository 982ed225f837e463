import NetsimCore

/// Prices per-interval byte counts with netsim's radio model, as `netsim analyze --counters`
/// prices a counters file (`CaptureAnalysis.price`): each interval's bytes are a transfer
/// spread evenly over it, so the radio is connected from the interval's start (after the
/// promotion it needed, placed before it: `RadioStateMachine.observe(from:to:)`) to its end,
/// where its tail starts. The energy of each interval is what the machine spent over the part
/// of it that the meter's reading covers, so that netsim's figure and the meter's are over the
/// same time: the interval is observed in two spans, before and within the meter's window, each
/// with its share of the bytes, so the throughput energy falls where its bytes did.
///
/// A log's radio can change from one interval to the next (an NSA phone's NR leg comes and
/// goes; a phone moves between carriers' radios only in a test): the machine of the interval
/// before ends there, and the new radio's starts connected, with no promotion, since the phone
/// kept its connection. Tails are not counted twice.
///
/// A sample's signal strength moves the connected power from the sample's start
/// (`RadioStateMachine.signal`); a sample without one keeps the level before it.
public enum IntervalPricer {
    /// The joules of each sample over its `powerSeconds`. `radio` picks the radio of each
    /// sample by name; `startsConnected`: the first radio is awake when the log begins (a
    /// measurement that starts mid-transfer), rather than IDLE.
    public static func energies(
        of samples: [PowerSample], startsConnected: Bool, radio: (PowerSample) -> (name: String, stages: RadioStages)
    ) -> [Double] {
        var energies: [Double] = []
        energies.reserveCapacity(samples.count)
        var current: (name: String, machine: RadioStateMachine)?
        var finished = 0.0
        for sample in samples {
            let start = sample.end - sample.seconds
            let (name, stages) = radio(sample)
            if current?.name != name {
                if var previous = current?.machine {
                    previous.settle(through: start)
                    finished += previous.runningTotals.energy
                }
                current = (name, RadioStateMachine(stages, start: start, startsConnected: current != nil || startsConnected))
            }
            var machine = current!.machine
            if let signal = sample.signal { machine.signal(signal, at: start) }
            let meterStart = sample.end - sample.powerSeconds
            let beforeMeter = (meterStart - start) / sample.seconds
            observe(&machine, from: start, to: meterStart, share: beforeMeter, of: sample)
            machine.settle(through: meterStart)
            let energyAtMeterStart = finished + machine.runningTotals.energy
            observe(&machine, from: meterStart, to: sample.end, share: 1 - beforeMeter, of: sample)
            machine.settle(through: sample.end)
            energies.append(finished + machine.runningTotals.energy - energyAtMeterStart)
            current!.machine = machine
        }
        return energies
    }

    /// `share` of the sample's bytes in each direction, on air from `start` to `end`.
    private static func observe(
        _ machine: inout RadioStateMachine, from start: Double, to end: Double, share: Double, of sample: PowerSample
    ) {
        guard end > start else { return }
        let down = Int((sample.downBytes * share).rounded())
        let up = Int((sample.upBytes * share).rounded())
        if down > 0 { machine.observe(from: start, to: end, direction: .down, bytes: down) }
        if up > 0 { machine.observe(from: start, to: end, direction: .up, bytes: up) }
    }
}
