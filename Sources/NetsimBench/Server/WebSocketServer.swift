import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging

/// The WebSocket transport's server: `GET /ws?device=D&after=SEQ` upgrades; the server then
/// pushes the device's events after SEQ (`after=now`: after the latest) and every new one, and acknowledges each uplink message.
/// A newer connection for the same device ends the older one's push.
enum WebSocketServer {
    static func application(
        store: EventStore, clock: BenchClock, pingInterval: Double?, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            ws: WebSocketServerConfiguration(autoPing: pingInterval.map { .enabled(timePeriod: .seconds($0)) } ?? .disabled))
        return Application(
            router: Router(),
            server: .http1WebSocketUpgrade(configuration: configuration) { request, _, _ in
                let url = URLComponents(string: request.path ?? "")
                let query = Dictionary((url?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
                guard url?.path == "/ws", let device = query["device"].flatMap({ Int($0) }), (0..<store.deviceCount).contains(device)
                else { return .dontUpgrade }
                let after = query["after"] == "now" ? EventStore.fromNow : query["after"].flatMap { UInt64($0) } ?? 0
                return .upgrade([:]) { inbound, outbound, _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            try await store.push(device: device, after: after) { event in
                                try await outbound.write(.text(try encode(JSONWire.ServerFrame(event: JSONWire.Event(event)))))
                            }
                        }
                        group.addTask {
                            for try await frame in inbound.messages(maxSize: 1 << 20) {
                                guard case .text(let text) = frame else { continue }
                                // A batching client sends an array of messages in one frame; one frame acknowledges them.
                                if text.first == "[" {
                                    let batch = try JSONDecoder().decode([JSONWire.Message].self, from: Data(text.utf8))
                                    for message in batch {
                                        store.receive(device: device, messageID: message.id, createdAt: message.createdAt, at: clock.now())
                                    }
                                    try await outbound.write(.text(try encode(JSONWire.ServerFrame(acks: batch.map(\.id)))))
                                } else {
                                    let message = try JSONDecoder().decode(JSONWire.Message.self, from: Data(text.utf8))
                                    store.receive(device: device, messageID: message.id, createdAt: message.createdAt, at: clock.now())
                                    try await outbound.write(.text(try encode(JSONWire.ServerFrame(ack: message.id))))
                                }
                            }
                        }
                        // Either side ending (a newer session, or the client gone) ends this one.
                        try await group.next()
                        group.cancelAll()
                    }
                }
            },
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "netsim-bench-ws"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) }, logger: logger)
    }

    static func encode(_ frame: JSONWire.ServerFrame) throws -> String {
        String(decoding: try JSONEncoder().encode(frame), as: UTF8.self)
    }
}
