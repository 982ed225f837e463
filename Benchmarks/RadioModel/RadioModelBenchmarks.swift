import Benchmark
import NetsimCore

/// The radio model's throughput in activity events per second. The capture analyzer feeds it
/// whole captures (millions of packets), and every chunk through the proxy passes it, so it
/// must handle millions of events per second.
///
/// Run: `NETSIM_BENCHMARKS=1 swift package benchmark --target RadioModelBenchmarks`.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        scalingFactor: .mega,
        maxDuration: .seconds(5),
        maxIterations: 20)

    /// A capture-like activity stream: bursts of packets a few milliseconds apart, separated by
    /// idle gaps long enough for tails and promotions, in both directions.
    let activity: [(gap: Double, direction: Direction, bytes: Int)] = {
        var random = SeededRandom(seed: 1)
        return (0..<65_536).map { _ in
            let gap = random.unitInterval() < 0.02 ? 5 + random.unitInterval() * 30 : random.unitInterval() * 0.01
            return (gap, random.unitInterval() < 0.3 ? .up : .down, random.unitInterval() < 0.5 ? 66 : 1448)
        }
    }()

    for technology in [RadioTechnology.lte, .umts, .nrSA, .wifi] {
        let stages = RadioStages(.defaults(for: technology))!

        Benchmark("\(technology.rawValue): live admission (settle + admit + transmitted)") { benchmark in
            var radio = RadioStateMachine(stages, pagingPhase: 0.5)
            var time = 0.0
            for iteration in benchmark.scaledIterations {
                let event = activity[iteration & 65_535]
                time += event.gap
                // As the proxy does: the clock has reached the chunk's read time.
                radio.settle(through: time)
                let admission = radio.admit(at: time, direction: event.direction, bytes: event.bytes)
                radio.transmitted(from: admission.start, to: admission.start, direction: event.direction, bytes: event.bytes)
            }
            blackHole(radio.report(until: time))
        }

        Benchmark("\(technology.rawValue): capture analysis (observe)") { benchmark in
            var radio = RadioStateMachine(stages)
            var time = 0.0
            for iteration in benchmark.scaledIterations {
                let event = activity[iteration & 65_535]
                time += event.gap
                radio.observe(at: time, direction: event.direction, bytes: event.bytes)
            }
            blackHole(radio.report(until: time))
        }
    }
}
