import Foundation
import NetsimCore
import NetsimInput
import NetsimModel
import NetsimProxy
import NetsimTestSupport
import Testing

@testable import NetsimBench

/// What a bench has not delivered when it ends is `lost` only if it will never
/// arrive; the rest is `inFlight`. Derived from what was created or produced and what was
/// delivered, so any source of measurements gets the same accounting.
@Suite(.computes) struct DeliveryAccountingTests {
    /// A proxy report of a device without a radio.
    static func proxyReport(durationSeconds: Double = 60) -> RunReport {
        RunReport(
            netsimVersion: "test", profile: "test", seed: 1, durationSeconds: durationSeconds,
            connections: ConnectionCounters(opened: 1, closed: 1), bytes: .init(up: 0, down: 0), segments: SegmentCounts(),
            radio: .noRadio(durationSeconds: durationSeconds, bytes: .init(up: 0, down: 0)), radioLatency: RadioWaitTotals(),
            events: [], eventCounts: [:], eventsNotListed: 0)
    }

    /// One device's app: the server created `delivered.count` events, one a second, and
    /// `delivered[i]` says whether event i reached the app (0.1 s after it was created).
    static func ledger(delivered: [Bool]) -> DeviceLedger {
        let ledger = DeviceLedger(device: 0, outboxLimit: 8)
        for index in delivered.indices { ledger.eventCreated(at: Double(index)) }
        for (index, got) in delivered.enumerated() where got {
            ledger.receive(sequence: UInt64(index + 1), at: Double(index) + 0.1)
        }
        return ledger
    }

    /// One device: its app's events as `ledger(delivered:)`'s; the app produced `arrived.count`
    /// messages, `arrived[i]` says whether message i reached the server, and `dropped` lists
    /// the ids its full outbox dropped.
    static func device(delivered: [Bool], arrived: [Bool], dropped: [UInt64] = []) -> DeviceMeasurement {
        let ledger = Self.ledger(delivered: delivered)
        var app = ledger.record
        app.messagesProduced = arrived.count
        app.droppedMessageIDs = dropped
        var server = EventStore.DeviceRecord(messageArrivals: Array(repeating: nil, count: arrived.count))
        for (index, got) in arrived.enumerated() where got {
            _ = server.received(messageID: UInt64(index + 1), createdAt: Double(index), at: Double(index) + 0.1)
        }
        return DeviceMeasurement(
            index: 0, app: app, deliveries: ledger.deliveries, server: server, proxy: proxyReport(), proxyOrigin: 0)
    }

    /// The live server counts its messages as the model engine's does (one `ArrivalTally`): a
    /// message that arrives again is a duplicate and keeps its first arrival; one that first
    /// arrives after a later one is out of order; one that is not the device's is refused.
    @Test func theLiveServerCountsArrivalsAsTheModelsDoes() {
        var server = EventStore.DeviceRecord(messageArrivals: Array(repeating: nil, count: 3))
        let answers = [
            server.received(messageID: 1, createdAt: 0, at: 1), server.received(messageID: 3, createdAt: 2, at: 3),
            server.received(messageID: 2, createdAt: 1, at: 4), server.received(messageID: 3, createdAt: 2, at: 5),
            server.received(messageID: 4, createdAt: 3, at: 6), server.received(messageID: 0, createdAt: 0, at: 7),
        ]
        #expect(answers == [true, true, true, false, false, false])
        #expect(server.messages.arrived == 3 && server.messages.duplicates == 1 && server.messages.outOfOrder == 1)
        #expect(server.messageArrivals[2] == EventStore.Arrival(createdAt: 2, arrivedAt: 3), "the first arrival stays")
        var model = ArrivalTally()
        for number: UInt64 in [1, 3, 2, 3] { _ = model.receive(number, at: 0) }
        #expect(model.duplicates == server.messages.duplicates && model.outOfOrder == server.messages.outOfOrder)
    }

    /// The reproduction: the last event was produced inside the outage and was still
    /// waiting for TCP's retransmission when the bench ended. Nothing was lost.
    @Test func anEventStillOnItsWayIsInFlightNotLost() {
        let (report, _) = BenchAnalysis.summarize([Self.device(delivered: [true, true, true, false], arrived: [true, false])])
        #expect(report.events == BenchReport.Delivery(sent: 4, delivered: 3, lost: 0, inFlight: 1, duplicated: 0, outOfOrder: 0))
        #expect(report.messages.lost == 0 && report.messages.inFlight == 1)
    }

    /// A client resumes after the latest event it received: one missing behind it (its receive
    /// buffer dropped it) is never sent again. A message dropped from the outbox before it got
    /// through never arrives; one dropped after an earlier send got through is delivered.
    @Test func whatCanNeverArriveIsLost() {
        let (report, _) = BenchAnalysis.summarize([
            Self.device(delivered: [true, false, true, false], arrived: [false, true, false, false], dropped: [1, 2]),
            Self.device(delivered: [false, false], arrived: []),
        ])
        #expect(report.events == BenchReport.Delivery(sent: 6, delivered: 2, lost: 1, inFlight: 3, duplicated: 0, outOfOrder: 0))
        #expect(report.messages == BenchReport.Delivery(sent: 4, delivered: 1, lost: 1, inFlight: 2, duplicated: 0, outOfOrder: 0))
        #expect(report.client.outboxDrops == 2)
    }

    /// lte-tunnel's outage runs from 45 s to 75 s: a 60 s bench drains until the outage is over
    /// and the longest retransmission after it (30 s held + RTO 0.32 s) has landed, plus 30 s.
    @Test func theDrainOutlastsTheOutageAndTheRetransmissionAfterIt() throws {
        let profile = try ProfileCatalog.resolve("lte-tunnel", workingDirectory: "/nonexistent")
        var configuration = BenchConfiguration(profile: profile)
        configuration.duration = 60
        #expect(abs(configuration.drainLimit - (75 + 30.32 - 60 + 30)) < 1e-9)
        configuration.duration = 120
        #expect(configuration.drainLimit == 30)
    }
}
