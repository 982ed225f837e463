import NetsimCore
import NetsimProxy
import NetsimModel

/// Everything one bench run needs.
public struct BenchConfiguration: Sendable {
    public var profile: Profile
    public var transports: [BenchTransport] = BenchTransport.allCases
    /// Emulated phones per transport, each with its own proxy (radio and links).
    public var devices = 10
    /// How long the workload runs, in seconds.
    public var duration: Double = 120
    public var seed: UInt64 = 1
    public var workload = Workload()
    public var client = ClientSettings()
    /// The drain's grace: after the workload, the bench waits for events and messages still in
    /// flight until the profile's connectivity has settled (`Profile.connectivitySettles`: its
    /// last outage or gap over and TCP's retransmission after it landed) and this much longer,
    /// for clients to reconnect and resume. What has not arrived then is counted in flight.
    public var drainTimeout: Double = 30

    /// How long after the workload the drain lasts at most.
    public var drainLimit: Double {
        profile.connectivitySettles(forTrafficUntil: duration) - duration + drainTimeout
    }
    /// What watches each device's link (a capture writer per device with `--pcap-dir`).
    public var linkObserver: (@Sendable (_ transport: BenchTransport, _ device: Int) -> (any LinkObserver)?)?

    public init(profile: Profile) {
        self.profile = profile
    }
}

extension BenchConfiguration {
    /// The finished bench of either engine: its JSON report and what the charts draw.
    func result(
        engine: String, drainSeconds: Double, transports: [String: BenchReport.TransportReport],
        charts: [BenchTransport: TransportCharts], profileEvents: [DeviceEvent]
    ) -> BenchResult {
        let report = BenchReport(
            netsimVersion: NetsimVersion.current, engine: engine, profile: profile.name, seed: seed, durationSeconds: duration,
            drain: BenchReport.Drain(limitSeconds: drainLimit, seconds: drainSeconds), devicesPerTransport: devices,
            workload: BenchReport.WorkloadSummary(
                eventMeanGapSeconds: workload.eventMeanGap, eventPayloadBytes: workload.eventPayloadBytes,
                messageIntervalSeconds: workload.messageInterval, messagePayloadBytes: workload.messagePayloadBytes,
                outboxLimit: workload.outboxLimit),
            client: client.source, transports: transports)
        return BenchResult(
            report: report, profile: profile, workload: workload, clientSettings: client, charts: charts,
            profileEvents: profileEvents)
    }
}
