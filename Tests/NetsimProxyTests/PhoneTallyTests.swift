import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimProxy

/// What a phone's report and `/status` count beside the model, without a proxy.
@Suite(.computes) struct PhoneTallyTests {
    static func wake(_ at: Double, connection: ConnectionID?, _ destination: String) -> WakeUp {
        WakeUp(at: at, cause: .data, connection: connection, destination: destination, direction: .up)
    }

    @Test("the wake-up list keeps the latest 32, and a connection's take the name its first bytes gave it")
    func wakeUpsAreBoundedAndRenamed() {
        var tally = PhoneTally()
        for index in 0..<40 { tally.wokeUp(Self.wake(Double(index), connection: ConnectionID(index % 2), "10.0.0.1:443")) }
        #expect(tally.recentWakeUps.count == ProxyStatus.wakeUpListLimit)
        #expect(tally.recentWakeUps.first?.at == 8 && tally.recentWakeUps.last?.at == 39)
        tally.rename(wakeUpsOf: 1, to: "api.example.com")
        #expect(tally.recentWakeUps.filter { $0.connection == 1 }.allSatisfy { $0.destination == "api.example.com" })
        #expect(tally.recentWakeUps.filter { $0.connection == 0 }.allSatisfy { $0.destination == "10.0.0.1:443" })
    }

    @Test("bytes and connections are counted per direction and per fate; a destination's waits per cause")
    func bytesConnectionsAndDestinations() {
        var tally = PhoneTally()
        tally.connectionOpened()
        tally.connectionOpened()
        tally.connectionReset()
        tally.connectionSilenced()
        tally.connectionClosed()
        tally.delivered(1000, .up)
        tally.delivered(70_000, .down)
        tally.delivered(0, .down)
        #expect(tally.connections == ConnectionCounters(opened: 2, closed: 1, reset: 1, blackholed: 1))
        #expect(tally.bytesDelivered == PerDirection(up: 1000, down: 70_000))

        tally.firstChunk(to: "api.example.com")
        let waited = Delivery(at: 1.5, waits: ChunkWaits(promotion: 0.26), onAir: .init(start: 1.3, end: 1.4))
        let prompt = Delivery(at: 2.1, onAir: .init(start: 2.0, end: 2.05))
        tally.carried(waited, .up, to: "api.example.com", now: 1.0)
        tally.carried(prompt, .down, to: "api.example.com", now: 2.0)
        let figures = tally.destinationFigures(until: 3)
        #expect(figures.map(\.destination) == ["api.example.com"])
        #expect(figures.first?.connections == 1)
        #expect(figures.first?.chunks == PerDirection(up: 1, down: 1))
        #expect(figures.first?.waitedChunks == 1)
        #expect(figures.first?.waits[.promotion]?.chunks == 1)
    }
}
