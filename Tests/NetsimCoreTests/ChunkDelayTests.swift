import NetsimTestSupport
import Testing

@testable import NetsimCore

/// The delay added to each chunk (`DeviceModel.chunkDelays`), on injected times: the run report's
/// per-chunk figures, checked against what the profile's numbers give by hand.
@Suite(.computes) struct ChunkDelayTests {
    /// An LTE phone (promotion 0.26 s, radio-parameters.md) whose links add 20 ms up and 50 ms down.
    func lteProfile() -> Profile {
        Profile(
            name: "lte", description: "",
            networks: [
                Network(name: "lte", radio: .lte(LTERadioParameters()), up: LinkParameters(delay: 0.02), down: LinkParameters(delay: 0.05))
            ],
            start: "lte")
    }

    @Test func thePromotionIsTheRadiosPartOfTheFirstChunksDelayAndTheLinksDelayTheRest() {
        var device = DeviceModel(profile: lteProfile(), seed: 1, recordsChunkDelays: true)
        let connection = device.openConnection(at: 0)
        // From IDLE: the first chunk waits 0.26 s for the promotion, then 20 ms on the link.
        _ = device.send(100, .up, on: connection, at: 30)
        // Nineteen more 10 ms apart, in continuous reception: the link's 20 ms only.
        for index in 1...19 { _ = device.send(100, .up, on: connection, at: 30.29 + Double(index) * 0.01) }

        let up = device.chunkDelays(until: 60)!.up
        #expect(up.chunks == 20)
        // A bucket's value: three significant digits.
        #expect(abs(up.added.p50Seconds - 0.02) < 0.0001)
        #expect(abs(up.added.p95Seconds - 0.02) < 0.0001, "the 19th of 20 sorted delays")
        #expect(abs(up.added.maxSeconds - 0.28) < 1e-9, "the maximum is exact")
        #expect(up.radioWait.p50Seconds == 0 && up.radioWait.p95Seconds == 0)
        #expect(abs(up.radioWait.maxSeconds - 0.26) < 1e-9)
        #expect(abs(up.linkWait.p50Seconds - 0.02) < 0.0001 && abs(up.linkWait.maxSeconds - 0.02) < 1e-9)
        #expect(device.chunkDelays(until: 60)!.down == ChunkDelayFigures())
    }

    /// The model engine's devices do not record: they report no chunk delays, whatever they sent.
    @Test func aDeviceThatDoesNotRecordReportsNoChunkDelays() {
        var device = DeviceModel(profile: lteProfile(), seed: 1)
        let connection = device.openConnection(at: 0)
        _ = device.send(100, .up, on: connection, at: 30)
        _ = device.send(100, .down, on: connection, at: 31)
        #expect(device.chunkDelays(until: 60) == nil)
    }

    @Test func aChunkCountsOnceDeliveredSoAReportStopsWhereTheRunStopped() {
        var device = DeviceModel(profile: lteProfile(), seed: 1, recordsChunkDelays: true)
        let connection = device.openConnection(at: 0)
        _ = device.send(100, .up, on: connection, at: 30)  // delivered at 30.28
        #expect(device.chunkDelays(until: 30.27)!.up.chunks == 0)
        #expect(device.chunkDelays(until: 30.28)!.up.chunks == 1)
        // Settled by a later send, it still counts once.
        _ = device.send(100, .down, on: connection, at: 31)
        let delays = device.chunkDelays(until: 40)!
        #expect(delays.up.chunks == 1)
        #expect(delays.down.chunks == 1)
        // 0.72 s after the last bytes the radio is in DRX: the chunk waits for an on-duration,
        // then the link's 50 ms.
        #expect(delays.down.radioWait.maxSeconds > 0)
        #expect(abs(delays.down.linkWait.maxSeconds - 0.05) < 1e-9)
        #expect(abs(delays.down.added.maxSeconds - 0.05 - delays.down.radioWait.maxSeconds) < 1e-9)
    }

    @Test func anOutageHeldChunkWaitsOnTheLinkNotTheRadio() {
        let outage = TimelineEvent(at: 10, kind: .outage(duration: 5, mode: .stall))
        let profile = Profile(
            name: "stall", description: "",
            networks: [Network(name: "net", radio: .none, up: LinkParameters(delay: 0.02), down: LinkParameters())],
            start: "net", timeline: Timeline(events: [outage]))
        var device = DeviceModel(profile: profile, seed: 1, recordsChunkDelays: true)
        let connection = device.openConnection(at: 0)
        guard case .deliver(let delivery) = device.send(100, .up, on: connection, at: 11) else {
            Issue.record("not delivered")
            return
        }
        let up = device.chunkDelays(until: 100)!.up
        #expect(delivery.at > 15, "held until the stall ends and TCP retransmits")
        #expect(abs(up.added.maxSeconds - (delivery.at - 11)) < 1e-9)
        #expect(up.radioWait.maxSeconds == 0)
        #expect(abs(up.linkWait.maxSeconds - (delivery.at - 11)) < 1e-9)
    }

    @Test func aModelThatWasNotAskedRecordsNothing() {
        var device = DeviceModel(profile: lteProfile(), seed: 1)
        let connection = device.openConnection(at: 0)
        _ = device.send(100, .up, on: connection, at: 30)
        #expect(device.chunkDelays(until: 60) == nil)
    }

    @Test func aDistributionKeepsZeroApartAndItsMaximumExact() {
        var distribution = DelayDistribution()
        #expect(distribution.summary == DelaySummary())
        for _ in 0..<90 { distribution.record(seconds: 0) }
        for _ in 0..<10 { distribution.record(seconds: 1.2345678) }
        #expect(distribution.count == 100)
        #expect(distribution.summary.p50Seconds == 0)
        #expect(abs(distribution.summary.p95Seconds - 1.2345678) < 0.002)
        #expect(distribution.summary.maxSeconds == 1.2345678)
    }
}
