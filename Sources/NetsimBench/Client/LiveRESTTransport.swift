import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NetsimModel

/// The REST app's wire on the live bench, under `RESTPollingClientModel` (played by an
/// `AppDriver`): a poll is `GET /events?device=D&after=SEQ`, a message a `POST /messages` (a
/// batch a `POST /messages/batch`), each on the device's own AsyncHTTPClient, so on its own
/// kept-alive connection. When to poll, post, time out and retry is the machine's; this writes
/// the requests, puts their answers in the ledger (events, acknowledgements) and hands the
/// machine the frame. With a consumer, the app works through a poll's answer at its pace: event
/// `i` (from 0) reaches it `(i + 1) / rate` seconds after the answer, as the model engine times
/// them, while the machine waits the same time before it goes on.
struct LiveRESTTransport: LiveTransport {
    let device: Int
    let port: Int
    let ledger: DeviceLedger
    let consumer: ClientSettings.Consumer?
    let clock: BenchClock
    private let http: HTTPClient
    /// The request in flight: `closeConnection` (its timeout) cancels it, which closes its
    /// connection, as the HTTP client cannot reuse one with a request in flight.
    private var inFlight: CancellableChild?

    init(device: Int, port: Int, ledger: DeviceLedger, consumer: ClientSettings.Consumer?, clock: BenchClock) {
        self.device = device
        self.port = port
        self.ledger = ledger
        self.consumer = consumer
        self.clock = clock
        var configuration = HTTPClient.Configuration()
        configuration.httpVersion = .http1Only
        configuration.connectionPool = .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: 1)
        http = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }

    mutating func perform(
        _ action: TransportAction, now: Double, app: inout AppLedger, inputs: AppInputs, group: inout DiscardingTaskGroup
    ) {
        switch action {
        case .connect:
            // The pool connects with the next request: the first since the start or a failure.
            app.noteConnectionAttempt(at: now)
        case .send(let frame):
            let request: Request
            switch frame {
            case .pollRequest(let after):
                request = .poll(after: after)
            case .postRequest(let id):
                request = .post(app.messages(from: id, through: id).map(ledger.message), batched: false, last: id)
            case .messageBatch(let first, let last):
                request = .post(app.messages(from: first, through: last).map(ledger.message), batched: true, last: last)
            default:
                return
            }
            if case .post(let messages, let batched, let last) = request, messages.isEmpty {
                // Every message the frame names was acknowledged meanwhile: nothing left to write.
                inputs.received(batched ? .acks(first: last, last: last) : .postResponse(ack: last))
                return
            }
            inFlight = group.addCancellableTask { [self] in
                do {
                    try await send(request, inputs: inputs)
                } catch {
                    guard !Task.isCancelled else { return }
                    inputs.connectionEnded(.reset, lossNoticedAt: clock.now())
                }
            }
        case .closeConnection:
            // The request timed out: the app learns its connection is no good.
            inFlight?.cancel()
            inFlight = nil
            app.noteConnectionLossNoticed(at: now)
        default:
            break
        }
    }

    func shutdown() async {
        try? await http.shutdown()
    }

    /// A request the machine sent, with what its body needs.
    private enum Request: Sendable {
        case poll(after: UInt64)
        /// The messages still unacknowledged of those the frame names (at least one); `last`:
        /// the frame's last id.
        case post([DeviceLedger.Message], batched: Bool, last: UInt64)
    }

    private var base: String { "http://127.0.0.1:\(port)" }

    private func send(_ request: Request, inputs: AppInputs) async throws {
        switch request {
        case .poll(let after):
            let answer: JSONWire.EventBatch = try await execute(
                HTTPClientRequest(url: "\(base)/events?device=\(device)&after=\(JSONWire.cursor(after))"))
            ledger.noteRequestAnswered(at: clock.now())
            try await deliver(answer, inputs: inputs)
        case .post(let messages, let batched, let last):
            var http = HTTPClientRequest(url: "\(base)/messages\(batched ? "/batch" : "")?device=\(device)")
            http.method = .POST
            http.headers.add(name: "Content-Type", value: "application/json")
            let wire = messages.map(JSONWire.Message.init)
            let body = batched ? try JSONEncoder().encode(wire) : try JSONEncoder().encode(wire[0])
            http.body = .bytes(ByteBuffer(data: body))
            let frame: JSONWire.ServerFrame = try await execute(http)
            for ack in frame.acknowledged { ledger.acknowledge(ack) }
            inputs.received(batched ? .acks(first: messages.first?.id ?? last, last: last) : .postResponse(ack: last))
        }
    }

    /// A poll's answer: its events reach the app (at once, or at the consumer's pace after the
    /// machine has the frame), and the machine learns what the answer held.
    private func deliver(_ answer: JSONWire.EventBatch, inputs: AppInputs) async throws {
        let events = answer.events
        ledger.noteBuffered(events: events.count, bytes: events.reduce(0) { $0 + $1.payload.utf8.count })
        // An empty answer: last < first, and the naive client's cursor takes `latest`.
        let frame = Frame.pollResponse(first: events.first?.seq ?? 1, last: events.last?.seq ?? 0, latest: answer.latest)
        guard let consumer, let last = events.last?.seq else {
            let now = clock.now()
            for event in events { ledger.receive(sequence: event.seq, at: now) }
            inputs.received(frame)
            return
        }
        // The answer is the app's now: the next poll asks after it, even before the app is done.
        ledger.withApp { $0.readOffNetwork(last) }
        let start = clock.now()
        inputs.received(frame)
        for (index, event) in events.enumerated() {
            try await clock.sleep(until: start + Double(index + 1) / consumer.eventsPerSecond)
            ledger.receive(sequence: event.seq, at: clock.now())
        }
    }

    private func execute<Body: Decodable>(_ request: HTTPClientRequest) async throws -> Body {
        let response = try await http.execute(request, deadline: .distantFuture)
        guard response.status == .ok else { throw UnexpectedStatus(code: Int(response.status.code)) }
        let body = try await response.body.collect(upTo: 1 << 22)
        return try JSONDecoder().decode(Body.self, from: body)
    }

    struct UnexpectedStatus: Error {
        let code: Int
    }
}
