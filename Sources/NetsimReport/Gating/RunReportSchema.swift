import Foundation
import NetsimCore

extension ReportSchema {
    /// `netsim run`'s report (docs/run-report.md): gates name its keys as they are
    /// (`radio.promotions`, `connections.reset`, `eventCounts.nat-expiry`,
    /// `radio.secondsByState.IDLE`).
    public static let run = ReportSchema(
        name: "run report", sample: runSample,
        isOpenMap: { $0.hasSuffix("ByState") || $0.hasSuffix("ByOrigin") || $0 == "eventCounts" || $0 == "dropped" },
        relativeKeys: [
            "radio.energyJoules", "radio.wakeSeconds", "radio.promotions", "radioLatency.promotionSeconds",
            "radioLatency.pagingSeconds", "radioLatency.drxSeconds", "connections.opened",
        ],
        absoluteKeys: ["connections.reset", "connections.blackholed", "eventCounts.nat-expiry"],
        identityKeys: ["profile", "seed"])

    /// A run report with every key: one second of a phone with an LTE radio that sent a byte
    /// each way, and one event of each kind counted.
    private static var runSample: ReportTree {
        let network = Network(
            name: "sample", radio: .lte(LTERadioParameters()), up: LinkParameters(capacity: .unlimited, delay: 0),
            down: LinkParameters(capacity: .unlimited, delay: 0))
        var model = DeviceModel(
            profile: Profile(name: "sample", description: "", networks: [network], start: "sample"), seed: 1, recordsChunkDelays: true)
        let connection = model.openConnection(at: 0)
        var destinations = DestinationWaitLedger()
        destinations.connectionOpened(to: "sample.example:443")
        for (direction, time) in [(Direction.up, 0.0), (.down, 0.5)] {
            if case .deliver(let delivery) = model.send(1, direction, on: connection, at: time) {
                destinations.add("sample.example:443", direction, deliveredAt: delivery.at, waits: delivery.waits)
            }
        }
        var datagrams = DatagramFigures()
        datagrams.flows = 1
        datagrams.count(1, .up, droppedBy: nil)
        datagrams.count(1, .down, droppedBy: .loss)
        let report = RunReport(
            netsimVersion: NetsimVersion.current, profile: "sample", seed: 1, durationSeconds: 1, connections: ConnectionCounters(),
            bytes: PerDirection(up: 1, down: 1), segments: SegmentCounts(), radio: model.radioReport(until: 1),
            radioLatency: model.radioWaits(until: 1), chunkDelays: model.chunkDelays(until: 1),
            destinations: destinations.figures(until: 1), events: [],
            eventCounts: Dictionary(uniqueKeysWithValues: DeviceEvent.Kind.allCases.map { ($0, 1) }), eventsNotListed: 0,
            datagrams: datagrams, readerWait: PerDirection(up: ReaderWaitFigures(), down: ReaderWaitFigures()))
        let json = try! JSONEncoder().encode(report)
        return try! ReportTree(json: json)
    }
}
