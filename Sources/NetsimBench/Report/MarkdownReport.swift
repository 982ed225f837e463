import Foundation
import NetsimCore
import NetsimModel
import NetsimReport

/// The Markdown report, fit for a CI job summary: the comparison table first, then each
/// transport's details, then the profile, workload and client settings used.
public enum MarkdownReport {
    public static func render(_ result: BenchResult) -> String {
        // The profile's texts, its events and the client settings' source come from files: escaped.
        var closing = ["", "### Profile", "", "**\(result.profile.name.markdownText)**: \(result.profile.description.markdownText)"]
        if !result.profileEvents.isEmpty {
            closing.append("")
            for event in result.profileEvents { closing.append("- " + "\(event)".markdownText) }
        }
        return render(result.report, closing: closing + ["", "### Workload and clients", ""] + settings(result))
    }

    /// A saved report again (`netsim report show`): the JSON keeps the profile's name, the
    /// workload's figures and where the client settings came from, not the profile's events or
    /// every client setting; the rest is as the bench wrote it.
    public static func render(saved report: BenchReport) -> String {
        let closing =
            [
                "", "### Profile", "",
                "**\(report.profile.markdownText)** (\("netsim profiles show \(report.profile)".markdownCode) shows its networks and events)",
                "", "### Workload and clients", "",
            ] + workloadLines(report.workload) + ["- Client settings: " + ClientSettings.describe(source: report.client).markdownText]
        return render(report, closing: closing)
    }

    /// The report's tables and details, then `closing`: the profile and settings sections.
    private static func render(_ report: BenchReport, closing: [String]) -> String {
        let transports = report.orderedTransports
        var lines = [
            "## netsim bench: \(report.profile.markdownText), \(report.devicesPerTransport) devices per transport, "
                + "\(Quantity.formatDuration(report.durationSeconds)) (seed \(report.seed)"
                + (report.engine == .model ? ", model engine)" : ")"),
            "",
        ]
        if let partial = ReportFormatting.partial(report) { lines += ["**\(partial)**", ""] }
        if let gates = report.gates, !gates.isEmpty { lines += GateOutcome.markdown(gates) }
        lines += [
            "| | " + transports.map { $0.0.title }.joined(separator: " | ") + " |",
            "|---|" + transports.map { _ in "---:|" }.joined(),
        ]
        for (label, cells) in ReportFormatting.comparisonRows(report) {
            lines.append("| \(label) | " + cells.joined(separator: " | ") + " |")
        }
        lines += [
            "",
            "Bandwidth, wake time and energy are per device (mean ± standard deviation over the fleet); latencies are pooled "
                + "over the fleet; delivery counts and reconnects are fleet totals. Wire bytes are an estimate (TCP/IP headers, "
                + "ACKs, handshakes; see docs/bench.md).",
            "",
            ReportFormatting.drain(report),
        ]
        for (transport, details) in transports {
            lines += [""] + self.details(transport, details)
        }
        lines += closing
        return lines.joined(separator: "\n") + "\n"
    }

    static func details(_ transport: BenchTransport, _ report: BenchReport.TransportReport) -> [String] {
        let format = ReportFormatting.self
        let radio = report.perDevice
        // Ties (states never visited) by name, so the same run always prints the same line.
        let states = radio.secondsByState.sorted { ($0.value.mean, $1.key.rawValue) > ($1.value.mean, $0.key.rawValue) }
            .map { "\($0.key.rawValue) \(format.plusMinus($0.value)) s" }.joined(separator: ", ")
        return [
            "### \(transport.title)",
            "",
            "- Bytes per device: \(format.bytes(report.bytes.up)) up, \(format.bytes(report.bytes.down)) down "
                + "(wire est. \(format.bytes(report.bytes.wire.up)) up, \(format.bytes(report.bytes.wire.down)) down); "
                + "\(format.bytes(report.bytes.perDeliveredMessage)) per delivered event or message",
            "- Event latency (\(report.latencyMs.count) samples): " + latencies(report.latencyMs),
            "- Message latency (\(report.uplinkLatencyMs.count) samples): " + latencies(report.uplinkLatencyMs),
            "- Events: \(report.events.sent) sent, \(report.events.delivered) delivered, \(report.events.lost) lost, "
                + "\(report.events.inFlight) in flight, \(report.events.duplicated) duplicated, \(report.events.outOfOrder) out of order",
            "- Messages: \(report.messages.sent) sent, \(report.messages.delivered) delivered, \(report.messages.lost) lost, "
                + "\(report.messages.inFlight) in flight, \(report.messages.duplicated) sent again and ignored by id",
            "- Reconnects: \(report.reconnects) (per device \(format.plusMinus(radio.reconnects)), max "
                + "\(Int(radio.reconnects.max))); recoveries after a gap: \(report.recoverySeconds.count), mean "
                + "\(format.seconds(report.recoverySeconds.mean)), max \(format.seconds(report.recoverySeconds.max))"
                + (report.migrations.map { "; migrations to a new address: \($0)" } ?? ""),
            "- Client: \(report.client.failedAttempts) failed attempts, \(report.client.callRenewals) call renewals, "
                + "\(report.client.receiveBufferDrops) receive-buffer drops, \(report.client.outboxDrops) outbox drops",
            "- Radio per device (\(report.radioFleetTotal.model)): awake \(format.plusMinus(radio.wakeSeconds)) s, "
                + "\(format.plusMinus(radio.promotions)) promotions, \(format.plusMinus(radio.energyJoules, "%.2f")) J, "
                + "\(format.plusMinus(radio.meanPowerMilliwatts, "%.0f")) mW",
            "- Time by state per device: \(states.isEmpty ? "no radio" : states)",
        ]
    }

    static func latencies(_ latency: BenchReport.Latency) -> String {
        guard latency.count > 0 else { return "no samples" }
        let format = ReportFormatting.milliseconds
        return "p50 \(format(latency.p50)), p95 \(format(latency.p95)), p99 \(format(latency.p99)), max \(format(latency.max))"
    }

    /// The server's events and the clients' messages, as the report's JSON keeps them.
    static func workloadLines(_ workload: BenchReport.WorkloadSummary) -> [String] {
        [
            "- Server events: a Poisson process per device, mean gap \(Quantity.formatDuration(workload.eventMeanGapSeconds)), "
                + "\(workload.eventPayloadBytes) B payload",
            "- Client messages: one every \(Quantity.formatDuration(workload.messageIntervalSeconds)) per device, "
                + "\(workload.messagePayloadBytes) B payload; outbox of \(workload.outboxLimit)",
        ]
    }

    static func settings(_ result: BenchResult) -> [String] {
        let client = result.clientSettings
        let grpc = client.grpc
        let backoff = { (backoff: Backoff) in
            "\(Quantity.formatDuration(backoff.initial)) ×\(Quantity.trimmed(backoff.multiplier)) up to "
                + "\(Quantity.formatDuration(backoff.maximum)), jitter ±\(Quantity.trimmed(backoff.jitter * 100))%"
        }
        return workloadLines(result.report.workload) + [
            "- Client settings: " + ClientSettings.describe(source: client.source).markdownText,
            "- REST: poll every \(Quantity.formatDuration(client.rest.pollInterval)), request timeout "
                + "\(client.rest.requestTimeout.map(Quantity.formatDuration) ?? "none"), backoff \(backoff(client.rest.backoff))",
            "- WebSocket: ping every \(client.ws.pingInterval.map(Quantity.formatDuration) ?? "never (none)"), backoff "
                + "\(backoff(client.ws.backoff))",
            "- gRPC: keepalive \(Quantity.formatDuration(grpc.keepaliveTime)) / \(Quantity.formatDuration(grpc.keepaliveTimeout)), "
                + "permit without calls \(grpc.permitWithoutCalls), backoff \(backoff(grpc.backoff)), call time limit "
                + "\(grpc.callTimeLimit.map(Quantity.formatDuration) ?? "none"), receive buffer \(grpc.receiveBuffer)",
        ] + quicSettings(result, backoff: backoff) + strategySettings(result)
    }

    /// The QUIC client's line, for a run that played it.
    private static func quicSettings(_ result: BenchResult, backoff: (Backoff) -> String) -> [String] {
        guard result.report.transports[.quic] != nil else { return [] }
        let quic = result.clientSettings.quic
        return [
            "- QUIC: PING after \(quic.keepAlivePeriod.map(Quantity.formatDuration) ?? "never (none)") without a packet, idle timeout "
                + "\(Quantity.formatDuration(quic.effectiveIdleTimeout)) (client \(Quantity.formatDuration(quic.maxIdleTimeout)), server "
                + "\(Quantity.formatDuration(quic.serverIdleTimeout))), handshake timeout \(Quantity.formatDuration(quic.handshakeTimeout)), "
                + "0-RTT \(quic.zeroRTT), on a new address: \(quic.onNetworkChange.rawValue), backoff \(backoff(quic.backoff))"
        ]
    }

    // MARK: Strategies: batching (2) and slow consumers (5)

    /// The strategy keys that are set, one line each (none when every one is off).
    static func strategySettings(_ result: BenchResult) -> [String] {
        let workload = result.workload
        let client = result.clientSettings
        var lines: [String] = []
        if workload.messageBurst > 1 {
            lines.append(
                "- Client message bursts: \(workload.messageBurst) messages over \(Quantity.formatDuration(workload.messageBurstSpan)) "
                    + "every \(Quantity.formatDuration(workload.messageInterval))")
        }
        if let burst = workload.serverBurst {
            lines.append(
                "- Server burst: \(burst.events) events per device at \(Quantity.trimmed(burst.eventsPerSecond))/s from "
                    + Quantity.formatDuration(burst.at))
        }
        if let batching = client.batching {
            lines.append(
                "- Batching: up to \(batching.maxMessages) messages, flushed after \(Quantity.formatDuration(batching.flushAfter))")
        }
        if let consumer = client.consumer {
            lines.append(
                "- Consumer: the app handles \(Quantity.trimmed(consumer.eventsPerSecond)) events/s; WebSocket receive buffer "
                    + "\(client.ws.receiveBuffer)")
        }
        return lines
    }
}
