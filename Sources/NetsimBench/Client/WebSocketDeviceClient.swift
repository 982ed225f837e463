import Foundation
import HummingbirdWSClient
import Logging
import NetsimCore
import NetsimModel

/// The WebSocket app on one device: one connection that receives pushed events and sends
/// uplink messages; the client pings every ping interval and a missing pong closes the
/// connection. On reconnect (with backoff) it resumes after the last sequence it received.
struct WebSocketDeviceClient: Sendable {
    let device: Int
    let port: Int
    let ledger: DeviceLedger
    let settings: ClientSettings.WebSocketSettings
    let clock: BenchClock
    let seed: UInt64
    let logger: Logger

    func run() async {
        var random = SeededRandom(seed: seed)
        var failures = 0
        let configuration = WebSocketClientConfiguration(autoPing: .enabled(timePeriod: .seconds(settings.pingInterval)))
        while !Task.isCancelled {
            let generation = ledger.beginConnection()
            let url = "ws://127.0.0.1:\(port)/ws?device=\(device)&after=\(ledger.lastReceivedSequence)"
            let connected = ConnectedFlag()
            do {
                try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
                    connected.set()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            try await ledger.sendMessages(on: generation) { message in
                                let text = String(decoding: try JSONEncoder().encode(JSONWire.Message(message)), as: UTF8.self)
                                try await outbound.write(.text(text))
                            }
                        }
                        group.addTask {
                            for try await frame in inbound.messages(maxSize: 1 << 20) {
                                guard case .text(let text) = frame else { continue }
                                let message = try JSONDecoder().decode(JSONWire.ServerFrame.self, from: Data(text.utf8))
                                if let event = message.event {
                                    ledger.receive(sequence: event.seq, createdAt: event.createdAt, at: clock.now())
                                }
                                if let ack = message.ack { ledger.acknowledge(ack) }
                            }
                        }
                        try await group.next()
                        group.cancelAll()
                    }
                }
            } catch {
                // The connection failed or closed; counted below, retried with backoff.
            }
            if Task.isCancelled { break }
            ledger.countFailedAttempt()
            failures = connected.value ? 1 : failures + 1
            try? await Task.sleep(for: .seconds(settings.backoff.delay(afterAttempt: failures, random: &random)))
        }
    }
}
