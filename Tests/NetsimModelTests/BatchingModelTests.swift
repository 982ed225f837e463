import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@testable import NetsimModel

/// Batching (`ClientSettings.Batching`) in the model engine's clients, as the live ones batch:
/// REST one `POST /messages/batch` per batch, WebSocket one frame, gRPC the batch's messages
/// back to back; each when the batch is full or at its flush timer. Hand-computed.
@Suite(.computes)
struct BatchingModelTests {
    static let threeOr25Seconds = ClientSettings.Batching(maxMessages: 3, flushAfter: 25)

    @Test func webSocketSendsAFullBatchAtOnceAndTheRestAtItsFlush() {
        var ledger = AppLedger(outboxLimit: 8)
        var client = WebSocketClientModel(settings: ClientSettings.WebSocketSettings(), batching: Self.threeOr25Seconds, seed: 1)
        _ = client.start(now: 0, ledger: &ledger)
        _ = client.received(.accepted(newConnection: true), now: 0, ledger: &ledger)
        // Produced at 0 and 10: the batch is due 25 s after the first.
        _ = ledger.produceMessage(at: 0)
        #expect(client.messageProduced(now: 0, ledger: &ledger) == [.setTimer(.flush, at: 25)])
        _ = ledger.produceMessage(at: 10)
        #expect(client.messageProduced(now: 10, ledger: &ledger) == [.setTimer(.flush, at: 25)])
        // The third fills it: one frame, before the flush.
        _ = ledger.produceMessage(at: 20)
        #expect(client.messageProduced(now: 20, ledger: &ledger) == [.send(.messageBatch(first: 1, last: 3))])
        // A stale flush finds nothing to send; the fourth message goes alone at 30 + 25.
        #expect(client.timerFired(.flush, now: 25, ledger: &ledger) == [])
        _ = ledger.produceMessage(at: 30)
        #expect(client.messageProduced(now: 30, ledger: &ledger) == [.setTimer(.flush, at: 55)])
        #expect(client.timerFired(.flush, now: 55, ledger: &ledger) == [.send(.messageBatch(first: 4, last: 4))])
    }

    @Test func grpcSendsABatchAsBackToBackMessages() {
        var ledger = AppLedger(outboxLimit: 8)
        var settings = ClientSettings.GRPCClientSettings()
        settings.callTimeLimit = nil
        var client = GRPCClientModel(settings: settings, batching: Self.threeOr25Seconds, seed: 1)
        _ = client.start(now: 0, ledger: &ledger)
        _ = client.received(.accepted(newConnection: true), now: 0, ledger: &ledger)
        for time in [1.0, 2] {
            _ = ledger.produceMessage(at: time)
            #expect(client.messageProduced(now: time, ledger: &ledger) == [.setTimer(.flush, at: 26)])
        }
        _ = ledger.produceMessage(at: 3)
        #expect(client.messageProduced(now: 3, ledger: &ledger) == [.send(.message(1)), .send(.message(2)), .send(.message(3))])
    }

    /// REST: a message that does not fill a batch waits without a poll; at its flush the poll
    /// is put off, the batch POSTed, and the poll follows its answer.
    @Test func restPostsABatchAtItsFlushThenPolls() {
        var ledger = AppLedger(outboxLimit: 8)
        var client = RESTPollingClientModel(
            settings: ClientSettings.RESTSettings(), batchLimit: 100, batching: Self.threeOr25Seconds, seed: 1)
        #expect(client.start(now: 0, ledger: &ledger) == [.connect, .send(.pollRequest(after: 0)), .setTimer(.requestTimeout, at: 10)])
        _ = client.received(.pollResponse(first: 1, last: 0, latest: nil), now: 0.1, ledger: &ledger)
        #expect(client.phase == .waiting)
        _ = ledger.produceMessage(at: 0.5)
        #expect(client.messageProduced(now: 0.5, ledger: &ledger) == [.setTimer(.flush, at: 25.5)])
        #expect(client.phase == .waiting)
        _ = ledger.produceMessage(at: 0.7)
        _ = client.messageProduced(now: 0.7, ledger: &ledger)
        #expect(
            client.timerFired(.flush, now: 25.5, ledger: &ledger) == [
                .cancelTimer(.poll), .send(.messageBatch(first: 1, last: 2)), .setTimer(.requestTimeout, at: 35.5),
            ])
        ledger.acknowledge(1)
        ledger.acknowledge(2)
        #expect(
            client.received(.acks(first: 1, last: 2), now: 25.6, ledger: &ledger) == [
                .cancelTimer(.requestTimeout), .send(.pollRequest(after: 0)), .setTimer(.requestTimeout, at: 35.6),
            ])
    }

    /// The live encoders' sizes (JSONWire, checked against them in NetsimBenchTests): three
    /// messages of 200 B written at 12.5 s are each `{"payload":"…","id":N,"createdAt":12.xxxxxxxxx}`,
    /// 33 + 1 + 12 + 200 = 246 bytes; the array is 2 + 3 x 246 + 2 commas = 742.
    @Test func batchFramesAreSizedAsTheLiveJSON() {
        let ws = WireFormat(encoding: .transport(.ws), eventPayloadBytes: 256, messagePayloadBytes: 200)
        // A masked text frame: 2 + 2 (length 126-65535) + 4 (mask) + 742.
        #expect(ws.bytes(.messageBatch(first: 1, last: 3), at: 12.5) == 750)
        // {"acks":[1,2,3]}: 16 bytes, unmasked.
        #expect(ws.bytes(.acks(first: 1, last: 3)) == 18)
        let rest = WireFormat(encoding: .transport(.rest), eventPayloadBytes: 256, messagePayloadBytes: 200)
        // The POST's header with "/batch" (114), device "0" (1), Content-Length "742" (3), body.
        #expect(rest.bytes(.messageBatch(first: 1, last: 3), at: 12.5) == 114 + 1 + 3 + 742)
        #expect(rest.bytes(.acks(first: 1, last: 3)) == 133 + 2 + 16)
        #expect(WireFormat.webSocketFrame(payload: 70_000, masked: true) == 70_014)
    }

    /// On an otherwise idle LTE phone, one message every 30 s for 10 minutes: each wakes the
    /// radio on its own (lte-good's radio sleeps about 10 s after a send), about 20 wake-ups;
    /// batched by 4 (a batch every 2 minutes), about 5. Every message arrives either way, a
    /// batched one up to 90 s later.
    @Test(arguments: [BenchTransport.rest, .ws, .grpc, .quic])
    func batchingCutsRadioWakeUps(_ transport: BenchTransport) throws {
        func run(_ batching: ClientSettings.Batching?) throws -> DeviceOutcome {
            var configuration = try ModelEngineTests.keepaliveOnly(profile: "lte-good", hours: 600.0 / 3600)
            configuration.transports = [transport]
            configuration.workload.messageInterval = 30
            configuration.client.batching = batching
            configuration.client.grpc.keepaliveTime = 3600
            configuration.client.ws.pingInterval = nil
            configuration.client.rest.pollInterval = 3600
            configuration.client.quic.keepAlivePeriod = nil
            configuration.client.quic.maxIdleTimeout = 3600
            configuration.client.quic.serverIdleTimeout = 3600
            configuration.drainTimeout = 200
            return try #require(ModelEngineTests.run(configuration)[transport]?.first)
        }
        let single = try run(nil)
        let batched = try run(ClientSettings.Batching(maxMessages: 4, flushAfter: 300))
        for device in [single, batched] {
            #expect(device.app.messagesProduced == 20)
            #expect(device.server.messages.isComplete)
            #expect(device.server.messages.duplicates == 0)
        }
        // A wake-up per message or per batch, and perhaps one for the connection's start.
        #expect((20...21).contains(single.radio.promotions), "\(single.radio.promotions)")
        #expect((5...6).contains(batched.radio.promotions), "\(batched.radio.promotions)")
        #expect(batched.radio.energyJoules < single.radio.energyJoules / 2)
    }
}
