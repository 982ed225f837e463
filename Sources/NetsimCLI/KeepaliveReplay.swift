import Logging
import NetsimBench
import NetsimCore
import NetsimTune

/// The keepalive tuner's `--verify`: its plans played on the live bench. Here, above both
/// NetsimTune and NetsimBench, so that neither depends on the other.
extension KeepaliveVerification {
    /// Plays every plan live, all at once: for each, the bench's gRPC server with the plan's
    /// keepalive policy, one emulated phone (a proxy on the plan's profile, with its NAT,
    /// impairments) and the bench's gRPC client on an idle open stream, every timer of
    /// proxy, client, server and workload running `timeScale` times faster than the wall clock.
    /// One measurement per plan, in order; `onProgress` gets the emulated seconds played.
    func playLive(
        timeScale: Double, logger: Logger, onProgress: @escaping @Sendable (Double) -> Void = { _ in }
    ) async throws -> [LiveMeasurement] {
        try await withThrowingTaskGroup(of: (Int, LiveMeasurement).self) { group in
            for (index, plan) in plans.enumerated() {
                group.addTask {
                    var configuration = BenchConfiguration(profile: plan.profile)
                    configuration.transports = [.grpc]
                    configuration.devices = 1
                    configuration.duration = plan.horizon
                    // Device 0's seed is the configuration's: the model's device seed.
                    configuration.seed = plan.deviceSeed
                    configuration.workload = plan.workload
                    configuration.client.grpc = plan.client
                    configuration.grpcServerPolicy = plan.serverPolicy
                    configuration.timeScale = timeScale
                    let reportsProgress = index == 0
                    let played = try await BenchRunner.playDevices(configuration, logger: logger) { progress in
                        if reportsProgress { onProgress(min(progress.elapsedSeconds, plan.horizon)) }
                    }
                    guard let device = played[.grpc]?.first else {
                        throw BenchRunner.ConfigurationProblem(description: "the live replay of \(plan.profileName) measured nothing")
                    }
                    return (index, LiveMeasurement(device))
                }
            }
            var measurements = [LiveMeasurement?](repeating: nil, count: plans.count)
            for try await (index, measurement) in group { measurements[index] = measurement }
            return measurements.compactMap { $0 }
        }
    }
}

extension KeepaliveVerification.LiveMeasurement {
    /// The replay's view of one device of a live bench.
    init(_ device: LiveDeviceOutcome) {
        self.init(
            radio: device.proxy.radio, events: device.proxy.events, openCallEnds: device.connectionLossesNoticed, end: device.end,
            eventCounts: device.proxy.eventCounts, bytes: device.proxy.bytes, connectionsOpened: device.proxy.connections.opened)
    }
}
