import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOPosix
import NetsimCore
import NetsimModel

/// The REST polling app on one device: every poll interval it asks `GET /events?after=SEQ` on
/// a kept-alive connection (its own HTTP client, so its own connection), and POSTs each uplink
/// message as soon as it is produced. A failed request is retried with backoff.
struct RESTClient: Sendable {
    let device: Int
    let port: Int
    let ledger: DeviceLedger
    let settings: ClientSettings.RESTSettings
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
        while !Task.isCancelled {
            // Subscribed before the outbox is emptied, so a message produced meanwhile wakes the wait.
            let wakeUps = ledger.outboxWakeUps()
            do {
                while let message = ledger.nextMessage(for: generation) {
                    try await post(message, to: "\(base)/messages?device=\(device)", with: http)
                }
                let after = ledger.lastReceivedSequence
                let batch: JSONWire.EventBatch = try await get("\(base)/events?device=\(device)&after=\(after)", with: http)
                let now = clock.now()
                for event in batch.events { ledger.receive(sequence: event.seq, createdAt: event.createdAt, at: now) }
                failures = 0
                // A full batch means more are waiting: ask again at once.
                if batch.events.count < RESTServer.batchLimit { await waitForPollOrMessage(wakeUps) }
            } catch {
                if Task.isCancelled { break }
                ledger.countFailedAttempt()
                failures += 1
                generation = ledger.beginConnection()
                try? await Task.sleep(for: .seconds(settings.backoff.delay(afterAttempt: failures, random: &random)))
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
        let response = try await http.execute(HTTPClientRequest(url: url), timeout: .seconds(Int64(settings.requestTimeout)))
        return try await Self.decode(response)
    }

    private func post(_ message: DeviceLedger.Message, to url: String, with http: HTTPClient) async throws {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(JSONWire.Message(message))))
        let response = try await http.execute(request, timeout: .seconds(Int64(settings.requestTimeout)))
        let frame: JSONWire.ServerFrame = try await Self.decode(response)
        if let ack = frame.ack { ledger.acknowledge(ack) }
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
