import Foundation
import NetsimTestSupport
import Testing

@testable import NetsimCore

/// The link models: serialization (rate and trace), delay with jitter, loss, and gaps.
@Suite(.computes) struct LinkTests {
    let noGaps = ConnectivityGaps(scripted: [], period: nil)

    /// A delivered chunk counts in its own direction only: one chunk, and its bytes in segments
    /// of at most 1,448 bytes (3,000 bytes: 1,448 + 1,448 + 104).
    @Test func aDeliveredChunkCountsItsSegmentsInItsOwnDirection() {
        var segments = SegmentCounts()
        segments.add(3000, .up)
        segments.add(1448, .up)
        segments.add(1, .down)
        #expect(segments.up == DeliveredSegments(chunks: 2, segments: 4))
        #expect(segments.down == DeliveredSegments(chunks: 1, segments: 1))
        var bytes = PerDirection(up: 0, down: 0)
        bytes.update(.down) { $0 += 7 }
        #expect(bytes == PerDirection(up: 0, down: 7))
    }

    @Test func aTransferAtAFixedRateTakesSizeOverRate() {
        var schedule = LinkSchedule(.rate(bitsPerSecond: 1_000_000))
        let transmission = schedule.transmit(1_000_000, readyAt: 0, gaps: noGaps, retransmissionTimeout: 0.2)
        #expect(transmission.start == 0)
        #expect(abs(transmission.end - 8.0) < 1e-9)
    }

    @Test func theLinkIsOneFIFOSharedByEveryConnection() {
        var link = LinkDirection(LinkParameters(capacity: .rate(bitsPerSecond: 8_000)), random: SeededRandom(seed: 1))
        let first = link.serialize(1000, readyAt: 0, at: 0, gaps: noGaps, retransmissionTimeout: 0.2)
        let second = link.serialize(1000, readyAt: 0.5, at: 0.5, gaps: noGaps, retransmissionTimeout: 0.2)
        #expect(first.end == 1.0)
        #expect(second.start == 1.0 && second.end == 2.0, "waits behind the first chunk")
        #expect(link.backlog(at: 0.5) == 2000)
        #expect(link.backlog(at: 1.5) == 1000)
        #expect(link.backlog(at: 2.0) == 0)
    }

    /// A link change moves the chunks still queued, but never ahead of their connection's
    /// chunk already gone and on its way. At 80 kbit/s (10,000 B/s) chunk A leaves 0-0.1 s and,
    /// a segment retransmitted, arrives at 1.1 s; chunk B leaves 0.1-0.2 s and would arrive
    /// 10 ms later on its own, so it is delivered behind A at 1.1 s; another connection's chunk
    /// C leaves 0.2-0.3 s and arrives at 0.31 s. At 0.15 s the link goes to 800 kbit/s: B's
    /// other half leaves by 0.155 s and still arrives at 1.1 s, not 1.055 s (its wait behind A
    /// kept as if it were its own delay), and C leaves 0.155-0.165 s and arrives at 0.175 s.
    @Test func aLinkChangeKeepsAMovedChunkBehindTheOneOnItsWay() throws {
        var link = LinkDirection(LinkParameters(capacity: .rate(bitsPerSecond: 80_000)), random: SeededRandom(seed: 1))
        let a = link.serialize(1000, readyAt: 0, at: 0, gaps: noGaps, retransmissionTimeout: 0.2)
        let aDelivery = link.deliverLastChunkInOrder(on: 1, arrivingAt: a.end + 1.0)
        let b = link.serialize(1000, readyAt: 0, at: 0, gaps: noGaps, retransmissionTimeout: 0.2)
        let bDelivery = link.deliverLastChunkInOrder(on: 1, arrivingAt: b.end + 0.01)
        let c = link.serialize(1000, readyAt: 0, at: 0, gaps: noGaps, retransmissionTimeout: 0.2)
        let cDelivery = link.deliverLastChunkInOrder(on: 2, arrivingAt: c.end + 0.01)
        #expect(abs(aDelivery - 1.1) < 1e-9 && bDelivery == aDelivery && abs(cDelivery - 0.31) < 1e-9)
        let moved = link.update(
            LinkParameters(capacity: .rate(bitsPerSecond: 800_000)), at: 0.15, gaps: noGaps, retransmissionTimeout: 0.2)
        #expect(moved.map(\.connection) == [1, 2])
        #expect(abs(try #require(moved.first).deliveredAt - 1.1) < 1e-9, "B passed A")
        // B's rest is counted in whole bytes, rounded up (500 may come out 501: 10 us more).
        #expect(abs(try #require(moved.last).deliveredAt - 0.175) <= 1e-5 + 1e-9, "\(moved)")
        // A's connection's next chunk, on its own at about 0.2 s, is delivered behind B.
        let d = link.serialize(10, readyAt: 0.2, at: 0.2, gaps: noGaps, retransmissionTimeout: 0.2)
        #expect(abs(link.deliverLastChunkInOrder(on: 1, arrivingAt: d.end) - 1.1) < 1e-9)
    }

    /// A chunk that may leave only later than the call (it wakes the radio again behind the
    /// queue, or waits out an outage) leaves the chunks ahead of it queued until they go, so a
    /// link change before then still moves them. At 8 kbit/s (1000 B/s) A leaves 0-1 s and B
    /// 1-2 s; C, sent at 0.1 s but ready only at 5 s, leaves 5-5.01 s. At 0.5 s the link goes to
    /// 80 kbit/s (10,000 B/s): A's other 500 B leave by 0.55 s, B by 0.65 s, C 5-5.001 s.
    @Test func aChunkReadyLaterLeavesTheChunksAheadOfItForALinkChangeToMove() throws {
        var link = LinkDirection(LinkParameters(capacity: .rate(bitsPerSecond: 8_000)), random: SeededRandom(seed: 1))
        for (bytes, ready, time) in [(1000, 0.0, 0.0), (1000, 0.0, 0.0), (10, 5.0, 0.1)] {
            let transmission = link.serialize(bytes, readyAt: ready, at: time, gaps: noGaps, retransmissionTimeout: 0.2)
            _ = link.deliverLastChunkInOrder(on: 1, arrivingAt: transmission.end)
        }
        #expect(link.backlog(ahead: 0.5) == 2010 && link.backlog(ahead: 1.5) == 1010 && link.backlog(ahead: 2) == 10)
        let moved = link.update(
            LinkParameters(capacity: .rate(bitsPerSecond: 80_000)), at: 0.5, gaps: noGaps, retransmissionTimeout: 0.2)
        let expected = [0.55, 0.65, 5.001]
        #expect(moved.count == expected.count, "\(moved)")
        for (chunk, due) in zip(moved, expected) { #expect(chunk.connection == 1 && abs(chunk.deliveredAt - due) < 1e-9, "\(moved)") }
    }

    @Test func aTraceDrivenLinkUsesExactlyTheTracesOpportunities() {
        let trace = DeliveryTrace(opportunitiesMs: [0, 0, 5, 10], source: "test")
        var schedule = LinkSchedule(.trace(trace))
        // Three full segments, three 1500-byte packets: opportunities at 0, 0 and 5 ms.
        #expect(schedule.transmit(3 * 1448, readyAt: 0, gaps: noGaps, retransmissionTimeout: 0.2).end == 0.005)
        // The next packet takes the opportunity at 10 ms; the one after, the repetition's 10 + 0 ms.
        #expect(schedule.transmit(1448, readyAt: 0, gaps: noGaps, retransmissionTimeout: 0.2).end == 0.010)
        #expect(schedule.transmit(1448, readyAt: 0, gaps: noGaps, retransmissionTimeout: 0.2).end == 0.010)
        // Nothing queued at 15 ms: that opportunity is wasted, not banked.
        #expect(schedule.transmit(1448, readyAt: 0.016, gaps: noGaps, retransmissionTimeout: 0.2).end == 0.020)
    }

    @Test func aSlotIsAPacketWithItsHeadersNotFifteenHundredBytesOfPayload() {
        // 1500 bytes of payload are two segments, 1448 and 52, so two packets: 1604 bytes on the
        // wire, one whole slot and 104 bytes of the next (mahimahi counts whole packets).
        let trace = DeliveryTrace(opportunitiesMs: [0, 5, 10], source: "test")
        var schedule = LinkSchedule(.trace(trace))
        #expect(schedule.transmit(1500, readyAt: 0, gaps: noGaps, retransmissionTimeout: 0.2).end == 0.005)
        #expect(TCPSegmentation.wireBytes(1448) == 1500)
        #expect(TCPSegmentation.wireBytes(1500) == 1604)
    }

    @Test func aPartlyUsedOpportunityCarriesTheNextChunkIfItWasReady() {
        let trace = DeliveryTrace(opportunitiesMs: [0, 5, 10], source: "test")
        var schedule = LinkSchedule(.trace(trace))
        // 948 + 52 and 348 + 52 bytes: 1400 of the first opportunity's 1500.
        #expect(schedule.transmit(948, readyAt: 0, gaps: noGaps, retransmissionTimeout: 0.2).end == 0)
        #expect(schedule.transmit(348, readyAt: 0, gaps: noGaps, retransmissionTimeout: 0.2).end == 0)
        // 148 + 52 bytes: 100 fit, the rest takes the opportunity at 5 ms.
        #expect(schedule.transmit(148, readyAt: 0, gaps: noGaps, retransmissionTimeout: 0.2).end == 0.005)
    }

    @Test(arguments: TestPaths.traceFiles)
    func aTraceDeliversOnePeriodsBytesInOnePeriod(path: String) throws {
        let trace = try TestPaths.trace(path)
        var schedule = LinkSchedule(.trace(trace))
        let bytes = trace.opportunitiesMs.count * TCPSegmentation.maximumSegmentSize
        let transmission = schedule.transmit(bytes, readyAt: 0, gaps: noGaps, retransmissionTimeout: 0.2)
        #expect(abs(transmission.end - trace.period) < 1e-9)
        #expect(transmission.start == Double(trace.opportunitiesMs[0]) / 1000)
        // One more packet lands on the repetition's first opportunity.
        let next = schedule.transmit(1, readyAt: 0, gaps: noGaps, retransmissionTimeout: 0.2)
        #expect(abs(next.end - (trace.period + Double(trace.opportunitiesMs[0]) / 1000)) < 1e-9)
    }

    /// A saturated link delivers, over 60 s, one full segment's payload per slot. Chunks of
    /// 64 KiB as the proxy reads them, always queued ahead of the link.
    @Test(arguments: TestPaths.traceFiles)
    func aSaturatedTraceDeliversOneSegmentsPayloadPerSlot(path: String) throws {
        let trace = try TestPaths.trace(path)
        let window = 60.0
        let periods = (window / trace.period).rounded(.down)
        let tail = (window - periods * trace.period) * 1000
        let slots = Int(periods) * trace.opportunitiesMs.count + trace.opportunitiesMs.count { Double($0) <= tail }
        var schedule = LinkSchedule(.trace(trace))
        var delivered = 0
        while true {
            let chunk = 65_536
            guard schedule.transmit(chunk, readyAt: 0, gaps: noGaps, retransmissionTimeout: 0.2).end <= window else { break }
            delivered += chunk
        }
        let capacity = Double(slots * TCPSegmentation.maximumSegmentSize)
        #expect(Double(delivered) <= capacity)
        #expect(Double(delivered) >= 0.99 * capacity, "\(delivered) bytes against \(Int(capacity))")
    }

    /// The mean rate each trace's source states: the generator's line counts for the shipped
    /// synthetic drive (10,970 and 2,742 opportunities of 1,500 bytes in 30 s), the traces'
    /// README for the real recording.
    @Test(arguments: TestPaths.traceMeanRates)
    func aTracesMeanRateIsItsSourcesFigure(path: String, megabitsPerSecond: Double, tolerance: Double) throws {
        let trace = try TestPaths.trace(path)
        #expect(abs(trace.meanBitsPerSecond / 1e6 - megabitsPerSecond) <= tolerance, "\(path)")
    }

    @Test func badTracesAreRejectedWithTheirLine() {
        #expect(
            throws: DeliveryTrace.FormatError(source: "t", line: 3, reason: "4 is less than the line before (7): values must not decrease")
        ) {
            try DeliveryTrace(parsing: "1\n7\n4\n", source: "t")
        }
        #expect(throws: DeliveryTrace.FormatError(source: "t", line: 2, reason: "'x' is not a whole number of milliseconds")) {
            try DeliveryTrace(parsing: "1\nx\n", source: "t")
        }
        #expect(throws: DeliveryTrace.FormatError.self) { try DeliveryTrace(parsing: "", source: "t") }
        #expect(throws: DeliveryTrace.FormatError.self) { try DeliveryTrace(parsing: "0\n0\n", source: "t") }
    }

    /// A trace of one line more than its bound is refused at that line, the bound named; a
    /// bad line of any length is quoted in 20 bytes.
    @Test func aTraceOverItsBoundIsRefusedAtTheLinePastIt() throws {
        let limit = DeliveryTrace.maximumOpportunities
        let text = String(repeating: "1\n", count: limit) + "2\n"
        #expect(
            throws: DeliveryTrace.FormatError(
                source: "t", line: limit + 1,
                reason: "more than \(limit) lines: a trace may have at most \(limit) delivery opportunities")
        ) {
            try DeliveryTrace(parsing: text, source: "t")
        }
        let long = String(repeating: "x", count: 1_000_000)
        #expect(
            throws: DeliveryTrace.FormatError(
                source: "t", line: 2, reason: "'xxxxxxxxxxxxxxxxxxxx...' is not a whole number of milliseconds")
        ) {
            try DeliveryTrace(parsing: "1\n" + long + "\n", source: "t")
        }
        #expect(try DeliveryTrace(parsing: "1\r\n2", source: "t").opportunitiesMs == [1, 2])
    }

    @Test(arguments: Jitter.Distribution.allCases)
    func jitterNeverReordersAConnectionsBytes(distribution: Jitter.Distribution) {
        let parameters = LinkParameters(delay: 0.05, jitter: Jitter(amount: 0.04, distribution: distribution))
        var link = LinkDirection(parameters, random: SeededRandom(seed: 7))
        var previous = -Double.infinity
        var reorderedBeforeClamp = 0
        var delays: [Double] = []
        for chunk in 0..<2000 {
            let sent = Double(chunk) * 0.001
            let delay = link.propagationDelay()
            delays.append(delay)
            #expect(delay >= 0)
            if sent + delay < previous { reorderedBeforeClamp += 1 }
            let delivery = link.deliverLastChunkInOrder(on: 1, arrivingAt: sent + delay)
            #expect(delivery >= previous)
            previous = delivery
        }
        #expect(reorderedBeforeClamp > 0, "the draws alone would reorder; the clamp must be what prevents it")
        let mean = delays.reduce(0, +) / Double(delays.count)
        switch distribution {
        case .uniform, .normal: #expect(abs(mean - 0.05) < 0.004)
        case .pareto: #expect(abs(mean - 0.09) < 0.01, "pareto jitter is one-sided with mean = amount")
        }
    }

    @Test func theSameSeedGivesTheSameDrawsAndAnotherSeedOthers() {
        func draws(seed: UInt64) -> [Double] {
            var link = LinkDirection(LinkParameters(delay: 0.1, jitter: Jitter(amount: 0.02)), random: SeededRandom(seed: seed))
            return (0..<50).map { _ in link.propagationDelay() }
        }
        #expect(draws(seed: 42) == draws(seed: 42))
        #expect(draws(seed: 42) != draws(seed: 43))
    }

    @Test func aLostSegmentCostsAnRTTAndALostLastSegmentAnRTO() {
        var link = LinkDirection(LinkParameters(loss: .independent(probability: 1)), random: SeededRandom(seed: 1))
        #expect(link.retransmissionDelay(1000, roundTrip: 0.1, retransmissionTimeout: 0.3) == 0.3)
        // Three segments: two fast retransmits and a timeout for the last.
        #expect(abs(link.retransmissionDelay(3 * 1448, roundTrip: 0.1, retransmissionTimeout: 0.3) - 0.5) < 1e-12)
        var lossless = LinkDirection(LinkParameters(loss: .independent(probability: 0)), random: SeededRandom(seed: 1))
        #expect(lossless.retransmissionDelay(100_000, roundTrip: 0.1, retransmissionTimeout: 0.3) == 0)
    }

    @Test func gilbertElliottLosesTheStationaryShareOfSegmentsInBursts() {
        let loss = LossModel.gilbertElliott(enterBad: 0.01, leaveBad: 0.3, lossInBad: 1, lossInGood: 0)
        var link = LinkDirection(LinkParameters(loss: loss), random: SeededRandom(seed: 3))
        var lost = 0
        var bursts = 0
        var previousLost = false
        let segments = 200_000
        for _ in 0..<segments {
            let isLost = link.retransmissionDelay(1, roundTrip: 1, retransmissionTimeout: 1) > 0
            if isLost { lost += 1 }
            if isLost && !previousLost { bursts += 1 }
            previousLost = isLost
        }
        // Stationary P(bad) = p / (p + r) = 0.01 / 0.31; mean burst length 1 / r = 3.3 segments.
        #expect(abs(Double(lost) / Double(segments) - 0.01 / 0.31) < 0.004)
        #expect(abs(Double(lost) / Double(bursts) - 1 / 0.3) < 0.4)
    }

    @Test func bytesSentIntoAGapGetThroughAtTheFirstRetransmissionAfterIt() {
        let gaps = ConnectivityGaps(scripted: [.init(start: 2, end: 5)], period: nil)
        // Retransmissions from 2 s with a 0.2 s RTO: 2.2, 2.6, 3.4, 5.0.
        #expect(abs(gaps.deliverableTime(2, retransmissionTimeout: 0.2) - 5.0) < 1e-9)
        // From 4.5 s: 4.7, 5.1.
        #expect(abs(gaps.deliverableTime(4.5, retransmissionTimeout: 0.2) - 5.1) < 1e-9)
        #expect(gaps.deliverableTime(1, retransmissionTimeout: 0.2) == 1)
        // A serialization that runs into the gap pauses for it: 2 s before, 2 s after 5.0.
        var schedule = LinkSchedule(.rate(bitsPerSecond: 1_000_000))
        let transmission = schedule.transmit(500_000, readyAt: 0, gaps: gaps, retransmissionTimeout: 0.2)
        #expect(abs(transmission.end - 7.0) < 1e-9)
    }

    /// A datagram waits out gaps that hold datagrams, across overlapping ones; one of them
    /// that drops datagrams drops it.
    @Test func aDatagramPassesAfterHoldingGapsAndNotThroughADroppingOne() {
        let held = ConnectivityGaps(scripted: [.init(start: 2, end: 5), .init(start: 4, end: 7)], period: nil)
        #expect(held.datagramPassage(at: 1) == 1)
        #expect(held.datagramPassage(at: 3) == 7)
        #expect(held.connectivityReturns(after: 3) == 7)
        let mixed = ConnectivityGaps(scripted: [.init(start: 2, end: 5), .init(start: 4, end: 7, holdsDatagrams: false)], period: nil)
        #expect(mixed.datagramPassage(at: 3) == nil)
        #expect(mixed.datagramPassage(at: 8) == 8)
        #expect(mixed.connectivityReturns(after: 3) == 7)
    }

    @Test func repeatingGapsRecurEveryPeriod() {
        let gaps = ConnectivityGaps(scripted: [.init(start: 10, end: 15)], period: 60)
        #expect(gaps.gap(containing: 72) == .init(start: 70, end: 75))
        #expect(gaps.gap(containing: 76) == nil)
        #expect(gaps.nextGapStart(after: 16) == 70)
        #expect(gaps.nextGapStart(after: 5) == 10)
    }
}

extension TestPaths {
    static func trace(_ path: String) throws -> DeliveryTrace {
        try DeliveryTrace(parsing: try String(contentsOfFile: path, encoding: .utf8), source: path)
    }
}
