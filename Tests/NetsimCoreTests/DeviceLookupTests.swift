import Testing

@testable import NetsimCore

/// A front end's name lookup crossing the emulated path (`DeviceModel.lookup`).
extension DeviceModelTests {
    @Test func aLookupTakesOneRoundTrip() {
        var device = DeviceModel(profile: profile(up: LinkParameters(delay: 0.05), down: LinkParameters(delay: 0.05)), seed: 1)
        #expect(abs(device.lookup(at: 1) - 1.1) < 1e-9)
    }

    @Test func aLookupOnAnIdleLTEPhonePaysThePromotionAndTheNextDoesNot() {
        var device = DeviceModel(profile: profile(radio: .lte(LTERadioParameters())), seed: 1)
        #expect(abs(device.lookup(at: 30) - 30.26) < 1e-9)
        #expect(device.lookup(at: 30.5) - 30.5 < 0.05, "a DRX wait at most, no second promotion")
        #expect(device.radioReport(until: 60).promotions == 1)
    }

    @Test func aLookupWakesTheRadioForTheConnectionThatFollows() {
        var device = DeviceModel(profile: profile(radio: .lte(LTERadioParameters())), seed: 1)
        let answer = device.lookup(at: 30)
        let connection = device.openConnection(at: answer)
        #expect(device.handshake(on: connection, at: answer).start == answer)
    }

    @Test func aLookupDuringAnOutageWaitsForItsEnd() {
        let outage = TimelineEvent(at: 10, kind: .outage(duration: 100, mode: .stall))
        var device = DeviceModel(profile: profile(events: [outage]), seed: 1)
        _ = device.advance(to: 20)
        #expect(device.lookup(at: 20) >= 110)
    }
}
