import Foundation
import Logging
import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@testable import NetsimBench
@testable import NetsimModel

/// Strategies 2 (batching), 3 (offline queue) and 5 (slow consumers): their files,
/// their pure parts, their effect on the model engine, and short live runs through the real
/// clients.
@Suite(.computes)
struct StrategySettingsTests {
    @Test func theShippedStrategyFilesLoad() throws {
        let analytics = try Workload.load(yaml: SettingsFileTests.shipped("workloads/analytics-burst.yaml"), source: "a")
        #expect(analytics.messageBurst == 20 && analytics.messageBurstSpan == 2 && analytics.messageInterval == 60)
        let burst = try Workload.load(yaml: SettingsFileTests.shipped("workloads/server-burst.yaml"), source: "s")
        #expect(burst.serverBurst == Workload.ServerBurst(at: 10, events: 2000, eventsPerSecond: 500))

        let batching = try ClientSettings.load(yaml: SettingsFileTests.shipped("clients/batching-on.yaml"), source: "b")
        #expect(batching.batching == ClientSettings.Batching(maxMessages: 10, flushAfter: 0.5))
        var off = try ClientSettings.load(yaml: SettingsFileTests.shipped("clients/batching-off.yaml"), source: "o")
        off.source = ClientSettings().source
        #expect(off == ClientSettings())
        let expected: [(String, ClientSettings.ReceiveBuffer)] = [("unbounded", .unbounded), ("bounded", .bounded(64)), ("pull", .pull)]
        for (name, mode) in expected {
            let client = try ClientSettings.load(yaml: SettingsFileTests.shipped("clients/consumer-\(name).yaml"), source: name)
            #expect(client.consumer == ClientSettings.Consumer(eventsPerSecond: 50))
            #expect(client.grpc.receiveBuffer == mode && client.ws.receiveBuffer == mode)
        }
    }

    @Test(arguments: [
        ("consumer: {rate: fast}", "c.yaml:1:18: 'consumer.rate' must be a rate above zero such as 50/s"),
        ("consumer: {}", "c.yaml:1:11: 'consumer' needs a 'rate', such as 50/s"),
        ("grpc: {receiveBuffer: lots}", "c.yaml:1:23: 'grpc.receiveBuffer' must be a whole number from 1 to 1000000, unbounded or pull"),
        ("batching: {maxMessages: 0}", "c.yaml:1:25: 'batching.maxMessages' must be a whole number from 1 to 10000"),
    ])
    func badClientStrategyKeysSayWhereAndWhat(yaml: String, message: String) {
        #expect(throws: InputFileError.self) { try ClientSettings.load(yaml: yaml, source: "c.yaml") }
        do {
            _ = try ClientSettings.load(yaml: yaml, source: "c.yaml")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func aBurstLongerThanItsIntervalIsRefused() {
        #expect(throws: InputFileError.self) {
            try Workload.load(yaml: "clientMessages: {every: 2s, burst: 5, over: 3s}", source: "w.yaml")
        }
    }

    @Test func aMessageBurstSpreadsItsMessagesAndKeepsTheSeededPhase() {
        var workload = Workload()
        let single = workload.schedule(device: 2, seed: 7, duration: 600)
        workload.messageBurst = 20
        workload.messageBurstSpan = 2
        let bursty = workload.schedule(device: 2, seed: 7, duration: 600)
        #expect(bursty.eventTimes == single.eventTimes)
        #expect(bursty.messageTimes.count == 20 * single.messageTimes.count)
        for (index, start) in single.messageTimes.enumerated() {
            let burst = bursty.messageTimes[(index * 20)..<(index * 20 + 20)]
            #expect(burst.first == start)
            #expect(abs(burst.last! - start - 2) < 1e-9)
        }
    }

    @Test func aServerBurstAddsItsEventsInOrder() {
        var workload = Workload()
        workload.eventMeanGap = 10
        let quiet = workload.schedule(device: 0, seed: 1, duration: 60)
        workload.serverBurst = Workload.ServerBurst(at: 10, events: 2000, eventsPerSecond: 500)
        let burst = workload.schedule(device: 0, seed: 1, duration: 60)
        #expect(burst.eventTimes.count == quiet.eventTimes.count + 2000)
        #expect(burst.eventTimes == burst.eventTimes.sorted())
        #expect(burst.eventTimes.count { $0 >= 10 && $0 < 14 } >= 2000)
    }

    @Test func theBatcherSendsAFullBatchAtOnceAndAnOtherAfterItsWait() {
        let batching = ClientSettings.Batching(maxMessages: 10, flushAfter: 0.5)
        #expect(batching.decide(pending: 0, oldestCreatedAt: 0, now: 5) == .idle)
        #expect(batching.decide(pending: 3, oldestCreatedAt: 1, now: 1.2) == .wait(until: 1.5))
        #expect(batching.decide(pending: 3, oldestCreatedAt: 1, now: 1.5) == .send(count: 3))
        #expect(batching.decide(pending: 12, oldestCreatedAt: 1, now: 1.1) == .send(count: 10))
    }

    /// Every client file shipped in clients/ plays on the model engine, each transport
    /// delivering every event of a short lte-good run: no strategy is live-only.
    @Test func theModelEnginePlaysEveryShippedClientFile() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: SettingsFileTests.repository.appendingPathComponent("clients").path)
            .filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(names.count >= 11, "\(names)")
        for name in names {
            var configuration = BenchConfiguration(profile: try ProfileCatalog.builtin(named: "lte-good"))
            configuration.devices = 1
            configuration.duration = 60
            configuration.client = try ClientSettings.load(yaml: SettingsFileTests.shipped("clients/\(name)"), source: name)
            let report = try ModelBenchRunner.run(configuration) { _ in }.report
            for transport in configuration.transports {
                let events = try #require(report.transports[transport]?.events, "\(name) \(transport)")
                #expect(events.sent > 0 && events.delivered == events.sent, "\(name) \(transport): \(events.delivered)/\(events.sent)")
            }
        }
    }
}

/// The outbox (strategy 3) as a value: bounded, oldest dropped and counted, the rest sent in order.
@Suite(.computes)
struct OfflineQueueTests {
    static func ledger(outboxLimit: Int, messages: Int) -> DeviceLedger {
        let ledger = DeviceLedger(device: 0, outboxLimit: outboxLimit, messagePayloadBytes: 16)
        for index in 0..<messages { ledger.produceMessage(createdAt: Double(index)) }
        return ledger
    }

    @Test func aFullOutboxDropsTheOldestAndCountsThem() {
        let ledger = Self.ledger(outboxLimit: 4, messages: 10)
        #expect(ledger.record.droppedMessageIDs == [1, 2, 3, 4, 5, 6])
        #expect(ledger.record.messagesDroppedFromOutbox == 6)
    }

    @Test func whatSurvivesIsSentInOrderOnEachConnection() {
        let ledger = Self.ledger(outboxLimit: 4, messages: 10)
        func drain(_ generation: Int, batching: ClientSettings.Batching? = nil) -> [[UInt64]] {
            var batches: [[UInt64]] = []
            while let batch = ledger.withApp({ app in
                var actions: [TransportAction] = []
                return app.dueMessages(for: generation, batching: batching, now: 100, into: &actions)
            }) {
                batches.append(batch.map(\.id))
            }
            return batches
        }
        #expect(drain(ledger.withApp { $0.beginConnection() }) == [[7], [8], [9], [10]])
        // A reconnect before any acknowledgement sends them all again, in order, batched here.
        ledger.acknowledge(7)
        #expect(drain(ledger.withApp { $0.beginConnection() }, batching: .init(maxMessages: 2, flushAfter: 1)) == [[8, 9], [10]])
    }
}

/// The model engine's batch frames are the size of what the live client and server write: the
/// JSON array of messages and the `{"acks":[...]}` answer, as JSONWire encodes them.
@Suite(.computes)
struct BatchWireSizeTests {
    @Test func theModelsBatchFramesAreTheLiveEncodersBytes() throws {
        let ledger = DeviceLedger(device: 7, outboxLimit: 64, messagePayloadBytes: 200)
        // Times with nine decimals, as the bench clock's nanoseconds give.
        for time in [12.123456789, 12.223456789, 12.323456789] { ledger.produceMessage(createdAt: time) }
        let batch = ledger.withApp { app in
            var actions: [TransportAction] = []
            return app.dueMessages(for: app.beginConnection(), batching: .init(maxMessages: 3), now: 12.4, into: &actions)
        }
        guard let batch else {
            Issue.record("no batch")
            return
        }
        let body = try JSONEncoder().encode(batch.map { JSONWire.Message(ledger.message($0)) })
        let acks = try JSONEncoder().encode(JSONWire.ServerFrame(acks: batch.map(\.id)))
        let ws = WireFormat(encoding: .transport(.ws), eventPayloadBytes: 256, messagePayloadBytes: 200, device: 7)
        #expect(ws.bytes(.messageBatch(first: 1, last: 3), at: 12.4) == WireFormat.webSocketFrame(payload: body.count, masked: true))
        #expect(ws.bytes(.acks(first: 1, last: 3)) == WireFormat.webSocketFrame(payload: acks.count, masked: false))
        // REST: the same bodies after the request's and the response's headers.
        let rest = WireFormat(encoding: .transport(.rest), eventPayloadBytes: 256, messagePayloadBytes: 200, device: 7)
        #expect(
            rest.bytes(.messageBatch(first: 1, last: 3), at: 12.4)
                == WireFormat.batchPostRequestHeader + 1 + String(body.count).count + body.count)
        #expect(rest.bytes(.acks(first: 1, last: 3)) == WireFormat.responseHeader + String(acks.count).count + acks.count)
    }
}

/// The strategies' runs, each a configuration either engine plays: a bursty uplink with
/// batching off and on, an outage longer than the outbox holds, and a server burst into a slow
/// app behind each receive buffer. Live, gRPC alone runs at a time scale, so minutes of
/// emulated time take seconds.
enum StrategyRuns {
    /// A link with an LTE radio (11.6 s tail) and a 20 ms delay each way.
    static func lteProfile(events: [TimelineEvent] = []) throws -> Profile {
        var profile = try ProfileCatalog.builtin(named: "lte-good")
        profile.timeline = Timeline(events: events)
        return profile
    }

    static func configuration(_ profile: Profile, duration: Double, timeScale: Double) -> BenchConfiguration {
        var configuration = BenchConfiguration(profile: profile)
        configuration.transports = [.grpc]
        configuration.devices = 2
        configuration.duration = duration
        configuration.timeScale = timeScale
        configuration.drainTimeout = 20
        configuration.workload.eventMeanGap = 3600
        configuration.client.grpc.backoff = Backoff(initial: 0.5, maximum: 2, multiplier: 2, jitter: 0)
        return configuration
    }

    /// Bursts of 20 messages 15 s apart, past the LTE tail: unbatched each wakes the radio; a
    /// batcher that holds messages 20 s sends two bursts per wake-up.
    static func bursty(batched: Bool) throws -> BenchConfiguration {
        var configuration = configuration(try lteProfile(), duration: 90, timeScale: 10)
        configuration.workload.messageInterval = 15
        configuration.workload.messageBurst = 20
        configuration.workload.messageBurstSpan = 2
        if batched { configuration.client.batching = ClientSettings.Batching(maxMessages: 40, flushAfter: 20) }
        return configuration
    }

    /// A 30 s outage from 10 s, a message every second and an outbox of 8.
    static func outage() throws -> BenchConfiguration {
        let outage = TimelineEvent(at: 10, kind: .outage(duration: 30, mode: .blackhole))
        var configuration = configuration(try lteProfile(events: [outage]), duration: 60, timeScale: 5)
        configuration.workload.messageInterval = 1
        configuration.workload.outboxLimit = 8
        return configuration
    }

    /// `events` events at 200/s from 2 s into an app that handles 50/s behind `mode` (on gRPC
    /// and WebSocket alike; time scaled by 2 live).
    static func slowConsumer(_ mode: ClientSettings.ReceiveBuffer, burst events: Int = 600) throws -> BenchConfiguration {
        var configuration = configuration(try lteProfile(), duration: 20, timeScale: 2)
        configuration.workload.serverBurst = Workload.ServerBurst(at: 2, events: events, eventsPerSecond: 200)
        configuration.client.consumer = ClientSettings.Consumer(eventsPerSecond: 50)
        configuration.client.grpc.receiveBuffer = mode
        configuration.client.ws.receiveBuffer = mode
        configuration.drainTimeout = 30
        return configuration
    }

    static func live(_ configuration: BenchConfiguration) async throws -> BenchReport.TransportReport {
        let result = try await BenchRunner.run(configuration, logger: BenchEndToEndTests.logger) { _ in }
        return try #require(result.report.transports[.grpc])
    }

    /// The configuration on the model engine, over `transports`, at the live run's seed.
    static func model(
        _ configuration: BenchConfiguration, _ transports: [BenchTransport]
    ) throws -> [(BenchTransport, BenchReport.TransportReport)] {
        var configuration = configuration
        configuration.transports = transports
        let report = try ModelBenchRunner.run(configuration) { _ in }.report
        return try transports.map { ($0, try #require(report.transports[$0])) }
    }
}

/// The strategies' effects on the model engine, on every transport they apply to, in virtual
/// time: the live runs below check only what needs the real clients.
@Suite(.computes)
struct StrategyModelEngineTests {
    /// On the transports whose own timers leave the radio asleep between bursts: REST's
    /// polls and QUIC's keepalive (its default period) wake it whatever the app batches, as
    /// `BatchingModelTests` shows with those timers turned off.
    @Test func batchingCutsPromotionsOnABurstyWorkload() throws {
        let transports: [BenchTransport] = [.ws, .grpc]
        let unbatched = try StrategyRuns.model(StrategyRuns.bursty(batched: false), transports)
        let batched = try StrategyRuns.model(StrategyRuns.bursty(batched: true), transports)
        for ((transport, single), (_, batch)) in zip(unbatched, batched) {
            #expect(single.messages.delivered == single.messages.sent && batch.messages.delivered == batch.messages.sent, "\(transport)")
            #expect(
                batch.perDevice.promotions.mean < single.perDevice.promotions.mean,
                "\(transport) promotions per device: batched \(batch.perDevice.promotions.mean), unbatched \(single.perDevice.promotions.mean)"
            )
            #expect(batch.uplinkLatencyMs.p50 > single.uplinkLatencyMs.p50, "\(transport)")
        }
    }

    /// The outbox overflows during the outage: its drops are counted, every message lost is
    /// one it dropped, and the survivors arrive in order. REST's one exception
    /// (docs/strategies.md, section 3): a message stalled in a request the client gave up on
    /// may arrive after newer ones, and only a message the outbox had dropped can.
    @Test func anOutageLongerThanTheOutboxDropsTheOldestAndDeliversTheRestInOrder() throws {
        for (transport, report) in try StrategyRuns.model(StrategyRuns.outage(), [.rest, .ws, .grpc, .quic]) {
            let messages = report.messages
            #expect(report.client.outboxDrops > 20, "\(transport): \(report.client.outboxDrops) outbox drops")
            #expect(messages.lost > 10 && messages.lost <= report.client.outboxDrops, "\(transport): \(messages.lost) lost")
            #expect(messages.inFlight == 0 && messages.duplicated == 0, "\(transport)")
            #expect(messages.outOfOrder == 0 || transport == .rest, "\(transport): \(messages.outOfOrder) out of order")
            #expect(messages.outOfOrder <= report.client.outboxDrops - messages.lost, "\(transport)")
            #expect(messages.delivered + messages.lost == messages.sent, "\(transport)")
        }
    }

    @Test func aBoundedBufferDropsAndStaysFlatAndAPullingClientDropsNothing() throws {
        for (transport, bounded) in try StrategyRuns.model(StrategyRuns.slowConsumer(.bounded(64)), [.ws, .grpc]) {
            let buffers = try #require(bounded.buffers)
            #expect(bounded.client.receiveBufferDrops > 0 && buffers.lost.receiveBufferOverflow > 0, "\(transport)")
            #expect(buffers.clientPeakEvents <= 64 && buffers.clientPeakBytes <= 64 * 256, "\(transport)")
        }
        for (transport, pulled) in try StrategyRuns.model(StrategyRuns.slowConsumer(.pull), [.ws, .grpc]) {
            #expect(pulled.client.receiveBufferDrops == 0 && pulled.events.lost == 0, "\(transport)")
            #expect(try #require(pulled.buffers).clientPeakEvents == 1, "\(transport)")
        }
    }

    @Test func anUnboundedBufferGrowsWithTheBurst() throws {
        let small = try StrategyRuns.model(StrategyRuns.slowConsumer(.unbounded, burst: 300), [.ws, .grpc])
        let large = try StrategyRuns.model(StrategyRuns.slowConsumer(.unbounded, burst: 600), [.ws, .grpc])
        for ((transport, smaller), (_, larger)) in zip(small, large) {
            let smallBuffers = try #require(smaller.buffers)
            let largeBuffers = try #require(larger.buffers)
            #expect(smallBuffers.clientPeakEvents > 64, "\(transport)")
            #expect(largeBuffers.clientPeakBytes > smallBuffers.clientPeakBytes + 100 * 256, "\(transport)")
            #expect(smaller.client.receiveBufferDrops == 0 && larger.client.receiveBufferDrops == 0, "\(transport)")
        }
    }
}

/// A few live runs through the real clients: a pulling gRPC client whose backlog HTTP/2's
/// window holds on the server, a bounded and a pulling WebSocket client, and batching on every
/// transport. Serialized: the runs share two cores.
@Suite(.serialized, .tags(.liveTiming), .playsLive(.strategies)) struct StrategyEndToEndTests {
    @Test func aPullingGRPCClientDropsNothingAndTheServerHoldsTheBacklog() async throws {
        let pulled = try await StrategyRuns.live(StrategyRuns.slowConsumer(.pull))
        let pulledBuffers = try #require(pulled.buffers)
        #expect(pulled.client.receiveBufferDrops == 0)
        #expect(pulled.events.lost == 0)
        #expect(pulledBuffers.clientPeakEvents == 1)
        // The backlog waited on the server, held back by HTTP/2's window: scores of events
        // there against the client's one. How many depends on how promptly the burst's timer
        // runs on a busy machine: 99 once, with the other test lanes beside it.
        #expect(pulledBuffers.serverQueuePeakEvents > 50, "server queue peak \(pulledBuffers.serverQueuePeakEvents)")
    }

    /// The same on WebSocket, in real time (only gRPC scales its timers): 300 events at 100/s
    /// into an app that handles 50/s.
    @Test func onWebSocketTooABoundedBufferDropsAndAPullingClientDoesNot() async throws {
        func run(_ mode: ClientSettings.ReceiveBuffer) async throws -> BenchReport.TransportReport {
            var configuration = BenchEndToEndTests.configuration(BenchEndToEndTests.profile(), duration: 8)
            configuration.transports = [.ws]
            configuration.workload.eventMeanGap = 3600
            configuration.workload.serverBurst = Workload.ServerBurst(at: 1, events: 300, eventsPerSecond: 100)
            configuration.client.consumer = ClientSettings.Consumer(eventsPerSecond: 50)
            configuration.client.ws.receiveBuffer = mode
            // The pulling app has handled the burst by 7 s; the drain would only wait out the
            // bounded app's drops, which never arrive.
            configuration.drainTimeout = 4
            let result = try await BenchRunner.run(configuration, logger: BenchEndToEndTests.logger) { _ in }
            return try #require(result.report.transports[.ws])
        }
        async let boundedRun = run(.bounded(16))
        async let pulledRun = run(.pull)
        let (bounded, pulled) = try await (boundedRun, pulledRun)
        #expect(bounded.client.receiveBufferDrops > 0)
        #expect(try #require(bounded.buffers).clientPeakEvents <= 16)
        #expect(pulled.client.receiveBufferDrops == 0 && pulled.events.lost == 0 && pulled.events.inFlight == 0)
        #expect(try #require(pulled.buffers).clientPeakEvents == 1)
    }

    /// Batched, every transport still delivers every message once and in order.
    @Test func aBatchingClientDeliversEveryMessageOnceInOrderOnEveryTransport() async throws {
        var configuration = BenchEndToEndTests.configuration(BenchEndToEndTests.profile(), duration: 5)
        configuration.workload.messageInterval = 2
        configuration.workload.messageBurst = 10
        configuration.workload.messageBurstSpan = 1
        configuration.client.batching = ClientSettings.Batching(maxMessages: 4, flushAfter: 0.3)
        let result = try await BenchRunner.run(configuration, logger: BenchEndToEndTests.logger) { _ in }
        BenchEndToEndTests.expectEverythingDeliveredOnce(result)
        for (transport, report) in result.report.orderedTransports {
            #expect(report.messages.delivered == report.messages.sent, "\(transport)")
            #expect(report.messages.outOfOrder == 0 && report.messages.duplicated == 0, "\(transport)")
            // Messages 0.11 s apart wait for a batch of 3 or 4 (the 0.3 s flush, or full): the
            // median message waits well beyond the link's 20 ms.
            #expect(report.uplinkLatencyMs.p50 > 60, "\(transport) p50 \(report.uplinkLatencyMs.p50) ms")
        }
    }
}
