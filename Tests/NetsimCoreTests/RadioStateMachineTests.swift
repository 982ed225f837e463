import Foundation
import NetsimReport
import NetsimTestSupport
import Testing

@testable import NetsimCore

/// Radio models against figures computed by hand from radio-parameters.md.
@Suite(.computes) struct RadioStateMachineTests {
    /// Mean IDLE power on LTE: one 43 ms paging wake at 0.594 W every 1.28 s (about 20 mW).
    let ltePagingWatts = 0.043 * 0.594 / 1.28

    func lteRadio(pagingPhase: Double = 0) -> RadioStateMachine {
        RadioStateMachine(RadioStages(.lte(LTERadioParameters()))!, pagingPhase: pagingPhase, recordsTimeline: true)
    }

    @Test func oneUplinkPacketOnIdleLTEPaysOnePromotionAndTheDocumentedTail() {
        var radio = lteRadio()
        let admission = radio.admit(at: 5, direction: .up, bytes: 100)
        #expect(abs(admission.promotionWait - 0.26) < 1e-12)
        #expect(abs(admission.start - 5.26) < 1e-12)
        radio.transmitted(from: admission.start, to: admission.start, direction: .up, bytes: 100)
        let report = radio.report(until: 100)

        #expect(report.promotions == 1)
        #expect(abs(report.secondsByState[.promotion]! - 0.26) < 1e-9)
        #expect(abs(report.secondsByState[.continuousReception]! - 0.1) < 1e-9)
        #expect(abs(report.secondsByState[.shortDRX]! - 0.02) < 1e-9)
        #expect(abs(report.secondsByState[.longDRX]! - 10) < 1e-9)
        #expect(abs(report.secondsByState[.idle]! - (100 - 10.38)) < 1e-9)
        #expect(abs(report.wakeSeconds - 10.38) < 1e-9)

        // Promotion 0.26 s * 1.21 W; continuous reception 0.1 s * 1.2 W; short DRX one 20 ms
        // cycle of 2 ms at 1.68 W + 18 ms at 1.06 W; long DRX 250 cycles of 2 ms at 1.68 W +
        // 38 ms at 1.06 W; IDLE at the paging duty cycle; 800 bits up at 438.39 mW/Mbps.
        let wakeUpJoules = 0.26 * 1.21 + 0.1 * 1.2 + (0.002 * 1.68 + 0.018 * 1.06) + 250 * (0.002 * 1.68 + 0.038 * 1.06)
        #expect(abs(wakeUpJoules - 11.367) < 0.001, "the reference's 'about 11.4 J' per isolated wake-up")
        let expected = wakeUpJoules + (100 - 10.38) * ltePagingWatts + 0.0008 * 0.43839
        #expect(abs(report.energyJoules - expected) / expected < 0.01)
        #expect(abs(report.energyJoules - expected) < 1e-9)
        #expect(abs(report.meanPowerMilliwatts - expected / 100 * 1000) < 1e-6)

        let states = report.timeline!.map(\.state)
        #expect(states == [.idle, .promotion, .continuousReception, .shortDRX, .longDRX, .idle])
        #expect(abs(report.timeline![4].end - 15.38) < 1e-9)
    }

    @Test func idleLTEAveragesAboutTwentyMilliwatts() {
        let radio = lteRadio()
        let report = radio.report(until: 3600)
        #expect(report.wakeSeconds == 0)
        #expect(abs(report.meanPowerMilliwatts - 19.955) < 0.01)
    }

    @Test func downlinkToIdleLTEWaitsForThePagingOccasionThenPromotes() {
        var radio = lteRadio(pagingPhase: 0.3)
        // Occasions at 0.3 + 1.28 k: 4.14, 5.42, ...
        let admission = radio.admit(at: 5, direction: .down, bytes: 1000)
        #expect(abs(admission.pagingWait - 0.42) < 1e-9)
        #expect(abs(admission.promotionWait - 0.26) < 1e-12)
        #expect(abs(admission.start - 5.68) < 1e-9)
        #expect(radio.state(at: 5.2) == .idle)
        #expect(radio.state(at: 5.5) == .promotion)
        // It woke the radio at the paging occasion, where the promotion began.
        #expect(abs((admission.wokeRadioAt ?? 0) - 5.42) < 1e-9)
    }

    @Test func uplinkDuringAPromotionWaitsForItsEnd() {
        var radio = lteRadio()
        _ = radio.admit(at: 1, direction: .up, bytes: 10)
        let second = radio.admit(at: 1.1, direction: .down, bytes: 10)
        #expect(abs(second.start - 1.26) < 1e-12)
        #expect(abs(second.promotionWait - 0.16) < 1e-9)
        #expect(radio.report(until: 2).promotions == 1)
    }

    /// What the live view attributes a wake-up to: the bytes that found the radio asleep, not
    /// those that waited on a promotion already begun or found it awake.
    @Test func onlyTheBytesThatFindTheRadioAsleepWokeIt() {
        var radio = lteRadio()
        #expect(radio.admit(at: 1, direction: .up, bytes: 10).wokeRadioAt == 1)
        #expect(radio.admit(at: 1.1, direction: .down, bytes: 10).wokeRadioAt == nil)
        radio.transmitted(from: 1.26, to: 1.3, direction: .down, bytes: 10)
        #expect(radio.admit(at: 2, direction: .up, bytes: 10).wokeRadioAt == nil, "long DRX: awake, a scheduling request away")
        // The tail ends 10.12 s after the last activity (0.1 + 0.02 + 10): asleep again at 11.42.
        #expect(radio.admit(at: 12, direction: .up, bytes: 10).wokeRadioAt == 12)
    }

    @Test func downlinkInLongDRXWaitsForTheNextOnDuration() {
        var radio = lteRadio()
        let first = radio.admit(at: 5, direction: .up, bytes: 100)
        radio.transmitted(from: first.start, to: first.start, direction: .up, bytes: 100)
        // Continuous reception until 5.36, short DRX until 5.38, long DRX cycles of 40 ms from 5.38.
        #expect(radio.admit(at: 5.30, direction: .down, bytes: 10).totalWait == 0)
        let inLongDRX = radio.admit(at: 6.0005, direction: .down, bytes: 10)
        #expect(abs(inLongDRX.drxWait - 0.0195) < 1e-9)
        #expect(abs(inLongDRX.start - 6.02) < 1e-9)
        let uplink = radio.admit(at: 6.0005, direction: .up, bytes: 10)
        #expect(abs(uplink.drxWait - 0.005) < 1e-12, "uplink in DRX pays a scheduling request")
        #expect(radio.report(until: 7).promotions == 1)
    }

    @Test func trafficInDRXRestartsTheTailInsteadOfPromoting() {
        var radio = lteRadio()
        for second in stride(from: 1.0, through: 9.0, by: 2.0) {
            let admission = radio.admit(at: second, direction: .up, bytes: 100)
            radio.transmitted(from: admission.start, to: admission.start, direction: .up, bytes: 100)
        }
        let report = radio.report(until: 60)
        #expect(report.promotions == 1)
        // Awake from the first promotion (1.0) until the last packet's tail ends: 9.005 + 10.12.
        #expect(abs(report.wakeSeconds - (9.005 + 10.12 - 1.0)) < 1e-9)
        #expect(abs(radio.tailEnd - 19.125) < 1e-9)
    }

    // MARK: UMTS

    func umtsRadio() -> RadioStateMachine {
        RadioStateMachine(RadioStages(.umts(UMTSRadioParameters()))!, recordsTimeline: true)
    }

    @Test func oneUplinkPacketOnIdleUMTS() {
        var radio = umtsRadio()
        let admission = radio.admit(at: 0, direction: .up, bytes: 100)
        #expect(abs(admission.promotionWait - 2.0) < 1e-12)
        radio.transmitted(from: admission.start, to: admission.start, direction: .up, bytes: 100)
        let report = radio.report(until: 30)
        // i997: promotion 2.0 s at 0.65 W, DCH 4 s at 1.30 W, FACH 10 s at 0.30 W, IDLE 0 W.
        let expected = 2.0 * 0.65 + 4 * 1.30 + 10 * 0.30
        #expect(abs(report.energyJoules - expected) < 1e-9)
        #expect(abs(report.wakeSeconds - 16) < 1e-9)
        #expect(report.timeline!.map(\.state) == [.promotion, .dch, .fach, .idle])
    }

    @Test func fachCarriesSmallTransfersAndPromotesPastTheRLCThreshold() {
        var radio = umtsRadio()
        let first = radio.admit(at: 0, direction: .up, bytes: 100)
        radio.transmitted(from: first.start, to: first.start, direction: .up, bytes: 100)
        // In FACH from 6 s to 16 s. 400 B stays under the 543 B uplink threshold.
        let small = radio.admit(at: 8, direction: .up, bytes: 400)
        #expect(small.totalWait == 0)
        radio.transmitted(from: 8, to: 8, direction: .up, bytes: 400)
        #expect(radio.state(at: 17.9) == .fach, "FACH traffic restarts the FACH timer (until 18 s)")
        #expect(radio.state(at: 18.1) == .idle)
        // 0.1 s later the buffer has drained 400 B at 4000 B/s: another 500 B fits (<= 543).
        #expect(radio.admit(at: 8.1, direction: .up, bytes: 500).totalWait == 0)
        // Immediately after, 100 B more overflows it: FACH -> DCH takes 1.5 s.
        let large = radio.admit(at: 8.1, direction: .up, bytes: 100)
        #expect(abs(large.promotionWait - 1.5) < 1e-12)
        radio.transmitted(from: large.start, to: large.start, direction: .up, bytes: 100)
        let report = radio.report(until: 40)
        #expect(report.promotions == 1)
        #expect(report.promotionsByOrigin == [.idle: 1, .fach: 1])
        #expect(abs(report.secondsByState[.dch]! - 8) < 1e-9)
    }

    // MARK: 5G

    @Test func oneUplinkPacketOnIdleNRStandaloneGoesThroughInactive() {
        var radio = RadioStateMachine(RadioStages(.nr(.standalone))!, recordsTimeline: true)
        let admission = radio.admit(at: 0, direction: .up, bytes: 100)
        #expect(abs(admission.promotionWait - 0.36) < 1e-12)
        radio.transmitted(from: admission.start, to: admission.start, direction: .up, bytes: 100)
        #expect(radio.state(at: 10.0) == .connected)
        #expect(radio.state(at: 12.0) == .inactive)
        #expect(radio.state(at: 15.5) == .idle)
        let report = radio.report(until: 20)
        let expected = 0.36 * 0.70 + 10.2 * 0.70 + 4.8 * ltePagingWatts + (20 - 15.36) * ltePagingWatts + 0.0008 * 0.032
        #expect(abs(report.energyJoules - expected) < 1e-9)
        #expect(abs(report.wakeSeconds - 15.36) < 1e-9, "wake time counts all time not IDLE")
        #expect(report.timeline!.map(\.state) == [.promotion, .connected, .inactive, .idle])
    }

    @Test func nrStandaloneResumesFromInactiveFasterAndCountsItApart() {
        var radio = RadioStateMachine(RadioStages(.nr(.standalone))!)
        let first = radio.admit(at: 0, direction: .up, bytes: 100)
        radio.transmitted(from: first.start, to: first.start, direction: .up, bytes: 100)
        let resume = radio.admit(at: 12, direction: .up, bytes: 100)
        #expect(abs(resume.promotionWait - 0.1) < 1e-12)
        let report = radio.report(until: 30)
        #expect(report.promotions == 1)
        #expect(report.promotionsByOrigin == [.idle: 1, .inactive: 1])
    }

    @Test func nrNonStandaloneHasNoInactiveState() {
        let stages = RadioStages(.nr(.nonStandalone))!
        #expect(stages.stages.map(\.state) == [.connected, .idle])
        #expect(stages.model == "nr-nsa")
    }

    // MARK: WiFi and combinations

    @Test func wifiHasNoPromotionDelayAndAShortTail() {
        var radio = RadioStateMachine(RadioStages(.wifi(WiFiRadioParameters()))!)
        let admission = radio.admit(at: 1, direction: .down, bytes: 1500)
        #expect(admission.totalWait == 0)
        radio.transmitted(from: 1, to: 1.01, direction: .down, bytes: 1500)
        let report = radio.report(until: 11)
        #expect(abs(report.wakeSeconds - 0.26) < 1e-9)
        let expected = 0.26 * 0.403 + (11 - 0.26) * 0.02
        #expect(abs(report.energyJoules - expected) < 1e-9)
    }

    @Test func sequentialReportsAddUp() {
        let lte = lteRadio()
        let wifi = RadioStateMachine(RadioStages(.wifi(WiFiRadioParameters()))!, start: 10)
        let combined = RadioReport.sequential([lte.report(until: 10), wifi.report(until: 20)])
        #expect(combined.model == "lte+wifi")
        #expect(abs(combined.durationSeconds - 20) < 1e-12)
        #expect(abs(combined.secondsByState[.idle]! - 20) < 1e-12)
    }

    @Test func reportEncodesTheDocumentedKeys() throws {
        let radio = lteRadio()
        let json = try String(decoding: JSONEncoder().encode(radio.report(until: 1)), as: UTF8.self)
        for key in ["model", "wakeSeconds", "promotions", "energyJoules", "meanPowerMilliwatts", "secondsByState"] {
            #expect(json.contains("\"\(key)\""))
        }
    }

    /// The per-state figures are keyed by `RadioState` in Swift and by the states' names in
    /// JSON; a report naming a state netsim does not know is refused.
    @Test func perStateFiguresAreObjectsKeyedByStateNames() throws {
        var radio = lteRadio()
        let admission = radio.admit(at: 1, direction: .up, bytes: 100)
        radio.transmitted(from: admission.start, to: admission.start, direction: .up, bytes: 100)
        let report = radio.report(until: 30)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(report)
        struct ByName: Decodable {
            var secondsByState: [String: Double]
            var energyJoulesByState: [String: Double]
            var promotionsByOrigin: [String: Int]
        }
        let byName = try JSONDecoder().decode(ByName.self, from: data)
        #expect(byName.secondsByState == Dictionary(uniqueKeysWithValues: report.secondsByState.map { ($0.key.rawValue, $0.value) }))
        #expect(Set(byName.energyJoulesByState.keys) == ["PROMOTION", "CONTINUOUS_RECEPTION", "SHORT_DRX", "LONG_DRX", "IDLE"])
        #expect(byName.promotionsByOrigin == ["IDLE": 1])
        #expect(try JSONDecoder().decode(RadioReport.self, from: data) == report)

        let unknown = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\"LONG_DRX\"", with: "\"DEEP_SLEEP\"")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(RadioReport.self, from: Data(unknown.utf8)) }
    }

    /// A radio written down by a shard is read back by the merge: a chain the ledger cannot
    /// hold (more than four stages, or a last stage that ends) is refused by name, not run.
    @Test func aChainReadBackHasOneToFourStagesTheLastEndless() throws {
        let lte = RadioStages(.lte(LTERadioParameters()))!
        #expect(try ShardParts.value(RadioStages.self, fromJSON: ShardParts.json(lte)) == lte)
        #expect(try ShardParts.value(RadioStateMachine.self, fromJSON: ShardParts.json(lteRadio())).description == lte)

        var object = try #require(try JSONSerialization.jsonObject(with: ShardParts.json(lte)) as? [String: Any])
        var stages = try #require(object["stages"] as? [Any])
        stages.insert(stages[1], at: 1)
        object["stages"] = stages
        let fiveStages = try JSONSerialization.data(withJSONObject: object)
        let error = #expect(throws: DecodingError.self) { try ShardParts.value(RadioStages.self, fromJSON: fiveStages) }
        #expect("\(error.map { $0 } as Any)".contains("1 to 4 stages, the last lasting forever; this one has 5"))
        object["stages"] = Array(stages.prefix(2))
        #expect(throws: DecodingError.self) {
            try ShardParts.value(RadioStages.self, fromJSON: JSONSerialization.data(withJSONObject: object))
        }
    }
}

/// Offline analysis (a capture's on-air times) must reproduce what the live run reported.
@Suite(.computes) struct RadioAnalysisConsistencyTests {
    @Test(arguments: [RadioTechnology.lte, .umts, .nrNSA, .nrSA, .wifi])
    func observingALiveRunsOnAirTimesReproducesItsReport(technology: RadioTechnology) {
        let stages = RadioStages(.defaults(for: technology))!
        var live = RadioStateMachine(stages, pagingPhase: 0.4)
        var offline = RadioStateMachine(stages, pagingPhase: 0.4)
        var random = SeededRandom(seed: 11)
        var time = 0.0
        var onAir: [(Double, Direction, Int)] = []
        for _ in 0..<3000 {
            // Bursts and long silences, both directions, small and large transfers.
            time += random.unitInterval() < 0.2 ? random.unitInterval() * 30 : random.unitInterval() * 0.3
            let direction: Direction = random.unitInterval() < 0.5 ? .up : .down
            let bytes = random.unitInterval() < 0.7 ? 100 : 20_000
            let admission = live.admit(at: time, direction: direction, bytes: bytes)
            live.transmitted(from: admission.start, to: admission.start, direction: direction, bytes: bytes)
            onAir.append((admission.start, direction, bytes))
        }
        for (at, direction, bytes) in onAir { offline.observe(at: at, direction: direction, bytes: bytes) }
        let end = max(live.tailEnd, offline.tailEnd) + 1
        let liveReport = live.report(until: end)
        let offlineReport = offline.report(until: end)
        #expect(liveReport.promotionsByOrigin == offlineReport.promotionsByOrigin)
        #expect(abs(liveReport.energyJoules - offlineReport.energyJoules) / liveReport.energyJoules < 0.01)
        #expect(abs(liveReport.wakeSeconds - offlineReport.wakeSeconds) / liveReport.wakeSeconds < 0.01)
    }
}

@Suite(.computes) struct ConnectedDRXEdgeTests {
    /// A downlink packet after the last on-duration of the long DRX stage goes at the next
    /// on-duration: the network holds the connection while data waits for the phone, so the
    /// packet neither waits for a page nor pays a promotion.
    @Test func aPacketInTheLastCycleOfTheTailGoesAtTheNextOnDurationWithoutAPromotion() {
        var radio = LTERadioParameters()
        radio.longDRXCycle = 0.32
        radio.longDRXTime = 1.0
        var machine = RadioStateMachine(RadioStages(.lte(radio))!, start: 0, startsConnected: true)
        // The long DRX stage runs from 0.12 s to 1.12 s; its on-durations at 0.12, 0.44, 0.76
        // and 1.08 s. A packet at 1.10 s finds none left before the tail ends.
        let admission = machine.admit(at: 1.10, direction: .down, bytes: 100)
        #expect(abs(admission.start - 1.40) < 1e-9)
        #expect(admission.promotionWait == 0)
        #expect(admission.pagingWait == 0)
        #expect(admission.wokeRadioAt == nil)
    }
}
