import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimProxy

/// What the device held during an outage that may end early, and what each held effect
/// becomes with the replan's answers: without sockets, connections are plain objects.
@Suite(.computes) struct HeldEffectsTests {
    final class Connection {}
    typealias Held = HeldEffects<Connection, String>

    static func delivery(at time: Double) -> Delivery {
        Delivery(at: time, onAir: .init(start: time - 0.05, end: time - 0.05))
    }

    /// A stall from 10 s: a connection opened at 12 s (ticket 0), a chunk up (1), a lookup (2)
    /// and a FIN up (3) on it, and a close of another connection in between.
    static func heldDuringAStall(_ connection: Connection) -> Held {
        var held = Held()
        let opening = Held.Opening(connection: 7, clientPort: 5000, upstreamAddress: "127.0.0.1", upstreamPort: 80)
        held.hold(.opened(opening, handshake: .init(start: 40.3, end: 40.3)), answeredBy: 0)
        held.hold(
            .wakeUp(.init(cause: .data, connection: 7, destination: "example.com", direction: .up, wokeAt: 50.1)), answeredBy: 1)
        held.hold(.chunk(connection, .up, payload: [1, 2, 3], delivery(at: 50.15), readAt: 12.5), answeredBy: 1)
        held.hold(.closed(3, reset: true, at: 13), answeredBy: nil)
        held.hold(.lookup("lookup", answeredAt: 50.4), answeredBy: 2)
        held.hold(.end(connection, .up, delivery(at: 50.2)), answeredBy: 3)
        return held
    }

    @Test("an outage that ran its course releases every effect as first planned, in order")
    func releasedAsPlanned() {
        let connection = Connection()
        var held = Self.heldDuringAStall(connection)
        let release = held.release(nil)
        #expect(held.isEmpty)
        #expect(release.dues.isEmpty && release.movedDeliveries == 0)
        guard release.effects.count == 6, case .opened(let opening, let handshake) = release.effects[0],
            case .wakeUp(let wake) = release.effects[1], case .chunk(_, .up, [1, 2, 3], let chunk, 12.5) = release.effects[2],
            case .closed(3, true, 13) = release.effects[3], case .lookup("lookup", 50.4) = release.effects[4],
            case .end(_, .up, let end) = release.effects[5]
        else {
            Issue.record("not the effects held: \(release.effects)")
            return
        }
        #expect(opening.connection == 7 && handshake.start == 40.3 && wake.wokeAt == 50.1)
        #expect(chunk.at == 50.15 && end.at == 50.2)
    }

    @Test("an outage ended early releases the replan's times, and the new dues per connection in order")
    func releasedWithTheReplan() {
        let connection = Connection()
        var held = Self.heldDuringAStall(connection)
        let replan = ReplannableDevice.Replan(
            calls: [
                .init(answer: .handshake(.init(start: 20.3, end: 20.3))),
                .init(answer: .send(.deliver(Self.delivery(at: 21.35))), wokeRadioAt: 21.04),
                .init(answer: .lookup(answeredAt: 21.6)),
                .init(answer: .send(.deliver(Self.delivery(at: 21.4)))),
            ],
            startedAt: 10, plannedEnd: 40)
        let release = held.release(replan)
        #expect(release.movedDeliveries == 2)
        #expect(release.dues.count == 1 && release.dues.first?.connection === connection)
        #expect(release.dues.first?.dues == PerDirection(up: [21.35, 21.4], down: []))
        guard case .opened(_, let handshake) = release.effects[0], case .wakeUp(let wake) = release.effects[1],
            case .chunk(_, _, _, let chunk, _) = release.effects[2], case .lookup(_, let answeredAt) = release.effects[4]
        else {
            Issue.record("not the effects held: \(release.effects)")
            return
        }
        #expect(handshake.start == 20.3 && wake.wokeAt == 21.04 && chunk.at == 21.35 && answeredAt == 21.6)
    }

    @Test("a call the replay did not wake the radio with publishes no wake-up")
    func aWakeUpTheReplanDoesNotHave() {
        var held = Held()
        held.hold(.wakeUp(.init(cause: .handshake, connection: 1, destination: "a", direction: .up, wokeAt: 40)), answeredBy: 0)
        let release = held.release(.init(calls: [.init(answer: .handshake(.init(start: 20, end: 20)))], startedAt: 10, plannedEnd: 40))
        guard case .wakeUp(let wake) = release.effects.first else {
            Issue.record("no wake-up effect")
            return
        }
        #expect(wake.wokeAt == nil)
    }

    @Test("a held datagram takes the replan's delivery, counted if it moved, or keeps its first if the replan drops it")
    func heldDatagrams() {
        var held = Held()
        let capture = DatagramRecord(
            direction: .up, payload: [7], clientPort: 5000, upstreamAddress: "127.0.0.1", upstreamPort: 53, readAt: 12)
        held.hold(.datagram("moved", Self.delivery(at: 50.2), capture: capture), answeredBy: 0)
        held.hold(.datagram("dropped now", Self.delivery(at: 50.3), capture: nil), answeredBy: 1)
        held.hold(.datagram("unmoved", Self.delivery(at: 50.4), capture: nil), answeredBy: 2)
        let replan = ReplannableDevice.Replan(
            calls: [
                .init(answer: .datagram(.deliver(Self.delivery(at: 21.2), mapping: 1))),
                .init(answer: .datagram(.drop(.queueFull))),
                .init(answer: .datagram(.deliver(Self.delivery(at: 50.4), mapping: 1))),
            ],
            startedAt: 10, plannedEnd: 50)
        let release = held.release(replan)
        #expect(release.movedDeliveries == 1)
        let deliveries = release.effects.compactMap { effect -> Double? in
            guard case .datagram(_, let delivery, _) = effect else { return nil }
            return delivery.at
        }
        #expect(deliveries == [21.2, 50.3, 50.4])
        // The capture waits for the time on air the replan gives (21.15 s, not 50.15 s).
        guard case .datagram("moved", let moved, capture) = release.effects[0] else {
            Issue.record("the first datagram's effect: \(release.effects[0])")
            return
        }
        #expect(abs(moved.onAir.start - 21.15) < 1e-9)
    }
}
