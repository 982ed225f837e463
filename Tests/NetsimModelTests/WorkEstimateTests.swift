import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimModel

/// Rates and grids were unbounded (`meanGap: 0.001ms` grew one device past
/// 2.5 GB, a 100 x 100 keepalive grid sat at 0% for its 4.8 million runs). The work is
/// estimated before any of it, and what exceeds a bound is named.
@Suite("Work estimate", .computes)
struct WorkEstimateTests {
    static func bench(devices: Int = 10, duration: Double = 120, workload: Workload = Workload()) -> WorkEstimate {
        WorkEstimate.bench(transports: [.ws, .grpc], devices: devices, duration: duration, workload: workload, client: ClientSettings())
    }

    @Test("the default bench and a 20-day fleet of 100 are within every bound")
    func ordinaryRunsPass() {
        #expect(Self.bench().excesses == [])
        let long = Self.bench(devices: 100, duration: 20 * 86_400)
        #expect(long.runs == 200)
        #expect(long.excesses == [])
        // 2,880 events and 1,440 messages a device-day, four occurrences each, and the pings.
        #expect(long.occurrences > 100 * 2 * 20 * 4320 * 4)
    }

    @Test("rates a phone never sees are named with their file keys")
    func excessiveRates() {
        var events = Workload()
        events.eventMeanGap = 0.000_001
        let fastEvents = Self.bench(workload: events)
        #expect(fastEvents.excessiveRates.map(\.key) == ["serverEvents.meanGap"])
        #expect(fastEvents.excesses.contains { $0.hasPrefix("about") && $0.contains("occurrences") })
        #expect(fastEvents.excesses.contains { $0.contains("of memory") })

        var messages = Workload()
        messages.messageInterval = 0.000_001
        #expect(Self.bench(workload: messages).excessiveRates.map(\.key) == ["clientMessages.every"])

        var burst = Workload()
        burst.serverBurst = Workload.ServerBurst(at: 10, events: 2000, eventsPerSecond: 1e9)
        let bursty = Self.bench(workload: burst)
        #expect(bursty.excesses == ["serverBurst.rate asks for 1 G a second per device, over the bound of 10 k"])
    }

    @Test("a keepalive grid of 100 x 100 is refused for its runs and its work; the default sweep is not")
    func keepaliveGrids() {
        let idle = Workload()
        let grid = WorkEstimate.sweep(
            runsPerInterval: 3 * 8 * 20, intervals: Array(repeating: 60, count: 10_000), horizon: 6 * 3600, workload: idle)
        #expect(grid.runs == 4_800_000)
        #expect(grid.excesses.count == 2)
        #expect(grid.excesses.first == "4.8 M runs is over the bound of 1 M")
        let defaults = WorkEstimate.sweep(
            runsPerInterval: 3 * 8 * 20, intervals: Array(repeating: 60, count: 47), horizon: 6 * 3600, workload: idle)
        #expect(defaults.excesses == [])
    }
}
