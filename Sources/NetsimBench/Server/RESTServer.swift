import Foundation
import Hummingbird
import Logging
import NIOCore

/// The REST polling transport's server: `GET /events?device=D&after=SEQ` answers the device's
/// events after SEQ (at most `batchLimit`) and the latest sequence (`after=now`: none, only the
/// latest, where a naive client's next poll starts), `POST /messages?device=D` takes one uplink
/// message and acknowledges it, `POST /messages/batch?device=D` a batching client's array of them.
enum RESTServer {
    static let batchLimit = 100

    static func application(
        store: EventStore, clock: BenchClock, logger: Logger, onRunning: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        let router = Router()
        router.get("events") { request, _ -> Response in
            let device = try deviceParameter(request, store: store)
            let requested =
                request.uri.queryParameters.get("after") == "now"
                ? EventStore.fromNow : request.uri.queryParameters.get("after", as: UInt64.self) ?? 0
            let after = store.start(device: device, after: requested)
            let events = store.events(device: device, after: after, limit: batchLimit)
            store.markSent(device: device, through: events.last?.sequence ?? after)
            return try json(
                JSONWire.EventBatch(events: events.map(JSONWire.Event.init), latest: requested == EventStore.fromNow ? after : nil))
        }
        router.post("messages") { request, context -> Response in
            let device = try deviceParameter(request, store: store)
            let message = try await request.decode(as: JSONWire.Message.self, context: context)
            store.receive(device: device, messageID: message.id, createdAt: message.createdAt, at: clock.now())
            return try json(JSONWire.ServerFrame(ack: message.id))
        }
        router.post("messages/batch") { request, context -> Response in
            // A batching client's POST: an array of messages, acknowledged together.
            let device = try deviceParameter(request, store: store)
            let batch = try await request.decode(as: [JSONWire.Message].self, context: context)
            for message in batch {
                store.receive(device: device, messageID: message.id, createdAt: message.createdAt, at: clock.now())
            }
            return try json(JSONWire.ServerFrame(acks: batch.map(\.id)))
        }
        return Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "netsim-bench-rest"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) }, logger: logger)
    }

    static func deviceParameter(_ request: Request, store: EventStore) throws -> Int {
        guard let device = request.uri.queryParameters.get("device", as: Int.self), (0..<store.deviceCount).contains(device) else {
            throw HTTPError(.badRequest, message: "device must be 0..<\(store.deviceCount)")
        }
        return device
    }

    static func json(_ value: some Encodable) throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(data: try JSONEncoder().encode(value))))
    }
}
