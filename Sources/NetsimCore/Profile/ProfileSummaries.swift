import Foundation

/// One-line, human-readable renderings of profile values in profile units, for
/// `netsim profiles show` and `list`, run banners and reports.
extension Quantity {
    /// A fraction as a percentage: 0.005 -> "0.5%".
    public static func formatPercentage(_ fraction: Double) -> String {
        "\(trimmed(fraction * 100))%"
    }

    /// A size the way a profile would write it: "256KiB", "2MiB", "100packets", else bytes.
    public static func formatByteCount(_ bytes: Int) -> String {
        if bytes >= 1_048_576, bytes % 1_048_576 == 0 { return "\(bytes / 1_048_576)MiB" }
        if bytes >= 1024, bytes % 1024 == 0 { return "\(bytes / 1024)KiB" }
        if bytes >= 1500, bytes % 1500 == 0 { return "\(bytes / 1500)packets" }
        return "\(bytes)B"
    }
}

extension LinkCapacity {
    /// "12mbps", "unlimited", or "trace traces/x.down (~4.4mbps mean, 30s period)".
    public var summary: String {
        guard case .trace(let trace) = self else { return shortSummary }
        return "trace \(trace.source) (~\(Self.approximate(trace.meanBitsPerSecond)) mean,"
            + " \(Quantity.formatDuration(trace.period)) period)"
    }

    /// "12mbps", "unlimited", or "trace ~4.4mbps", for tables.
    public var shortSummary: String {
        switch self {
        case .unlimited: "unlimited"
        case .rate(let bitsPerSecond): Quantity.formatBitRate(bitsPerSecond)
        case .trace(let trace): "trace ~\(Self.approximate(trace.meanBitsPerSecond))"
        }
    }

    /// A trace's mean rate to two significant digits: more would suggest a precision a
    /// variable link does not have.
    private static func approximate(_ bitsPerSecond: Double) -> String {
        guard bitsPerSecond > 0 else { return Quantity.formatBitRate(bitsPerSecond) }
        let unit = pow(10, (log10(bitsPerSecond)).rounded(.down) - 1)
        return Quantity.formatBitRate((bitsPerSecond / unit).rounded() * unit)
    }
}

extension Jitter {
    /// "5ms uniform", or "5ms uniform, datagrams reordered" where the profile asks for it.
    public var summary: String {
        "\(Quantity.formatDuration(amount)) \(distribution.rawValue)\(reordersDatagrams ? ", datagrams reordered" : "")"
    }
}

extension LossModel {
    /// "none", "0.5%", or "gilbert-elliott (enter bad 1%, leave bad 30%, loss in bad 100%, in good 0%)".
    public var summary: String {
        switch self {
        case .none: "none"
        case .independent(let probability): Quantity.formatPercentage(probability)
        case .gilbertElliott(let enterBad, let leaveBad, let lossInBad, let lossInGood):
            "gilbert-elliott (enter bad \(Quantity.formatPercentage(enterBad)),"
                + " leave bad \(Quantity.formatPercentage(leaveBad)),"
                + " loss in bad \(Quantity.formatPercentage(lossInBad)), in good \(Quantity.formatPercentage(lossInGood)))"
        }
    }
}

extension LinkParameters {
    /// "rate 12mbps, delay 25ms, jitter 5ms uniform, loss 0.5%, queue 256KiB"; jitter, loss
    /// and queue only when set.
    public var summary: String {
        // As a change setting every field, leaving out (nil) the optional ones that are unset.
        LinkChange(
            capacity: capacity, delay: delay, jitter: jitter.map { Optional($0) }, loss: loss == .none ? nil : loss,
            queueLimit: queueLimit.map { Optional($0) }
        ).summary
    }
}

extension LinkChange {
    /// The fields the change sets, as "rate 1mbps, jitter none"; "no change" when empty.
    public var summary: String {
        var parts: [String] = []
        if let capacity { parts.append(capacity.isTrace ? capacity.summary : "rate \(capacity.summary)") }
        if let delay { parts.append("delay \(Quantity.formatDuration(delay))") }
        if let jitter { parts.append("jitter \(jitter?.summary ?? "none")") }
        if let loss { parts.append("loss \(loss.summary)") }
        if let queueLimit { parts.append("queue \(queueLimit.map(Quantity.formatByteCount) ?? "unlimited")") }
        return parts.isEmpty ? "no change" : parts.joined(separator: ", ")
    }
}

extension LinkCapacity {
    fileprivate var isTrace: Bool {
        if case .trace = self { return true }
        return false
    }
}

extension TimelineEvent {
    /// What the event does, without its time: "outage 30s (stall)", "handover to lte (reset,
    /// 2s gap)", "set on lte: down rate 1mbps".
    public var summary: String {
        switch kind {
        case .outage(let duration, let mode):
            return "outage \(Quantity.formatDuration(duration)) (\(mode.rawValue))"
        case .handover(let network, let mode, let gap):
            let gapNote = gap > 0 ? ", \(Quantity.formatDuration(gap)) gap" : ""
            return "handover to \(network) (\(mode.rawValue)\(gapNote))"
        case .set(let network, let up, let down):
            let target = network.map { "set on \($0)" } ?? "set"
            if up == down { return "\(target): \(up.summary) both ways" }
            let changes = [("up", up), ("down", down)].filter { !$0.1.isEmpty }.map { "\($0.0) \($0.1.summary)" }
            return "\(target): \(changes.joined(separator: "; "))"
        case .signal(let rsrp):
            return "signal \(Quantity.trimmed(rsrp))dBm"
        }
    }
}
