import Foundation
import NetsimCore
import NetsimModel
import NetsimReport

extension ReportSchema {
    /// `netsim bench`'s report (docs/bench.md): a key naming a transport (`rest`, `ws`, `grpc`, `quic`)
    /// addresses that transport's object (`grpc.latencyMs.p95`); other keys are top-level
    /// (`durationSeconds`). A baseline compares each transport's figures.
    public static let bench = ReportSchema(
        name: "bench report", sample: benchSample,
        expand: { path in BenchTransport(rawValue: path[0]) != nil ? ["transports"] + path : path },
        gateKey: { path in path.count > 1 && path[0] == "transports" ? Array(path.dropFirst()) : path },
        isOpenMap: { $0.hasSuffix("ByState") || $0.hasSuffix("ByOrigin") }, openMapMember: Spread([1]).asReportTree,
        baselineScopes: BenchTransport.allCases.map { [$0.rawValue] },
        relativeKeys: [
            "latencyMs.p95", "latencyMs.p99", "uplinkLatencyMs.p95", "bytes.perMinute", "bytes.wire.perMinute",
            "perDevice.wakeSeconds.mean", "perDevice.energyJoules.mean", "reconnects", "recoverySeconds.max",
        ],
        absoluteKeys: ["events.lost", "events.duplicated", "messages.lost"],
        identityKeys: ["profile", "durationSeconds", "devicesPerTransport", "seed"])

    /// A report with every transport and zero figures: the schema's shape, with the sections
    /// only some reports have (the live bench's zombie seconds and attempts, the buffers of
    /// strategies 2 and 5, QUIC's migrations), so that gates and tables can name them.
    private static var benchSample: ReportTree {
        var report = BenchReport.empty
        var (transport, _) = BenchAnalysis.summarize([])
        transport.resilience = BenchReport.Resilience(
            zombieSeconds: .init(deaths: 0, mean: 0, max: 0), eventsLostBySkipping: 0,
            connectionAttempts: .init(total: 0, peakPerSecond: 0, peakSecond: 0))
        transport.buffers = BenchReport.Buffers(
            clientPeakEvents: 0, clientPeakBytes: 0, serverQueuePeakEvents: 0, serverQueuePeakBytes: 0,
            lost: BenchReport.LostByCause(outboxOverflow: 0, receiveBufferOverflow: 0, other: 0))
        transport.migrations = 0
        for key in BenchTransport.allCases { report.transports[key] = transport }
        return try! ReportTree(json: report.json())
    }
}

extension Spread {
    var asReportTree: ReportTree {
        .object(["mean": .number(mean), "min": .number(min), "max": .number(max), "standardDeviation": .number(standardDeviation)])
    }
}

extension BenchReport {
    /// A report of nothing: the base of the schema sample.
    static let empty = BenchReport(
        netsimVersion: "", engine: .live, profile: "", seed: 0, durationSeconds: 0, drain: Drain(limitSeconds: 0, seconds: 0),
        devicesPerTransport: 0,
        workload: WorkloadSummary(
            eventMeanGapSeconds: 0, eventPayloadBytes: 0, messageIntervalSeconds: 0, messagePayloadBytes: 0, outboxLimit: 0),
        client: "", transports: [:])
}
