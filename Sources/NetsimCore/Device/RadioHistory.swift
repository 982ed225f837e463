/// A stopped device's radio: the reports of the networks it left, the radio of the one it was
/// on, and its chunks' waits. A value that can be written down (`Codable`, infinities as
/// strings: see `ShardParts.json`), so a shard of a model run can hand it to the merge,
/// which reports it until the whole fleet's stop exactly as the unsharded run does.
public struct RadioHistory: Sendable, Codable {
    var earlierReports: [RadioReport]
    var radio: RadioStateMachine?
    var radioStart: Double
    var waits: RadioWaitLedger

    /// The radio figures from the start until `time`, across every network the device was on.
    public func report(until time: Double) -> RadioReport {
        let current = radio?.report(until: time) ?? .noRadio(durationSeconds: max(0, time - radioStart), bytes: .init(up: 0, down: 0))
        return .sequential(earlierReports + [current])
    }

    /// The radio latency of the chunks on air by `time`.
    public func waits(until time: Double) -> RadioWaitTotals {
        waits.totals(until: time)
    }
}
