import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOPosix
import NetsimCore
import NetsimModel

/// The REST polling app on one device: every poll interval it asks `GET /events?after=SEQ` on
/// a kept-alive connection (its own HTTP client, so its own connection), and POSTs each uplink
/// message as soon as it is produced (or each batch when it is due, with batching), polling
/// after every POST too. A failed request is retried with backoff. With a consumer, the app
/// works through each poll's answer at its pace before it polls again: polling is pull-based
/// flow control by nature, and the backlog waits on the server. The naive client
/// (`reconnect: naive`) polls after the server's latest event after each failure
/// (`after=now`), skipping what was produced meanwhile.
struct LiveRESTClient: Sendable {
    let device: Int
    let port: Int
    let ledger: DeviceLedger
    let settings: ClientSettings.RESTSettings
    let reconnect: ClientSettings.Reconnect
    /// Between failed requests: `settings.backoff`, or the naive client's fixed retry.
    let backoff: Backoff
    /// Whether the phone has a network (`watchNetwork`); nil: the app does not ask.
    let network: NetworkWatch?
    let batching: ClientSettings.Batching?
    let consumer: ClientSettings.Consumer?
    let clock: BenchClock
    let seed: UInt64

    func run() async {
        var configuration = HTTPClient.Configuration()
        configuration.httpVersion = .http1Only
        configuration.connectionPool = .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: 1)
        let http = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        var random = SeededRandom(seed: seed)
        var reconnection = Reconnection(backoff)
        var generation = ledger.beginConnection()
        var nextPoll = 0.0
        let base = "http://127.0.0.1:\(port)"
        // Whether the next request is the first since the start or a failure: a connection attempt.
        var connecting = true
        // Where the next poll starts: after the highest received, or the naive client's own.
        var cursor = PollCursor(reconnect)
        while !Task.isCancelled {
            // Subscribed before the outbox is emptied, so a message produced meanwhile wakes the wait.
            let wakeUps = ledger.outboxWakeUps()
            // Watching the network: no request while the phone is offline; back online, the
            // next goes at once, its backoff started over.
            if let network, await network.waitUntilUp() { reconnection.startOver() }
            if Task.isCancelled { break }
            do {
                if connecting {
                    ledger.noteConnectionAttempt(at: clock.now())
                    connecting = false
                }
                var posted = false
                var flushAt = Double.infinity
                sending: while true {
                    switch ledger.nextBatch(for: generation, batching: batching, now: clock.now()) {
                    case .send(let batch):
                        try await post(batch, to: base, with: http)
                        posted = true
                    case .wait(let until):
                        flushAt = until
                        break sending
                    case .idle:
                        break sending
                    }
                }
                var fullAnswer = false
                if posted || clock.now() >= nextPoll {
                    let after = JSONWire.cursor(cursor.after(highestReceived: ledger.lastReceivedSequence))
                    let answer: JSONWire.EventBatch = try await get("\(base)/events?device=\(device)&after=\(after)", with: http)
                    ledger.noteRequestAnswered(at: clock.now())
                    cursor.answered(through: answer.events.last?.seq ?? answer.latest)
                    await consume(answer.events)
                    nextPoll = clock.now() + settings.pollInterval
                    // A full answer means more are waiting: ask again at once.
                    fullAnswer = answer.events.count == RESTServer.batchLimit
                }
                reconnection.startOver()
                if fullAnswer {
                    nextPoll = clock.now()
                } else {
                    await waitForWakeUp(wakeUps, until: min(nextPoll, flushAt))
                }
            } catch {
                if Task.isCancelled { break }
                ledger.noteConnectionLossNoticed(at: clock.now())
                ledger.countFailedAttempt()
                connecting = true
                cursor.failed()
                generation = ledger.beginConnection()
                try? await Task.sleep(for: .seconds(reconnection.failed(random: &random)))
            }
        }
        try? await http.shutdown()
    }

    /// The app works through a poll's answer, at its pace with a consumer.
    private func consume(_ events: [JSONWire.Event]) async {
        ledger.noteBuffered(events: events.count, bytes: events.reduce(0) { $0 + $1.payload.utf8.count })
        let now = clock.now()
        for (index, event) in events.enumerated() {
            if let consumer { try? await clock.sleep(until: now + Double(index + 1) / consumer.eventsPerSecond) }
            ledger.receive(sequence: event.seq, at: clock.now())
        }
    }

    /// Sleeps until `time` (bench seconds: the next poll or batch flush), or less when the app
    /// produces a message.
    private func waitForWakeUp(_ wakeUps: AsyncStream<Void>, until time: Double) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(until: time) }
            group.addTask { for await _ in wakeUps { return } }
            await group.next()
            group.cancelAll()
        }
    }

    private func get<Body: Decodable>(_ url: String, with http: HTTPClient) async throws -> Body {
        let response = try await http.execute(HTTPClientRequest(url: url), deadline: deadline())
        return try await Self.decode(response)
    }

    /// POSTs a message (unbatched) or a batch of them, and takes the acknowledgements.
    private func post(_ batch: [DeviceLedger.Message], to base: String, with http: HTTPClient) async throws {
        let batched = batching != nil
        var request = HTTPClientRequest(url: "\(base)/messages\(batched ? "/batch" : "")?device=\(device)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        let body =
            batched ? try JSONEncoder().encode(batch.map(JSONWire.Message.init)) : try JSONEncoder().encode(JSONWire.Message(batch[0]))
        request.body = .bytes(ByteBuffer(data: body))
        let response = try await http.execute(request, deadline: deadline())
        let frame: JSONWire.ServerFrame = try await Self.decode(response)
        for ack in frame.acknowledged { ledger.acknowledge(ack) }
    }

    /// A request's deadline from now: `settings.requestTimeout`, or none.
    private func deadline() -> NIODeadline {
        settings.requestTimeout.map { .now() + .nanoseconds(Int64($0 * 1e9)) } ?? .distantFuture
    }

    private static func decode<Body: Decodable>(_ response: HTTPClientResponse) async throws -> Body {
        guard response.status == .ok else { throw UnexpectedStatus(code: Int(response.status.code)) }
        let body = try await response.body.collect(upTo: 1 << 22)
        return try JSONDecoder().decode(Body.self, from: body)
    }

    struct UnexpectedStatus: Error {
        let code: Int
    }
}
