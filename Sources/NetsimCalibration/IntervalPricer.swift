import NetsimCore

/// Prices per-interval byte counts with netsim's radio model: each interval's bytes become
/// packets spread evenly over it (one per 1,500 bytes, at most one every 10 ms, which keeps a
/// busy radio in its most awake state as a real transfer does), fed to a `RadioStateMachine` as
/// a capture's packets are (`observe`: a promotion placed before a packet that found the radio
/// asleep). The energy of each interval is what the machine spent over the part of it that
/// the meter's reading covers, so that netsim's figure and the meter's are over the same time.
///
/// A log's radio can change from one interval to the next (an NSA phone's NR leg comes and
/// goes; a phone moves between carriers' radios only in a test): the machine of the interval
/// before ends there, and the new radio's starts connected, with no promotion, since the phone
/// kept its connection. Tails are not counted twice.
///
/// A sample's signal strength moves the connected power from the sample's start
/// (`RadioStateMachine.signal`); a sample without one keeps the level before it.
public enum IntervalPricer {
    /// The shortest spacing of the packets an interval's bytes become.
    static let packetSpacing = 0.01
    static let packetBytes = 1500.0

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
            var energyAtMeterStart: Double?
            func noteMeterStart(before time: Double) {
                guard energyAtMeterStart == nil, time >= meterStart else { return }
                machine.settle(through: meterStart)
                energyAtMeterStart = finished + machine.runningTotals.energy
            }
            let downPackets = packets(sample.downBytes, over: sample.seconds)
            let upPackets = packets(sample.upBytes, over: sample.seconds)
            // Both directions' packets in time order, downlink first at equal times.
            var down = 0
            var up = 0
            while down < downPackets.count || up < upPackets.count {
                let takeDown = up >= upPackets.count || (down < downPackets.count && downPackets[down].offset <= upPackets[up].offset)
                let packet = takeDown ? downPackets[down] : upPackets[up]
                let time = start + packet.offset
                noteMeterStart(before: time)
                machine.observe(at: time, direction: takeDown ? .down : .up, bytes: packet.bytes)
                if takeDown { down += 1 } else { up += 1 }
            }
            noteMeterStart(before: .infinity)
            machine.settle(through: sample.end)
            energies.append(finished + machine.runningTotals.energy - energyAtMeterStart!)
            current!.machine = machine
        }
        return energies
    }

    /// `bytes` as packets spread evenly over `seconds`: offsets from the interval's start and
    /// sizes (whole bytes, the last one taking the remainder).
    static func packets(_ bytes: Double, over seconds: Double) -> [(offset: Double, bytes: Int)] {
        let total = Int(bytes.rounded())
        guard total > 0 else { return [] }
        let count = max(1, min(Int((Double(total) / packetBytes).rounded(.up)), Int(seconds / packetSpacing)))
        let each = total / count
        let spacing = seconds / Double(count)
        return (0..<count).map { index in
            (offset: (Double(index) + 0.5) * spacing, bytes: index == count - 1 ? total - each * (count - 1) : each)
        }
    }
}
