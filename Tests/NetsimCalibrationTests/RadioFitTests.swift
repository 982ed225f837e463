import NetsimCalibration
import NetsimCore
import NetsimTestSupport
import Testing

/// `profiles fit` must recover a radio's parameters from measurements that netsim's own model
/// made: the fit reads physics, so it can be checked against a radio whose figures are known.
@Suite(.computes) struct RadioFitTests {
    /// An LTE radio unlike every default: 8 s tail, 320 ms long DRX, 300 ms promotion.
    static var knownLTE: LTERadioParameters {
        var radio = LTERadioParameters()
        radio.promotionTime = 0.3
        radio.longDRXCycle = 0.32
        radio.longDRXTime = 8.0 - radio.inactivityTimer - radio.shortDRXTime
        radio.pagingCycle = 1.28
        return radio
    }

    /// Probes as the study sent them: every gap from 0 to 20 s in steps of 0.1 s, five times.
    static var schedule: [Probe] {
        (0..<5).flatMap { _ in (0...200).map { Probe(gap: Double($0) / 10, roundTrip: 0) } }
    }

    @Test func probesPlayedThroughAKnownRadioFitBackToItsTimers() throws {
        let played = ProbePlayer.play(Self.schedule, radio: RadioStages(.lte(Self.knownLTE))!, networkRoundTrip: 0.06, seed: 7)
        let fit = try ProbeFit(ProbeAnalysis(played), lookingForInactive: false)
        #expect(abs(fit.connectedRoundTrip - 0.06) < 1e-9)
        #expect(abs(fit.tail - 8.0) <= 0.11)
        #expect(fit.pagingCycle == 1.28)
        #expect(abs(fit.promotion - 0.3) < 0.05)
        #expect(fit.drxCycle == 0.32)
        let parameters = RadioFit(technology: .lte, probe: fit, power: nil).parameters
        guard case .lte(let lte) = parameters else {
            Issue.record("not LTE")
            return
        }
        #expect(abs(lte.inactivityTimer + lte.shortDRXTime + lte.longDRXTime - 8.0) <= 0.11)
    }

    @Test func aStandaloneRadiosInactiveStretchIsFoundAndItsEndFitted() throws {
        var radio = NRRadioParameters.standalone
        radio.connectedTail = 10
        radio.inactiveTail = 5
        radio.resumeTime = 0.05
        radio.promotionTime = 0.35
        radio.drxCycle = 0.04
        let played = ProbePlayer.play(Self.schedule, radio: RadioStages(.nr(radio))!, networkRoundTrip: 0.07, seed: 3)
        let fit = try ProbeFit(ProbeAnalysis(played), lookingForInactive: true)
        // Beyond the connected tail the round trips spread over a paging cycle, and five
        // repetitions of a gap sit at five phases of it: the step is read to within a few
        // tenths, the end of RRC_INACTIVE to within a paging cycle.
        #expect(abs(fit.tail - 10) <= 0.3)
        let inactive = try #require(fit.inactive)
        #expect(abs(inactive.until - 15) <= 1.28)
        #expect(abs(inactive.resume - 0.05) < 0.1)
        #expect(abs(fit.promotion - 0.35) < 0.06)
    }

    @Test func aPowerLogMadeByTheFormulaFitsBackExactly() throws {
        var random = SeededRandom(seed: 11)
        let samples = (1...300).map { second -> PowerSample in
            let down = random.unitInterval() * 400
            let up = random.unitInterval() * 60
            let power = 2.0 + 0.005 * down + 0.02 * up
            return PowerSample(
                end: Double(second), seconds: 1, downBytes: down * 1e6 / 8, upBytes: up * 1e6 / 8, power: power,
                labels: ["access": "nr-nsa"])
        }
        let fit = try PowerFit(samples)
        #expect(abs(fit.beta - 2.0) < 1e-9)
        #expect(abs(fit.alphaDown - 0.005) < 1e-12)
        #expect(abs(fit.alphaUp - 0.02) < 1e-12)
        #expect(fit.rmsResidual < 1e-9)
        #expect(!fit.tailPowerMeasured)
        #expect(abs(fit.tailPower - 1.2) < 1e-9)
    }

    @Test func aSlopeThatFitsBelowZeroIsRefittedAtZero() throws {
        // Power falls slightly with uplink rate in this log: a radio does not draw less for
        // moving more, so the fit drops the term.
        let samples = (1...50).map { (second: Int) -> PowerSample in
            let down = Double(second)
            let up = Double(second % 7)
            let power: Double = 1.5 + 0.01 * down - 0.001 * up
            return PowerSample(end: down, seconds: 1, downBytes: down * 1e6 / 8, upBytes: up * 1e6 / 8, power: power, labels: [:])
        }
        let fit = try PowerFit(samples)
        #expect(fit.alphaUp == 0)
        #expect(fit.alphaDown > 0)
    }

    @Test func aSignalTermMadeByTheFormulaFitsBack() throws {
        // 20 mW for every dB below -90 dBm, signals from -110 to -60 dBm (the term's range).
        var random = SeededRandom(seed: 12)
        let samples = (1...300).map { second -> PowerSample in
            let down = random.unitInterval() * 200
            let up = random.unitInterval() * 40
            let signal = -110 + random.unitInterval() * 50
            let power = 1.5 + 0.004 * down + 0.015 * up + 0.02 * (-90 - signal)
            return PowerSample(
                end: Double(second), seconds: 1, downBytes: down * 1e6 / 8, upBytes: up * 1e6 / 8, power: power,
                labels: ["access": "nr-sa"], signal: signal)
        }
        let fit = try PowerFit(samples)
        #expect(abs(fit.beta - 1.5) < 1e-9)
        #expect(abs(fit.rsrpSlope - 0.02) < 1e-12)
        #expect(fit.signalSamples == 300)
        #expect(fit.rmsResidual < 1e-9)
        // At -100 dBm and 10 Mbit/s down: 1.5 + 0.04 + 0.2 W.
        let sample = PowerSample(end: 1, seconds: 1, downBytes: 10e6 / 8, upBytes: 0, power: nil, labels: [:], signal: -100)
        #expect(abs(fit.power(of: sample) - 1.74) < 1e-9)
    }

    @Test func aLogWithoutSignalsFitsNoSignalTerm() throws {
        let samples = (1...50).map { (second: Int) -> PowerSample in
            let down = Double(second)
            return PowerSample(end: down, seconds: 1, downBytes: down * 1e6 / 8, upBytes: 0, power: 1 + 0.01 * down, labels: [:])
        }
        let fit = try PowerFit(samples)
        #expect(fit.rsrpSlope == 0)
        #expect(fit.signalSamples == 0)
    }

    @Test func tooFewIntervalsIsAnError() {
        let samples = [PowerSample(end: 1, seconds: 1, downBytes: 1e6, upBytes: 0, power: 1, labels: [:])]
        #expect(throws: PowerFit.Failure.tooFewSamples(1)) { try PowerFit(samples) }
    }
}

@Suite(.computes) struct IntervalPricerTests {
    static func nr(beta: Double) -> RadioStages {
        var radio = NRRadioParameters.nonStandalone
        radio.beta = beta
        radio.tailPower = beta / 2
        radio.alphaDown = 0.005
        radio.alphaUp = 0.02
        radio.drxCycle = 0.32
        return RadioStages(.nr(radio))!
    }

    @Test func aSteadyTransferCostsBetaPlusAlphaTimesTheRateEachSecond() {
        // 10 Mbit/s down for 30 s on a connected radio: packets every 10 ms keep it in its
        // CONNECTED stage, so each second is 2.0 W + 5 mW/Mbit/s x 10 Mbit/s = 2.05 J.
        let samples = (1...30).map { PowerSample(end: Double($0), seconds: 1, downBytes: 10e6 / 8, upBytes: 0, power: nil, labels: [:]) }
        let energies = IntervalPricer.energies(of: samples, startsConnected: true) { _ in ("a", Self.nr(beta: 2.0)) }
        #expect(energies.count == 30)
        for energy in energies { #expect(abs(energy - 2.05) < 1e-6) }
    }

    @Test func aChangeOfRadioEndsTheOldRadiosTailInsteadOfCountingItTwice() {
        // 10 s on a 1 W radio, then 10 s on a 3 W one: the second half is 3 W + its slope,
        // with nothing of the first radio's tail on top.
        let samples = (1...20).map { PowerSample(end: Double($0), seconds: 1, downBytes: 1e6 / 8, upBytes: 0, power: nil, labels: [:]) }
        let energies = IntervalPricer.energies(of: samples, startsConnected: true) { sample in
            sample.end <= 10 ? ("low", Self.nr(beta: 1.0)) : ("high", Self.nr(beta: 3.0))
        }
        for energy in energies[..<10] { #expect(abs(energy - 1.005) < 1e-6) }
        for energy in energies[10...] { #expect(abs(energy - 3.005) < 1e-6) }
    }

    @Test func aWeakerSignalCostsTheSlopeForEveryDecibelWhileConnected() {
        // 13.3 mW/dB: 10 s at -90 dBm (the reference), then 10 s at -100 dBm, then 10 s at
        // -130 dBm, which the term holds at its edge, -110 dBm. 1 Mbit/s down each second:
        // 2.005 J, then 2.005 + 0.133, then 2.005 + 0.266.
        var radio = NRRadioParameters.nonStandalone
        radio.beta = 2.0
        radio.tailPower = 1.0
        radio.alphaDown = 0.005
        radio.rsrpSlope = 0.0133
        let stages = RadioStages(.nr(radio))!
        let samples = (1...30).map { second in
            PowerSample(
                end: Double(second), seconds: 1, downBytes: 1e6 / 8, upBytes: 0, power: nil, labels: [:],
                signal: second <= 10 ? -90 : second <= 20 ? -100 : -130)
        }
        let energies = IntervalPricer.energies(of: samples, startsConnected: true) { _ in ("a", stages) }
        for energy in energies[..<10] { #expect(abs(energy - 2.005) < 1e-6) }
        for energy in energies[10..<20] { #expect(abs(energy - 2.138) < 1e-6) }
        for energy in energies[20...] { #expect(abs(energy - 2.271) < 1e-6) }
    }

    @Test func theMeterSecondOfALongIntervalIsPricedNotTheWholeInterval() {
        // A row after a 4 s gap: its counters span 4 s, the meter's reading its last second.
        let samples = [
            PowerSample(end: 1, seconds: 1, downBytes: 1e6 / 8, upBytes: 0, power: 1, labels: [:]),
            PowerSample(end: 5, seconds: 4, downBytes: 4e6 / 8, upBytes: 0, power: 1, powerSeconds: 1, labels: [:]),
        ]
        let energies = IntervalPricer.energies(of: samples, startsConnected: true) { _ in ("a", Self.nr(beta: 2.0)) }
        // Packets carry whole bytes, so the last second's share of the slope term is within a
        // packet of a quarter of the interval's bytes.
        #expect(abs(energies[1] - 2.005) < 1e-4)
    }
}
