/// Which test woke the radio: a run's radio promotions, wake time and energy, each given to the
/// test case of the user's own runner that was running when it happened (`netsim run
/// --junit-in`).
public struct TestRadioFigures: Sendable, Codable, Equatable {
    /// The test case as its runner named it (`classname.name`), or `(no test running)` for what
    /// fell outside every test case.
    public var test: String
    /// When it started, seconds into the run, and how long it ran (nil for the outside row).
    public var startSeconds: Double?
    public var seconds: Double?
    /// Promotions (the radio's PROMOTION state) that began while it ran.
    public var promotions: Int
    /// Radio time not IDLE while it ran, promotions included.
    public var wakeSeconds: Double
    /// Radio energy while it ran: each state's time at that state's mean power over the run.
    public var energyJoules: Double

    public static let outside = "(no test running)"
}

extension RadioReport {
    /// The radio's timeline divided among `tests` (name, start in seconds into the run,
    /// duration): a promotion goes to every test whose [start, start + duration] holds its
    /// start (runners that run tests in parallel overlap them), and to the outside row when
    /// none does; wake time and energy to each test by overlap. Empty without a timeline.
    public func byTest(_ tests: [(name: String, start: Double, seconds: Double)]) -> [TestRadioFigures] {
        guard let timeline else { return [] }
        let power = Dictionary(
            uniqueKeysWithValues: secondsByState.compactMap { state, seconds in
                seconds > 0 ? (state, (energyJoulesByState[state] ?? 0) / seconds) : nil
            })
        var rows = tests.map {
            TestRadioFigures(test: $0.name, startSeconds: $0.start, seconds: $0.seconds, promotions: 0, wakeSeconds: 0, energyJoules: 0)
        }
        var outside = TestRadioFigures(test: TestRadioFigures.outside, promotions: 0, wakeSeconds: 0, energyJoules: 0)
        for segment in timeline where segment.end > segment.start || segment.state == .promotion {
            let awake = segment.state != .idle
            var covered = 0.0
            var promotionPlaced = false
            for index in rows.indices {
                let start = tests[index].start
                let end = start + tests[index].seconds
                if segment.state == .promotion, segment.start >= start, segment.start <= end {
                    rows[index].promotions += 1
                    promotionPlaced = true
                }
                let overlap = max(0, min(end, segment.end) - max(start, segment.start))
                guard overlap > 0 else { continue }
                covered += overlap
                if awake { rows[index].wakeSeconds += overlap }
                rows[index].energyJoules += overlap * (power[segment.state] ?? 0)
            }
            if segment.state == .promotion, !promotionPlaced { outside.promotions += 1 }
            // What no test covered (overlapping tests can cover more than the segment).
            let uncovered = max(0, (segment.end - segment.start) - covered)
            if awake { outside.wakeSeconds += uncovered }
            outside.energyJoules += uncovered * (power[segment.state] ?? 0)
        }
        return rows + [outside]
    }
}
