import Foundation
import HummingbirdWSClient
import Logging
import NetsimCore
import NetsimModel

/// The WebSocket app on one device: one connection that receives pushed events and sends
/// uplink messages; the client pings every ping interval and a missing pong closes the
/// connection. On reconnect (with backoff) it resumes after the last sequence it received;
/// the naive client (`reconnect: naive`) subscribes from now (`after=now`) instead.
struct LiveWebSocketClient: Sendable {
    let device: Int
    let port: Int
    let ledger: DeviceLedger
    let settings: ClientSettings.WebSocketSettings
    let reconnect: ClientSettings.Reconnect
    /// Between failed connections: `settings.backoff`, or the naive client's fixed retry.
    let backoff: Backoff
    /// Whether the phone has a network (`watchNetwork`); nil: the app does not ask.
    let network: NetworkWatch?
    /// Between the network and the app (`settings.receiveBuffer`), at the app's pace.
    let inbox: EventInbox
    let batching: ClientSettings.Batching?
    let clock: BenchClock
    let seed: UInt64
    let logger: Logger

    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await inbox.runApp() }
            await connectAndReconnect()
            inbox.finish()
        }
    }

    private func connectAndReconnect() async {
        var random = SeededRandom(seed: seed)
        var reconnection = Reconnection(backoff)
        let configuration = WebSocketClientConfiguration(
            autoPing: settings.pingInterval.map { .enabled(timePeriod: .seconds($0)) } ?? .disabled)
        while !Task.isCancelled {
            // Watching the network: no connection attempt while the phone is offline; back
            // online, it connects at once, its backoff started over.
            if let network, await network.waitUntilUp() { reconnection.startOver() }
            if Task.isCancelled { break }
            let generation = ledger.beginConnection()
            let after = JSONWire.cursor(reconnect.resumeCursor(highestReceived: inbox.networkOffset.value))
            let url = "ws://127.0.0.1:\(port)/ws?device=\(device)&after=\(after)"
            ledger.noteConnectionAttempt(at: clock.now())
            let connected = ConnectedFlag()
            do {
                try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
                    connected.set()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            // Unbatched, one message per frame; batched, one frame holds the batch.
                            try await ledger.sendMessages(on: generation, batching: batching, clock: clock) { batch in
                                let body =
                                    batching == nil
                                    ? try JSONEncoder().encode(JSONWire.Message(batch[0]))
                                    : try JSONEncoder().encode(batch.map(JSONWire.Message.init))
                                try await outbound.write(.text(String(decoding: body, as: UTF8.self)))
                            }
                        }
                        group.addTask {
                            for try await frame in inbound.messages(maxSize: 1 << 20) {
                                guard case .text(let text) = frame else { continue }
                                let message = try JSONDecoder().decode(JSONWire.ServerFrame.self, from: Data(text.utf8))
                                if let event = message.event {
                                    await inbox.deliver(
                                        EventInbox.Event(
                                            sequence: event.seq, payloadBytes: event.payload.utf8.count))
                                }
                                for ack in message.acknowledged { ledger.acknowledge(ack) }
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
            if connected.value { ledger.noteConnectionLossNoticed(at: clock.now()) }
            ledger.countFailedAttempt()
            // A connection that had opened starts the count over: its first wait is the shortest.
            if connected.value { reconnection.startOver() }
            // Offline now: the wait for the network replaces the backoff.
            if let network, !(await network.isUp()) { continue }
            try? await Task.sleep(for: .seconds(reconnection.failed(random: &random)))
        }
    }
}
