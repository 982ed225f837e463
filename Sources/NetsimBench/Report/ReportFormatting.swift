import Foundation
import NetsimCore
import NetsimReport

/// Number formats the Markdown and HTML reports share, so both say the same thing.
enum ReportFormatting {
    static func kilobytes(_ bytes: Double) -> String { String(format: "%.1f", bytes / 1000) }

    static func bytes(_ count: Double) -> String { Quantity.formatDataSize(count) }

    static func milliseconds(_ value: Double) -> String {
        value >= 10_000 ? String(format: "%.1f s", value / 1000) : String(format: "%.0f ms", value)
    }

    /// A percentile, or "none" when nothing was measured (rather than a misleading 0 ms).
    static func percentile(_ value: Double, of latency: BenchReport.Latency) -> String {
        latency.count == 0 ? "none" : milliseconds(value)
    }

    static func seconds(_ value: Double) -> String { ReportNumber.seconds(value, decimals: 1) }

    static func plusMinus(_ spread: Spread, _ format: String = "%.1f") -> String {
        String(format: format, spread.mean) + " ± " + String(format: format, spread.standardDeviation)
    }

    /// Delivered of sent, with losses, what was still in flight (only when something was), and
    /// repeats. An event delivered twice reached the app twice (`dup`); a message that arrived
    /// twice was ignored by its id the second time (`repeats ignored`), so the app still saw it
    /// once.
    static func delivery(_ delivery: BenchReport.Delivery, repeatsIgnored: Bool) -> String {
        let repeats = repeatsIgnored ? "\(delivery.duplicated) repeats ignored" : "dup \(delivery.duplicated)"
        let inFlight = delivery.inFlight > 0 ? ", in flight \(delivery.inFlight)" : ""
        return "\(delivery.delivered)/\(delivery.sent) (lost \(delivery.lost)\(inFlight), \(repeats))"
    }

    /// One sentence on the drain after the workload, for both reports.
    /// The line that says a report covers only part of the fleet; nil for a finished bench.
    static func partial(_ report: BenchReport) -> String? {
        guard report.partial == true else { return nil }
        let fleet = report.devicesPerTransport * report.transports.count
        return "Partial: the bench was stopped (SIGINT or SIGTERM) after \(report.devicesPlayed ?? 0) of \(fleet) devices had played; "
            + "every figure covers those devices only."
    }

    static func drain(_ report: BenchReport) -> String {
        let drain = report.drain
        return "After the workload the bench waited \(seconds(drain.seconds)) (at most \(seconds(drain.limitSeconds)): until the "
            + "profile's last outage or handover gap and TCP's retransmission after it were over, plus a grace for "
            + "reconnects) for events and messages on their way; \"lost\" will never arrive, \"in flight\" had not yet."
    }

    static func recovery(_ report: BenchReport.TransportReport) -> String {
        let recovery = report.recoverySeconds
        let time = recovery.count == 0 ? "no gap held anything up" : "recovery \(seconds(recovery.mean)) mean, \(seconds(recovery.max)) max"
        return "\(report.reconnects); \(time)"
    }

    static func wake(_ report: BenchReport.TransportReport, duration: Double) -> String {
        let spread = report.perDevice.wakeSeconds
        let share = duration > 0 ? spread.mean / duration * 100 : 0
        return "\(plusMinus(spread)) s (\(String(format: "%.0f", share))%)"
    }

    static func energy(_ report: BenchReport.TransportReport) -> String {
        "\(plusMinus(report.perDevice.energyJoules)) J (\(String(format: "%.0f", report.radioFleetTotal.meanPowerMilliwatts)) mW)"
    }

    /// The comparison table's rows: a label, and a cell per transport.
    static func comparisonRows(_ report: BenchReport) -> [(String, [String])] {
        let transports = report.orderedTransports.map(\.1)
        let duration = transports.first.map { $0.radioFleetTotal.durationSeconds / Double(max(1, report.devicesPerTransport)) } ?? 0
        return [
            (
                "Bandwidth per device, KB/min (payload / wire est.)",
                transports.map { "\(kilobytes($0.bytes.perMinute)) / \(kilobytes($0.bytes.wire.perMinute))" }
            ),
            (
                "p95 latency, events / messages",
                transports.map {
                    "\(percentile($0.latencyMs.p95, of: $0.latencyMs)) / \(percentile($0.uplinkLatencyMs.p95, of: $0.uplinkLatencyMs))"
                }
            ),
            ("Delivery, events", transports.map { delivery($0.events, repeatsIgnored: false) }),
            ("Delivery, messages", transports.map { delivery($0.messages, repeatsIgnored: true) }),
            ("Reconnects (fleet); recovery", transports.map(recovery)),
            ("Radio wake time per device", transports.map { wake($0, duration: duration) }),
            ("Energy per device (mean power)", transports.map(energy)),
        ] + resilienceRows(transports) + bufferRows(transports)
    }

    // MARK: Strategies: offline queue (3) and slow consumers (5)

    /// Losses by cause and the worst device's buffer peaks, when the report has them (live runs,
    /// and model runs with a consumer).
    static func bufferRows(_ transports: [BenchReport.TransportReport]) -> [(String, [String])] {
        guard transports.contains(where: { $0.buffers != nil }) else { return [] }
        let cell = { (report: BenchReport.TransportReport, text: (BenchReport.Buffers) -> String) in report.buffers.map(text) ?? "none" }
        let held = { (events: Int, bytes: Int) in "\(events) (\(Self.bytes(Double(bytes))))" }
        return [
            (
                "Lost by cause: outbox overflow / receive-buffer overflow / skipped on reconnect / other",
                transports.map { report in
                    cell(report) {
                        "\($0.lost.outboxOverflow) / \($0.lost.receiveBufferOverflow) / \($0.lost.skippedOnReconnect) / \($0.lost.other)"
                    }
                }
            ),
            (
                "Peak held per device, events (bytes): client buffer / server queue",
                transports.map { report in
                    cell(report) {
                        "\(held($0.clientPeakEvents, $0.clientPeakBytes)) / \(held($0.serverQueuePeakEvents, $0.serverQueuePeakBytes))"
                    }
                }
            ),
        ]
    }
}
