import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimProxy

/// The proxy's tally of a phone's datagrams and its bound on the bytes waiting, without sockets.
@Suite(.computes) struct DatagramLedgerTests {
    @Test func noFiguresUntilTheFirstFlowThenEachFateCounted() {
        var ledger = DatagramLedger(limit: 1000)
        ledger.count(100, .up, droppedBy: nil)
        #expect(ledger.figures == nil, "no flow, no datagrams in the report")
        ledger.flowOpened()
        ledger.flowOpened()
        ledger.flowRemapped()
        ledger.count(100, .up, droppedBy: nil)
        ledger.count(200, .up, droppedBy: .loss)
        ledger.count(300, .down, droppedBy: nil)
        let figures = ledger.figures
        #expect(figures?.flows == 2 && figures?.remappings == 1)
        #expect(ledger.counts.up.sent == 2 && ledger.counts.up.delivered == 1 && ledger.counts.up.bytesDelivered == 100)
        #expect(ledger.counts.up.dropped == [.loss: 1])
        #expect(ledger.counts.down.delivered == 1 && ledger.counts.down.bytesDelivered == 300)
    }

    @Test func bytesWaitUpToTheLimitPerDirection() {
        var ledger = DatagramLedger(limit: 1000)
        #expect(ledger.fits(1000, .up))
        ledger.wait(600, .up)
        #expect(ledger.fits(400, .up) && !ledger.fits(401, .up))
        #expect(ledger.fits(1000, .down), "each direction has its own bound")
        ledger.stopWaiting(600, .up)
        #expect(ledger.fits(1000, .up) && ledger.bytesInFlight == PerDirection(up: 0, down: 0))
    }
}
