import Foundation
import HummingbirdWSClient
import Logging
import NetsimModel

/// The WebSocket app's wire on the live bench, under `WebSocketClientModel` (played by an
/// `AppDriver`): one hummingbird-websocket connection per upgrade the machine asks for
/// (`/ws?device=D&after=SEQ`), which pushes events into the app's receive buffer (`EventInbox`,
/// at the app's pace) and takes the acknowledgements, and on which the machine's messages go,
/// one text frame a message or a batch. When to connect, resume and retry is the machine's. The
/// pings are the library's own (auto-ping, and its close on a missing pong): the machine's
/// pings model them in the model engine, so the driver plays it without (`liveMachineSettings`).
struct LiveWebSocketTransport: PushTransport {
    let device: Int
    let port: Int
    let ledger: DeviceLedger
    /// Between the network and the app (`settings.receiveBuffer`), at the app's pace.
    let inbox: EventInbox
    let batched: Bool
    let configuration: WebSocketClientConfiguration
    let clock: BenchClock
    let logger: Logger
    /// The connection the machine opened, which `closeConnection` (or the next upgrade) cancels.
    var connection = PushConnection<String>()

    init(
        device: Int, port: Int, ledger: DeviceLedger, inbox: EventInbox, settings: ClientSettings.WebSocketSettings, batched: Bool,
        clock: BenchClock, logger: Logger
    ) {
        self.device = device
        self.port = port
        self.ledger = ledger
        self.inbox = inbox
        self.batched = batched
        self.configuration = WebSocketClientConfiguration(
            autoPing: settings.pingInterval.map { .enabled(timePeriod: .seconds($0)) } ?? .disabled)
        self.clock = clock
        self.logger = logger
    }

    /// The settings the machine plays live: the library pings, so the machine does not.
    static func liveMachineSettings(_ settings: ClientSettings.WebSocketSettings) -> ClientSettings.WebSocketSettings {
        var settings = settings
        settings.pingInterval = nil
        return settings
    }

    func write(_ frame: Frame, app: inout AppLedger) {
        switch frame {
        case .message(let id): write(app.messages(from: id, through: id))
        case .messageBatch(let first, let last): write(app.messages(from: first, through: last))
        default: break  // Pings and pongs: the library's own.
        }
    }

    /// Unbatched, one message a frame; batched, one frame holds the batch (a JSON array).
    private func write(_ messages: [Outbox<NoPayload>.Message]) {
        guard let first = messages.first else { return }
        let wire = messages.map { JSONWire.Message(ledger.message($0)) }
        guard let body = batched ? try? JSONEncoder().encode(wire) : try? JSONEncoder().encode(JSONWire.Message(ledger.message(first)))
        else { return }
        connection.write(String(decoding: body, as: UTF8.self))
    }

    /// One connection, from its upgrade to its end, which the machine hears of: closed by the
    /// peer once it had opened (the app noticed it lost it), else failed.
    func run(_ number: Int, after: UInt64, writes: AsyncStream<String>, inputs: AppInputs) async {
        let url = "ws://127.0.0.1:\(port)/ws?device=\(device)&after=\(JSONWire.cursor(after))"
        let connected = ConnectedFlag()
        do {
            try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
                connected.set()
                inputs.received(.accepted(newConnection: true), on: number)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in writes { try await outbound.write(.text(text)) }
                    }
                    group.addTask {
                        for try await frame in inbound.messages(maxSize: 1 << 20) {
                            guard case .text(let text) = frame else { continue }
                            let message = try JSONDecoder().decode(JSONWire.ServerFrame.self, from: Data(text.utf8))
                            if let event = message.event {
                                await inbox.deliver(EventInbox.Event(sequence: event.seq, payloadBytes: event.payload.utf8.count))
                            }
                            for ack in message.acknowledged { ledger.acknowledge(ack) }
                        }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
        } catch {
            // The connection failed or closed: the machine hears of it below.
        }
        inputs.pushConnectionEnded(number, opened: connected.value, clock: clock)
    }
}
