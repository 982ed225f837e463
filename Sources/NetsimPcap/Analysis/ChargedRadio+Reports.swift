/// What a flow is, as the reports name it: a capture's 5-tuple and server name, or a
/// counter's whole traffic.
struct FlowIdentity {
    var transport: String
    var device: String
    var remote: String
    var serverName: String?
    /// Which server its traffic went to, for grouping: the name where known, else the
    /// address; nil for traffic of no one server (a counter's).
    var server: String?
}

/// The flows' reports, the servers they went to, and the periodic transfers among them.
struct FlowReports {
    var flows: [FlowReport] = []
    var servers: [ServerReport] = []
    var periodicTransfers: [PeriodicTransfer] = []
}

extension ChargedRadio {
    /// The reports of the flows `identities` names (by their index in `flows`), the most energy
    /// first, and the periodic transfers among them, the most energy per hour first. `energy`
    /// is the radio's whole energy, for each flow's share.
    ///
    /// Periodic transfers are searched per flow, then per server among the flows that are not
    /// periodic on their own: an app that polls on a new connection each time makes one short
    /// flow a poll, none periodic, but their server's bursts are.
    func flowReports(_ identities: [(charges: Int, identity: FlowIdentity)], energy: Double, burstGap: Double) -> FlowReports {
        let ranked = identities.filter { flows[$0.charges].transfers > 0 }
            .sorted { (flows[$0.charges].energy, -flows[$0.charges].firstTime) > (flows[$1.charges].energy, -flows[$1.charges].firstTime) }
        var result = FlowReports()
        var serverOrder: [String] = []
        var serverFlows: [String: [FlowReport]] = [:]
        for (rank, entry) in ranked.enumerated() {
            let flow = flows[entry.charges]
            let report = FlowReport(
                id: rank + 1, transport: entry.identity.transport, device: entry.identity.device, remote: entry.identity.remote,
                serverName: entry.identity.serverName, packets: flow.transfers, bytesUp: flow.bytesUp, bytesDown: flow.bytesDown,
                firstPacketSeconds: flow.firstTime, lastPacketSeconds: flow.lastTime, wakeUps: flow.wakeUps,
                wakeSeconds: flow.promotionSeconds + flow.tailSeconds, energyJoules: flow.energy,
                promotionEnergyJoules: flow.promotionEnergy, tailEnergyJoules: flow.tailEnergy,
                transferEnergyJoules: flow.transferEnergy, energyShare: energy > 0 ? flow.energy / energy : 0, bursts: flow.bursts)
            result.flows.append(report)
            let periodic = Self.periodicTransfer(report.bursts, of: [report])
            if let periodic { result.periodicTransfers.append(periodic) }
            guard let server = entry.identity.server else { continue }
            if serverFlows[server] == nil { serverOrder.append(server) }
            serverFlows[server, default: []].append(report)
        }
        for server in serverOrder {
            let flows = serverFlows[server] ?? []
            result.servers.append(Self.serverReport(server, flows, energy: energy))
            let periodicFlows = Set(result.periodicTransfers.flatMap(\.flows))
            let polls = flows.filter { !periodicFlows.contains($0.id) }
            guard polls.count > 1 else { continue }
            let bursts = Self.merged(polls.flatMap(\.bursts), burstGap: burstGap)
            if let periodic = Self.periodicTransfer(bursts, of: polls) { result.periodicTransfers.append(periodic) }
        }
        result.servers.sort { $0.energyJoules > $1.energyJoules }
        result.periodicTransfers.sort { $0.energyJoulesPerHour > $1.energyJoulesPerHour }
        return result
    }

    /// A server's figures: its flows' added up.
    private static func serverReport(_ server: String, _ flows: [FlowReport], energy: Double) -> ServerReport {
        let joules = flows.reduce(0) { $0 + $1.energyJoules }
        return ServerReport(
            server: server, flows: flows.map(\.id), packets: flows.reduce(0) { $0 + $1.packets },
            bytesUp: flows.reduce(0) { $0 + $1.bytesUp }, bytesDown: flows.reduce(0) { $0 + $1.bytesDown },
            wakeUps: flows.reduce(0) { $0 + $1.wakeUps }, wakeSeconds: flows.reduce(0) { $0 + $1.wakeSeconds },
            energyJoules: joules, energyShare: energy > 0 ? joules / energy : 0)
    }

    /// Several flows' bursts as one flow's: in time order, those that overlap or are no more
    /// than `burstGap` apart joined.
    private static func merged(_ bursts: [FlowBurst], burstGap: Double) -> [FlowBurst] {
        var merged: [FlowBurst] = []
        for burst in bursts.sorted(by: { $0.start < $1.start }) {
            if let last = merged.last, burst.start - last.end <= burstGap {
                merged[merged.count - 1].absorb(burst)
            } else {
                merged.append(burst)
            }
        }
        return merged
    }

    /// What the flow's repeating bursts cost per repetition: everything charged to the bursts
    /// that recur, from the first whole repetition's start to the last's end, over the number
    /// of repetitions. Charges never overlap, so the mean power is at most the radio's awake
    /// power, however many bursts a period holds.
    /// `bursts` are those of `flows` (one flow's, or a server's flows' merged).
    private static func periodicTransfer(_ bursts: [FlowBurst], of flows: [FlowReport]) -> PeriodicTransfer? {
        guard let pattern = PeriodicTransferDetector.detect(burstStarts: bursts.map(\.start)) else { return nil }
        let from = bursts[pattern.boundaries[0]].start
        let to = bursts[pattern.boundaries[pattern.boundaries.count - 1]].start
        let repeated = pattern.recurring.sorted().map { bursts[$0] }.filter { $0.start >= from && $0.start < to }
        let count = Double(pattern.repetitions)
        let wakePerRepetition = repeated.reduce(0) { $0 + $1.wakeSeconds } / count
        let energyPerRepetition = repeated.reduce(0) { $0 + $1.energyJoules } / count
        let perHour = 3600 / pattern.period
        return PeriodicTransfer(
            flow: flows[0].id, flows: flows.map(\.id), remote: flows[0].remote, serverName: flows[0].serverName,
            periodSeconds: pattern.period,
            repetitions: pattern.repetitions, burstsPerRepetition: Double(repeated.count) / count,
            wakeSecondsPerRepetition: wakePerRepetition, energyJoulesPerRepetition: energyPerRepetition,
            wakeSecondsPerHour: wakePerRepetition * perHour, energyJoulesPerHour: energyPerRepetition * perHour,
            meanPowerMilliwatts: energyPerRepetition * perHour / 3.6)
    }
}
