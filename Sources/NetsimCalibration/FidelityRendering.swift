import Foundation
import NetsimCore
import NetsimReport

/// `netsim fidelity`'s report for people: the acceptance figures first, then each kind of
/// measurement file by file, with the error beside each figure; in HTML with the probes'
/// round trips against their idle gap (measured points, netsim's band) and each run's energy.
public enum FidelityRendering {
    public static func document(
        _ report: FidelityReport, probePlays: [String: (measured: [Probe], netsim: [Probe])] = [:]
    ) -> ReportDocument {
        var document = ReportDocument(title: "netsim against measured phones")
        let s = report.summary
        document.blocks.append(
            .paragraph(
                report.forcedRadio.map { "Every file played with the radio \($0)." }
                    ?? "Each file played with the built-in radio its own columns name (docs/fidelity.md)."))
        document.blocks.append(
            .table(
                header: ["figure", "value"],
                rows: [
                    ["walking-loop runs", "\(s.runs)"],
                    ["run energy: median error", percent(s.runMedianError)],
                    ["run energy: share within 20%", percent(s.runsWithin20Percent)],
                    ["run energy: largest error", percent(s.runMaxError)],
                    ["probe files", "\(s.probeFiles)"],
                    ["probes: largest tail error", String(format: "%.1f s", s.probeMaxTailError)],
                    ["probes: largest idle round-trip error (p10, p50, p90)", percent(s.probeMaxIdleRttError)],
                    ["transfer tests", "\(s.transfers)"],
                    ["transfers: largest power error", percent(s.transferMaxError)],
                ]))
        if !report.probes.isEmpty {
            document.blocks.append(.heading("Probes: the radio's timers and the delay of an idle radio"))
            document.blocks.append(
                .table(
                    header: [
                        "file", "radio", "tail measured s", "tail netsim s", "idle RTT p10/p50/p90 measured ms", "netsim ms", "error",
                    ],
                    rows: report.probes.map { probe in
                        [
                            probe.file, probe.radio, seconds(probe.tailSeconds.measured), seconds(probe.tailSeconds.netsim),
                            quantiles(probe.idleRttMs.measured), quantiles(probe.idleRttMs.netsim),
                            probe.idleRttError.map(percent) ?? "-",
                        ]
                    }))
            for probe in report.probes {
                guard let play = probePlays[probe.file] else { continue }
                document.blocks.append(
                    .figure(
                        MeasurementCharts.pointsOverBand(
                            points: play.measured.map { (x: $0.gap, y: $0.roundTrip * 1000) }, band: band(play.netsim),
                            xLabel: "idle gap (s)", yLabel: "round trip (ms)",
                            caption:
                                "\(probe.file): measured round trips (points) and netsim's \(probe.radio), 10th to 90th percentile per half second (band)"
                        )))
            }
        }
        if !report.runs.isEmpty {
            document.blocks.append(.heading("Walking loops: the radio's energy, priced from the byte counters"))
            document.blocks.append(
                .table(
                    header: ["file", "provider", "direction", "radios (seconds)", "seconds", "measured J", "netsim J", "error"],
                    rows: report.runs.map { run in
                        [
                            run.file, run.provider, run.direction, run.radio, String(format: "%.0f", run.seconds),
                            String(format: "%.0f", run.joules.measured), String(format: "%.0f", run.joules.netsim),
                            signedPercent(run.error),
                        ]
                    }))
            document.blocks.append(
                .figure(
                    MeasurementCharts.pairedBars(
                        report.runs.map {
                            (label: ($0.file as NSString).lastPathComponent, measured: $0.joules.measured, netsim: $0.joules.netsim)
                        },
                        unit: "J", caption: "Each run's radio energy: measured (blue) and netsim (orange)")))
        }
        if !report.transfers.isEmpty {
            document.blocks.append(.heading("Transfers: the whole phone's power at each target rate"))
            document.blocks.append(
                .table(
                    header: ["network", "direction", "target Mbit/s", "radio", "measured mW", "netsim mW", "error"],
                    rows: report.transfers.map { transfer in
                        [
                            transfer.networkType, transfer.direction, String(format: "%.0f", transfer.targetMbps), transfer.radio,
                            String(format: "%.0f", transfer.powerMw.measured), String(format: "%.0f", transfer.powerMw.netsim),
                            signedPercent(transfer.error),
                        ]
                    }))
        }
        return document
    }

    /// netsim's round trips as a band: per half second of gap, the 10th to 90th percentile.
    static func band(_ probes: [Probe]) -> [(x: Double, low: Double, high: Double)] {
        let bins = Dictionary(grouping: probes) { ($0.gap * 2).rounded(.down) / 2 }
        return bins.keys.sorted().compactMap { start in
            guard let spread = Quantiles(bins[start]!.map { $0.roundTrip * 1000 }) else { return nil }
            return (x: start + 0.25, low: spread.p10, high: spread.p90)
        }
    }

    static func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
    static func signedPercent(_ value: Double) -> String { String(format: "%+.1f%%", value * 100) }
    static func seconds(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "none" }
    static func quantiles(_ value: Quantiles?) -> String {
        value.map { String(format: "%.0f/%.0f/%.0f", $0.p10, $0.p50, $0.p90) } ?? "-"
    }
}
