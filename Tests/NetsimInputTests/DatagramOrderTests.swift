import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

/// Cellular links deliver in order (LTE's RLC acknowledged mode, NR's PDCP reordering): on the
/// built-in profiles, jitter delays a flow's datagrams without reordering them. Reordering
/// happens only where a profile asks for it (`reorder: true`).
@Suite(.computes) struct DatagramOrderTests {
    /// When each of 300 datagrams sent 1 ms apart each way is delivered, in send order.
    static func deliveries(_ profile: Profile, seed: UInt64 = 5) -> [Direction: [Double]] {
        var device = DeviceModel(profile: profile, seed: seed)
        let flow = device.openDatagramFlow(at: 0)
        var deliveries: [Direction: [Double]] = [:]
        for index in 0..<300 {
            let time = 1 + Double(index) * 0.001
            for direction in Direction.allCases {
                if case .deliver(let delivery, _) = device.sendDatagram(100, direction, on: flow, at: time) {
                    deliveries[direction, default: []].append(delivery.at)
                }
            }
        }
        return deliveries
    }

    @Test(arguments: ["lte-good", "lte-tunnel", "lte-handover", "nr-nsa", "nr-sa", "subway", "nat-timeout", "very-bad-network"])
    func aBuiltInCellularProfileDeliversAFlowsDatagramsInSendOrder(name: String) throws {
        let profile = try ProfileCatalog.builtin(named: name)
        #expect(profile.networks.contains { $0.down.jitter != nil }, "\(name) has jitter to test")
        for (direction, times) in Self.deliveries(profile) {
            #expect(times.count > 100, "\(name) \(direction): \(times.count) delivered")
            #expect(times == times.sorted(), "\(name) \(direction): datagrams overtook one another")
        }
    }

    /// `lte-good`'s link with `reorder: true`: the same 5 ms of jitter reorders datagrams 1 ms
    /// apart, and a jitter given without `reorder` keeps them in order.
    @Test func aProfileThatAsksForReorderingStillGetsIt() throws {
        func profile(_ jitter: String) throws -> Profile {
            try loadProfile(
                """
                name: reordering
                description: lte-good's link with its jitter as given.
                networks:
                  lte:
                    radio: lte
                    link:
                      delay: 25ms
                      jitter: \(jitter)
                      down: {rate: 12mbps}
                      up: {rate: 5mbps}
                """)
        }
        let reordering = try profile("{amount: 5ms, reorder: true}")
        #expect(reordering.networks[0].down.jitter?.reordersDatagrams == true)
        for (direction, times) in Self.deliveries(reordering) {
            #expect(times != times.sorted(), "\(direction): reorder: true kept the datagrams in order")
        }
        let plain = try profile("5ms")
        #expect(plain.networks[0].down.jitter?.reordersDatagrams == false)
        for (_, times) in Self.deliveries(plain) { #expect(times == times.sorted()) }
    }
}
