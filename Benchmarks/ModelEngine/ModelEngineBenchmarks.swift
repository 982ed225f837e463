import Benchmark
import NetsimCore
import NetsimInput
import NetsimModel
import NetsimTune

/// The model engine at the horizons it exists for: a fleet of phones on every transport for a
/// day of the default workload. Reports the wall time of a whole run, its peak memory, and the
/// occurrences (frames, timers, workload and timeline events) it handles per second.
///
/// Run: `NETSIM_BENCHMARKS=1 swift package benchmark --target ModelEngineBenchmarks`.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .peakMemoryResident, .custom("occurrences per second", polarity: .prefersLarger, useScalingFactor: false)],
        timeUnits: .seconds,
        maxDuration: .seconds(600),
        maxIterations: 3)

    let fleets: [(devices: Int, hours: Double)] = [(100, 24), (1000, 24)]
    for (devices, hours) in fleets {
        Benchmark("lte-tunnel, \(devices) devices per transport, \(Int(hours)) h, rest + ws + grpc") { benchmark in
            var configuration = BenchPlan(profile: try ProfileCatalog.builtin(named: "lte-tunnel"))
            configuration.devices = devices
            configuration.duration = hours * 3600
            configuration.chartedDevices = 0
            benchmark.startMeasurement()
            let start = ContinuousClock.now
            let result = ModelEngine.run(configuration)
            let elapsed = ContinuousClock.now - start
            benchmark.stopMeasurement()
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            benchmark.measurement(
                .custom("occurrences per second", polarity: .prefersLarger, useScalingFactor: false), Int(Double(result.steps) / seconds))
            blackHole(result)
        }
    }

    // `netsim tune keepalive` with every default: 47 gRPC configurations, lte-good, umts-3g
    // and nr-sa, eight NAT timeouts, 20 seeds, 6 h each (22,560 runs).
    Benchmark("tune keepalive, the default sweep", configuration: .init(maxIterations: 1)) { benchmark in
        let profiles = try ["lte-good", "umts-3g", "nr-sa"].map { try ProfileCatalog.builtin(named: $0) }
        benchmark.startMeasurement()
        let results = try KeepaliveSweep(profiles: profiles).run()
        benchmark.stopMeasurement()
        blackHole(results)
    }
}
