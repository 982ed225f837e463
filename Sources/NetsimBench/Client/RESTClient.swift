import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOPosix
import NetsimCore
import NetsimModel

/// The REST polling app on one device: every poll interval it asks `GET /events?after=SEQ` on
/// a kept-alive connection (its own HTTP client, so its own connection), and POSTs each uplink
/// message as soon as it is produced. A failed request is retried with backoff. The naive
/// client (`reconnect: naive`) polls after the server's latest event after each failure
/// (`after=now`), skipping what was produced meanwhile.
struct RESTClient: Sendable {
    let device: Int
    let port: Int
    let ledger: DeviceLedger
    let settings: ClientSettings.RESTSettings
    let reconnect: ClientSettings.Reconnect
    /// Between failed requests: `settings.backoff`, or the naive client's fixed retry.
    let backoff: Backoff
    /// Whether the phone has a network (`watchNetwork`); nil: the app does not ask.
    let network: NetworkWatch?
    let clock: BenchClock
    let seed: UInt64

    func run() async {
        var configuration = HTTPClient.Configuration()
        configuration.httpVersion = .http1Only
        configuration.connectionPool = .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: 1)
        let http = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        var random = SeededRandom(seed: seed)
        var failures = 0
        var generation = ledger.beginConnection()
        let base = "http://127.0.0.1:\(port)"
        // Whether the next request is the first since the start or a failure: a connection attempt.
        var connecting = true
        // The naive client's own cursor: nil after a failure, to ask from now.
        var naiveCursor: UInt64?
        while !Task.isCancelled {
            // Subscribed before the outbox is emptied, so a message produced meanwhile wakes the wait.
            let wakeUps = ledger.outboxWakeUps()
            // Watching the network: no request while the phone is offline; back online, the
            // next goes at once, its backoff started over.
            if let network, await network.waitUntilUp() { failures = 0 }
            if Task.isCancelled { break }
            do {
                if connecting { ledger.noteConnectionAttempt(at: clock.now()) }
                while let message = ledger.nextMessage(for: generation) {
                    try await post(message, to: "\(base)/messages?device=\(device)", with: http)
                }
                let after =
                    switch reconnect {
                    case .resilient: String(ledger.lastReceivedSequence)
                    case .naive: naiveCursor.map(String.init) ?? "now"
                    }
                let batch: JSONWire.EventBatch = try await get("\(base)/events?device=\(device)&after=\(after)", with: http)
                let now = clock.now()
                ledger.noteRequestAnswered(at: now)
                for event in batch.events { ledger.receive(sequence: event.seq, createdAt: event.createdAt, at: now) }
                naiveCursor = batch.events.last?.seq ?? batch.latest ?? naiveCursor
                connecting = false
                failures = 0
                // A full batch means more are waiting: ask again at once.
                if batch.events.count < RESTServer.batchLimit { await waitForPollOrMessage(wakeUps) }
            } catch {
                if Task.isCancelled { break }
                ledger.noteConnectionLossNoticed(at: clock.now())
                ledger.countFailedAttempt()
                failures += 1
                connecting = true
                naiveCursor = nil
                generation = ledger.beginConnection()
                try? await Task.sleep(for: .seconds(backoff.delay(afterAttempt: failures, random: &random)))
            }
        }
        try? await http.shutdown()
    }

    /// Sleeps for the poll interval, or less when the app produces a message.
    private func waitForPollOrMessage(_ wakeUps: AsyncStream<Void>) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: .seconds(settings.pollInterval)) }
            group.addTask { for await _ in wakeUps { return } }
            await group.next()
            group.cancelAll()
        }
    }

    private func get<Body: Decodable>(_ url: String, with http: HTTPClient) async throws -> Body {
        let response = try await http.execute(HTTPClientRequest(url: url), deadline: deadline())
        return try await Self.decode(response)
    }

    private func post(_ message: DeviceLedger.Message, to url: String, with http: HTTPClient) async throws {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(JSONWire.Message(message))))
        let response = try await http.execute(request, deadline: deadline())
        let frame: JSONWire.ServerFrame = try await Self.decode(response)
        if let ack = frame.ack { ledger.acknowledge(ack) }
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
