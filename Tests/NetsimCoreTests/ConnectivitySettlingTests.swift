import NetsimTestSupport
import Testing

@testable import NetsimCore

/// `Profile.connectivitySettles`: a bench's drain relies on it being no earlier than any
/// delivery the device model schedules for bytes sent into the profile's gaps.
@Suite(.computes) struct ConnectivitySettlingTests {
    static func profile(_ events: [TimelineEvent], repeatPeriod: Double? = nil) -> Profile {
        Profile(
            name: "gaps", description: "",
            networks: [Network(name: "cell", radio: .none, up: LinkParameters(delay: 0.035), down: LinkParameters(delay: 0.035))],
            start: "cell", timeline: Timeline(events: events, repeatPeriod: repeatPeriod))
    }

    @Test(arguments: [
        [TimelineEvent(at: 45, kind: .outage(duration: 30, mode: .stall))],
        [
            TimelineEvent(at: 5, kind: .outage(duration: 3, mode: .stall)),
            TimelineEvent(at: 9, kind: .handover(to: "cell", mode: .keep, gap: 2)),
        ],
        [TimelineEvent(at: 1, kind: .outage(duration: 200, mode: .stall))],
    ])
    func nothingSentIntoAGapArrivesAfterConnectivitySettles(_ events: [TimelineEvent]) {
        let profile = Self.profile(events)
        let end = 60.0
        let settles = profile.connectivitySettles(forTrafficUntil: end)
        var device = DeviceModel(profile: profile, seed: 1)
        let connection = device.openConnection(at: 0)
        var latest = 0.0
        for step in 0..<Int(end * 10) {
            let time = Double(step) / 10
            _ = device.advance(to: time)
            guard case .deliver(let delivery) = device.send(100, .up, on: connection, at: time) else { continue }
            latest = max(latest, delivery.at)
        }
        #expect(latest <= settles, "delivered at \(latest), settled at \(settles)")
        #expect(settles - latest < ConnectivityGaps.maximumBackoff)
    }

    @Test func withoutGapsOrAfterTheLastOneItIsTheEndOfTheTraffic() {
        #expect(Self.profile([]).connectivitySettles(forTrafficUntil: 60) == 60)
        let outage = Self.profile([TimelineEvent(at: 45, kind: .outage(duration: 30, mode: .stall))])
        #expect(outage.connectivitySettles(forTrafficUntil: 200) == 200)
        #expect(outage.connectivitySettles(forTrafficUntil: 40) == 40)
        // A repeating timeline: the last repetition that began by the end counts, and bytes
        // held by an earlier one landed long before it.
        let repeating = Self.profile([TimelineEvent(at: 5, kind: .outage(duration: 2, mode: .stall))], repeatPeriod: 20)
        #expect(abs(repeating.connectivitySettles(forTrafficUntil: 46) - (47 + 2 + 0.27)) < 1e-9)
    }
}
