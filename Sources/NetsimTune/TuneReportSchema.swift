import Foundation
import NetsimCore
import NetsimReport

extension ReportSchema {
    /// `netsim tune keepalive`'s report (docs/tune.md): gates name the recommendation's figures
    /// (`recommended.metrics.energyJoulesPerHour`, `recommended.metrics.detectionSeconds.p95`)
    /// and the live check's verdict (`verification.agrees`, 1 or 0).
    public static let tune = ReportSchema(
        name: "tune report", sample: tuneSample, isOpenMap: { _ in false },
        relativeKeys: [
            "recommended.metrics.energyJoulesPerHour", "recommended.metrics.wakeSecondsPerHour",
            "recommended.metrics.promotionsPerHour", "recommended.metrics.detectionSeconds.p95",
        ],
        absoluteKeys: [
            "recommended.metrics.natExpiriesPerHour", "recommended.metrics.reconnectsPerHour", "recommended.metrics.migrationsPerHour",
        ],
        identityKeys: ["transport", "horizonSeconds", "seeds"])

    /// A tune report with a recommendation and a verification: every key gates can name.
    private static var tuneSample: ReportTree {
        let detection = KeepaliveResults.Percentiles(p50: 0, p95: 0, max: 0, mean: 0, count: 0)
        let metrics = KeepaliveResults.Metrics(
            energyJoulesPerHour: 0, wakeSecondsPerHour: 0, promotionsPerHour: 0, bytesPerHour: 0, natExpiriesPerHour: 0,
            detectionSeconds: detection, blackoutSecondsPerHour: 0, reconnectsPerHour: 0, migrationsPerHour: 0, goaways: 0,
            serverPingsPerSecondPerMillionClients: 0)
        let metricsTree = try! ReportTree(json: JSONEncoder().encode(metrics))
        return [
            "netsimVersion": "", "transport": "grpc", "serverPolicy": "", "horizonSeconds": 0, "seeds": 0, "detectWithinSeconds": 0,
            "recommended": ["metrics": metricsTree],
            "verification": ["agrees": 1, "tolerance": 0, "seeds": 0, "horizonSeconds": 0, "timeScale": 0],
        ]
    }
}
