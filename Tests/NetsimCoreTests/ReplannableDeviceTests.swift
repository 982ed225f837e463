import NetsimTestSupport
import Testing

@testable import NetsimCore

/// Ending a triggered outage early (`POST /outage/end`): what it held is planned again as if
/// it had been that long from its start. Times are hand-computed from TCP's retransmission
/// backoff: RTO = the round trip + 200 ms, doubling.
@Suite(.computes) struct ReplannableDeviceTests {
    /// 50 ms each way, no radio: RTO 0.3 s.
    static func profile(radio: RadioParameters = .none, events: [TimelineEvent] = [], nat: NATPolicy? = nil) -> Profile {
        Profile(
            name: "test", description: "",
            networks: [
                Network(name: "cell", radio: radio, up: LinkParameters(delay: 0.05), down: LinkParameters(delay: 0.05)),
                Network(name: "wifi", radio: .none, up: LinkParameters(delay: 0.005), down: LinkParameters(delay: 0.005)),
            ],
            start: "cell", nat: nat, timeline: Timeline(events: events))
    }

    static func deliveredAt(_ verdict: SendVerdict?) -> Double? {
        guard case .deliver(let delivery) = verdict else { return nil }
        return delivery.at
    }

    static func refusal(_ device: inout ReplannableDevice, at time: Double) -> ReplannableDevice.EarlyEndRefusal? {
        do {
            _ = try device.endGaps(at: time)
            return nil
        } catch {
            return error
        }
    }

    static func sendAnswer(_ replayed: ReplannableDevice.Replan.Replayed) -> SendVerdict? {
        guard case .send(let verdict) = replayed.answer else { return nil }
        return verdict
    }

    @Test("bytes a 30 s stall held arrive at the first retransmission after its early end")
    func heldBytesMoveToTheEarlyEnd() throws {
        var device = ReplannableDevice(DeviceModel(profile: Self.profile(), seed: 1))
        let connection = device.openConnection(at: 0)
        _ = device.handshake(on: connection, at: 0)
        #expect(device.nextTicket == nil)
        _ = device.trigger(.outage(duration: 30, mode: .stall), at: 10)
        #expect(device.nextTicket == 1)
        // Sent at 12, retransmitted at 12.3, 12.9, 14.1, 16.5, 21.3, 30.9, 50.1: the first at or
        // after 40 gets through, 50 ms later.
        let planned = Self.deliveredAt(device.send(100, .up, on: connection, at: 12))
        #expect(abs(planned! - 50.15) < 1e-9)
        #expect(device.model.isDisconnected(at: 20))

        let replan = try device.endGaps(at: 20)
        // Ended at 20: the retransmission at 21.3 gets through.
        #expect(replan.calls.count == 2)
        #expect(abs(Self.deliveredAt(Self.sendAnswer(replan.calls[1]))! - 21.35) < 1e-9)
        #expect(replan.startedAt == 10 && replan.plannedEnd == 40)
        #expect(!device.model.isDisconnected(at: 20))
        #expect(device.model.events.map(\.durationSeconds) == [10])
        #expect(device.nextTicket == nil)
        // The next bytes go at once.
        #expect(abs(Self.deliveredAt(device.send(100, .up, on: connection, at: 20.5))! - 21.35) < 1e-9)
    }

    /// The times of a live run are the wall clock's: a stall begun at 0.159625525 s and ended
    /// at 0.734267884 s, where the start plus the difference rounds 1e-16 past the end.
    @Test("an outage ended early is over at the moment it was ended, whatever the rounding")
    func anOutageEndedEarlyIsOverAtItsEnd() throws {
        var device = ReplannableDevice(DeviceModel(profile: Self.profile(), seed: 1))
        let start = 0.159625525
        let end = 0.734267884
        #expect(start + (end - start) > end, "the rounding this checks")
        _ = device.trigger(.outage(duration: 60, mode: .stall), at: start)
        _ = try device.endGaps(at: end)
        #expect(device.model.connectivityReturns(after: end) == nil && !device.model.isDisconnected(at: end))
        #expect(device.model.events.map(\.durationSeconds) == [(end - start).nextDown])
    }

    @Test("a handover's gap ends early on the new network's round trip")
    func handoverGapEndsEarly() throws {
        var device = ReplannableDevice(DeviceModel(profile: Self.profile(), seed: 1))
        let connection = device.openConnection(at: 0)
        _ = device.trigger(.handover(to: "wifi", mode: .keep, gap: 20), at: 10)
        // On WiFi (5 ms each way, RTO 0.21 s) from 12: 12.21, 12.63, 13.47, 15.15, 18.51, 25.23,
        // 38.67; the gap ends at 30, so 38.67 + 5 ms.
        #expect(abs(Self.deliveredAt(device.send(100, .up, on: connection, at: 12))! - 38.675) < 1e-9)
        let replan = try device.endGaps(at: 15)
        #expect(abs(Self.deliveredAt(Self.sendAnswer(replan.calls[1]))! - 15.155) < 1e-9)
        #expect(device.model.network.name == "wifi")
        #expect(device.model.events.map(\.durationSeconds) == [5])
    }

    /// The replanned device is the device that had the shorter outage from the start: every
    /// answer, the radio's figures and the events, on LTE with jitter, loss and a NAT.
    @Test("ending early gives the model of the shorter outage, call for call", arguments: [UInt64(1), 7, 42])
    func sameAsTheShorterOutageFromTheStart(seed: UInt64) throws {
        var jittery = Self.profile(radio: .lte(LTERadioParameters()), nat: NATPolicy(idleTimeout: 30, mode: .silent))
        jittery.networks[0].up = LinkParameters(
            capacity: .rate(bitsPerSecond: 2_000_000), delay: 0.04, jitter: Jitter(amount: 0.01, distribution: .normal),
            loss: .independent(probability: 0.05))
        jittery.networks[0].down = LinkParameters(
            capacity: .rate(bitsPerSecond: 8_000_000), delay: 0.04, loss: .independent(probability: 0.02))

        func play(_ device: inout ReplannableDevice, outage: Double) -> [SendVerdict] {
            var answers: [SendVerdict] = []
            let first = device.openConnection(at: 1)
            _ = device.handshake(on: first, at: 1)
            answers.append(device.send(300, .up, on: first, at: 1.5))
            answers.append(device.send(20_000, .down, on: first, at: 2))
            _ = device.trigger(.outage(duration: outage, mode: .stall), at: 10)
            for step in 0..<20 {
                let time = 10.5 + Double(step) * 0.4
                answers.append(device.send(500 + step * 100, .up, on: first, at: time))
                answers.append(device.send(3000, .down, on: first, at: time + 0.1))
            }
            let second = device.openConnection(at: 15)
            _ = device.handshake(on: second, at: 15)
            answers.append(device.send(200, .up, on: second, at: 15.2))
            _ = device.advance(to: 16)
            return answers
        }

        var ended = ReplannableDevice(DeviceModel(profile: jittery, seed: seed))
        let original = play(&ended, outage: 60)
        let replan = try ended.endGaps(at: 18.25)
        var shorter = ReplannableDevice(DeviceModel(profile: jittery, seed: seed))
        let expected = play(&shorter, outage: 8.25)

        let replanned = replan.calls.compactMap(Self.sendAnswer)
        #expect(replanned == Array(expected.suffix(replanned.count)))
        // What the outage held moved earlier; what was sent before it did not move.
        #expect(Array(original.prefix(2)) == Array(expected.prefix(2)))
        #expect(zip(original.suffix(replanned.count), replanned).allSatisfy { Self.deliveredAt($1)! < Self.deliveredAt($0)! })
        #expect(ended.model.radioReport(until: 200) == shorter.model.radioReport(until: 200))
        #expect(ended.model.events == shorter.model.events)
        #expect(ended.model.radioWaits(until: 200) == shorter.model.radioWaits(until: 200))
        // And they go on alike.
        #expect(ended.send(900, .up, on: 1, at: 30) == shorter.send(900, .up, on: 1, at: 30))
    }

    @Test("nothing ends early once the outage ran its course, with connectivity up, or for the timeline's own")
    func refusals() throws {
        let scripted = TimelineEvent(at: 100, kind: .outage(duration: 20, mode: .stall))
        var device = ReplannableDevice(DeviceModel(profile: Self.profile(events: [scripted]), seed: 1))
        #expect(Self.refusal(&device, at: 5) == .connected)
        _ = device.trigger(.outage(duration: 30, mode: .stall), at: 10)
        let closedEarly = device.closeJournal(through: 39.9)
        let closedAtItsEnd = device.closeJournal(through: 40)
        #expect(!closedEarly && closedAtItsEnd)
        #expect(device.nextTicket == nil)
        #expect(Self.refusal(&device, at: 41) == .connected)
        _ = device.advance(to: 105)
        #expect(Self.refusal(&device, at: 105) == .scripted(returnsAt: 120))
    }

    @Test("an outage that held more than the journal keeps runs its course, and no later one starts a journal during it")
    func journalOverflow() throws {
        var device = ReplannableDevice(DeviceModel(profile: Self.profile(), seed: 1))
        let connection = device.openConnection(at: 0)
        _ = device.trigger(.outage(duration: 30, mode: .stall), at: 10)
        for call in 0..<ReplannableDevice.journalLimit {
            _ = device.send(1, .up, on: connection, at: 10 + Double(call) * 1e-4)
        }
        #expect(device.nextTicket == nil)
        #expect(device.model.isDisconnected(at: 16))
        _ = device.trigger(.outage(duration: 50, mode: .stall), at: 16)
        #expect(device.nextTicket == nil)
        #expect(Self.refusal(&device, at: 60) == .journalOverflowed)
        // Past both planned ends a new outage journals again.
        _ = device.trigger(.outage(duration: 5, mode: .stall), at: 70)
        #expect(device.nextTicket == 1)
    }
}
