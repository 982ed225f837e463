/// What a flow is, as the reports name it: a capture's 5-tuple and server name, or a
/// counter's whole traffic.
struct FlowIdentity {
    var transport: String
    var device: String
    var remote: String
    var serverName: String?
}

extension ChargedRadio {
    /// The reports of the flows `identities` names (by their index in `flows`), the most energy
    /// first, and the periodic transfers among them, the most energy per hour first. `energy`
    /// is the radio's whole energy, for each flow's share.
    func flowReports(
        _ identities: [(charges: Int, identity: FlowIdentity)], energy: Double
    ) -> (flows: [FlowReport], periodicTransfers: [PeriodicTransfer]) {
        let ranked = identities.filter { flows[$0.charges].transfers > 0 }
            .sorted { (flows[$0.charges].energy, -flows[$0.charges].firstTime) > (flows[$1.charges].energy, -flows[$1.charges].firstTime) }
        var reports: [FlowReport] = []
        var periodicTransfers: [PeriodicTransfer] = []
        for (rank, entry) in ranked.enumerated() {
            let flow = flows[entry.charges]
            let report = FlowReport(
                id: rank + 1, transport: entry.identity.transport, device: entry.identity.device, remote: entry.identity.remote,
                serverName: entry.identity.serverName, packets: flow.transfers, bytesUp: flow.bytesUp, bytesDown: flow.bytesDown,
                firstPacketSeconds: flow.firstTime, lastPacketSeconds: flow.lastTime, wakeUps: flow.wakeUps,
                wakeSeconds: flow.promotionSeconds + flow.tailSeconds, energyJoules: flow.energy,
                promotionEnergyJoules: flow.promotionEnergy, tailEnergyJoules: flow.tailEnergy,
                transferEnergyJoules: flow.transferEnergy, energyShare: energy > 0 ? flow.energy / energy : 0, bursts: flow.bursts)
            reports.append(report)
            if let periodic = Self.periodicTransfer(report) { periodicTransfers.append(periodic) }
        }
        periodicTransfers.sort { $0.energyJoulesPerHour > $1.energyJoulesPerHour }
        return (reports, periodicTransfers)
    }

    /// What the flow's repeating bursts cost per repetition: everything charged to the bursts
    /// that recur, from the first whole repetition's start to the last's end, over the number
    /// of repetitions. Charges never overlap, so the mean power is at most the radio's awake
    /// power, however many bursts a period holds.
    private static func periodicTransfer(_ report: FlowReport) -> PeriodicTransfer? {
        let bursts = report.bursts
        guard let pattern = PeriodicTransferDetector.detect(burstStarts: bursts.map(\.start)) else { return nil }
        let from = bursts[pattern.boundaries[0]].start
        let to = bursts[pattern.boundaries[pattern.boundaries.count - 1]].start
        let repeated = pattern.recurring.sorted().map { bursts[$0] }.filter { $0.start >= from && $0.start < to }
        let count = Double(pattern.repetitions)
        let wakePerRepetition = repeated.reduce(0) { $0 + $1.wakeSeconds } / count
        let energyPerRepetition = repeated.reduce(0) { $0 + $1.energyJoules } / count
        let perHour = 3600 / pattern.period
        return PeriodicTransfer(
            flow: report.id, remote: report.remote, serverName: report.serverName, periodSeconds: pattern.period,
            repetitions: pattern.repetitions, burstsPerRepetition: Double(repeated.count) / count,
            wakeSecondsPerRepetition: wakePerRepetition, energyJoulesPerRepetition: energyPerRepetition,
            wakeSecondsPerHour: wakePerRepetition * perHour, energyJoulesPerHour: energyPerRepetition * perHour,
            meanPowerMilliwatts: energyPerRepetition * perHour / 3.6)
    }
}
