import Foundation
import NetsimCore
import NetsimModel

/// The model engine against the live bench it stands in for (docs/model-engine.md): two bench
/// reports of the same profile, seed, fleet and duration, compared per transport within the
/// engine's acceptance bounds. The one place those bounds live: `EngineAgreementTests` and
/// `netsim report agree` (scripts/compare-engines.sh) both judge with it.
public struct EngineAgreement: Sendable {
    public enum Bound: Sendable, Equatable, CustomStringConvertible {
        /// Within a fraction of the live figure.
        case within(fraction: Double)
        case equal
        /// Within this many of the live figure (a count).
        case withinCount(Int)
        /// Within a fraction of the live figure, or within `amount` of it: for a per-device mean
        /// of small counts, where one device one count apart is a large fraction.
        case withinFractionOr(fraction: Double, amount: Double)
        /// Shown for reference, never judged.
        case shown

        public var description: String {
            switch self {
            case .within(let fraction): String(format: "within %.0f%%", fraction * 100)
            case .equal: "equal"
            case .withinCount(let count): "within \(count)"
            case .withinFractionOr(let fraction, let amount):
                String(format: "within %.0f%% or ", fraction * 100) + Quantity.trimmed(amount)
            case .shown: "shown"
            }
        }

        func holds(live: Double, model: Double) -> Bool {
            switch self {
            case .within(let fraction): abs(model - live) <= fraction * abs(live) + 1e-9
            case .equal: live == model
            case .withinCount(let count): abs(model - live) <= Double(count)
            case .withinFractionOr(let fraction, let amount): abs(model - live) <= max(fraction * abs(live), amount) + 1e-9
            case .shown: true
            }
        }
    }

    public struct Row: Sendable {
        public var transport: BenchTransport
        public var figure: String
        public var live: Double
        public var model: Double
        public var bound: Bound
        public var holds: Bool { bound.holds(live: live, model: model) }
    }

    public let live: BenchReport
    public let model: BenchReport
    public let rows: [Row]

    /// Every transport both reports have: bytes, wake time and energy within 10%, promotions
    /// per device within 10% or two devices one promotion apart (a live device's radio timers
    /// race its wall-clock timers, and on lte-tunnel, with two promotions a device, a CI run
    /// found two of ten a promotion short while wake time and energy agreed), events and
    /// messages delivered equal, reconnects within one per device over the fleet.
    public init(live: BenchReport, model: BenchReport) {
        self.live = live
        self.model = model
        let devices = live.devicesPerTransport
        var rows: [Row] = []
        for (transport, a) in live.orderedTransports {
            guard let b = model.transports[transport] else { continue }
            let row = { (figure: String, live: Double, model: Double, bound: Bound) in
                rows.append(Row(transport: transport, figure: figure, live: live, model: model, bound: bound))
            }
            let tenPercent = Bound.within(fraction: 0.1)
            row("payload bytes/min", a.bytes.perMinute, b.bytes.perMinute, tenPercent)
            row("wire bytes/min", a.bytes.wire.perMinute, b.bytes.wire.perMinute, tenPercent)
            row(
                "promotions/device", a.perDevice.promotions.mean, b.perDevice.promotions.mean,
                .withinFractionOr(fraction: 0.1, amount: 2 / Double(max(devices, 1))))
            row("wake s/device", a.perDevice.wakeSeconds.mean, b.perDevice.wakeSeconds.mean, tenPercent)
            row("energy J/device", a.perDevice.energyJoules.mean, b.perDevice.energyJoules.mean, tenPercent)
            row("events delivered", Double(a.events.delivered), Double(b.events.delivered), .equal)
            row("messages delivered", Double(a.messages.delivered), Double(b.messages.delivered), .equal)
            row("reconnects (fleet)", Double(a.reconnects), Double(b.reconnects), .withinCount(devices))
            row("p95 event latency ms", a.latencyMs.p95, b.latencyMs.p95, .shown)
        }
        self.rows = rows
    }

    public var agrees: Bool { rows.allSatisfy(\.holds) }

    /// The rows as a Markdown table, a missed bound in bold.
    public var markdown: String {
        var lines = [
            "profile \(live.profile), seed \(live.seed), \(live.devicesPerTransport) devices, "
                + String(format: "%.0f s", live.durationSeconds),
            "",
            "| transport | figure | live | model | model/live | bound |",
            "|---|---|---:|---:|---:|---|",
        ]
        for row in rows {
            let ratio = row.live != 0 ? String(format: "%.3f", row.model / row.live) : "-"
            lines.append(
                "| \(row.transport.rawValue) | \(row.figure) | " + String(format: "%.1f | %.1f", row.live, row.model)
                    + " | \(ratio) | \(row.bound)\(row.holds ? "" : " **missed**") |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
