import NetsimCore
import NetsimInput
import NetsimModel
import NetsimTestSupport
import Testing

@testable import NetsimBench

/// One plan for both engines (`BenchPlan`): what a bench is set to reaches the model engine as
/// it reaches the live bench.
@Suite(.computes) struct BenchPlanTests {
    @Test("the live configuration's settings are the plan's")
    func settingsAreThePlans() throws {
        var configuration = BenchConfiguration(profile: try ProfileCatalog.builtin(named: "lte-good"))
        configuration.devices = 3
        configuration.client.grpc.keepaliveTime = 20
        configuration.grpcServerPolicy = .grpcCore
        #expect(configuration.plan.devices == 3 && configuration.plan.client.grpc.keepaliveTime == 20)
        #expect(configuration.plan.grpcServerPolicy == .grpcCore)
        #expect(configuration.drainLimit == configuration.plan.drainLimit)
    }

    /// Found while making the plan one: the model engine was given a copy of the live
    /// configuration that left the server's policy out, so a policing server was played as the
    /// bench's own. A client pinging every 20 s on a quiet stream draws two strikes and a GOAWAY
    /// from gRPC core's server (at most one ping every 5 minutes) and reconnects; the bench's
    /// own server accepts its pings.
    @Test("the gRPC server's policy reaches the model engine")
    func theServerPolicyReachesTheModelEngine() throws {
        var configuration = BenchConfiguration(profile: try ProfileCatalog.builtin(named: "lte-good"))
        configuration.transports = [.grpc]
        configuration.devices = 2
        configuration.duration = 1800
        configuration.workload.eventMeanGap = 3600
        configuration.workload.messageInterval = 3600
        configuration.client.grpc.keepaliveTime = 20
        let accepted = try #require(try ModelBenchRunner.run(configuration) { _ in }.report.transports[.grpc])
        configuration.grpcServerPolicy = .grpcCore
        let policed = try #require(try ModelBenchRunner.run(configuration) { _ in }.report.transports[.grpc])
        #expect(accepted.reconnects == 0)
        #expect(policed.reconnects > 0, "\(policed.reconnects)")
    }
}
