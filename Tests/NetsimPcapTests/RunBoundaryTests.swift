import Foundation
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimPcap

/// A run's start and end records: the start says what the run played, and a start record of an
/// earlier netsim (no JSON) or with JSON that cannot be read is still a start.
@Suite(.computes) struct RunBoundaryTests {
    static func recognize(_ frame: [UInt8]) -> RunBoundary? {
        frame.withUnsafeBytes { RunBoundary.recognize($0, linkType: .ethernet) }
    }

    static func frame(payload: String) -> [UInt8] {
        var frame = FrameEncoder.deviceMAC + FrameEncoder.gatewayMAC + [0x88, 0xB5] + Array(payload.utf8)
        frame += Array(repeating: 0, count: max(0, 60 - frame.count))
        return frame
    }

    @Test func theStartRecordCarriesTheRunsRadio() throws {
        var lte = LTERadioParameters()
        lte.longDRXTime = 1
        let profile = Profile(
            name: "mine", description: "", networks: [Network(name: "4g", radio: .lte(lte), up: LinkParameters(), down: LinkParameters())],
            start: "4g")
        let start = RunStart(profile: profile, seed: 9)
        #expect(start.radio == .lte(lte) && start.network == "4g" && start.seed == 9)
        #expect(Self.recognize(RunBoundary.start(start).frame) == .start(start))
        #expect(Self.recognize(RunBoundary.end.frame) == .end)
        #expect(Self.recognize(Self.frame(payload: "netsim run-start")) == .start(nil))
        #expect(Self.recognize(Self.frame(payload: "netsim run-start {not json")) == .start(nil))
        #expect(Self.recognize(Self.frame(payload: "netsim run-middle")) == nil)
    }
}
