import NetsimCore

/// The REST polling app as a state machine, which both engines play (the live bench through an
/// `AppDriver` over `LiveRESTTransport`):
/// POST every unacknowledged message (one request at a time), then `GET /events?after=SEQ`;
/// when the answer is not a full batch, wait the poll interval or until the app produces a
/// message. With batching, a `POST /messages/batch` per batch when it is due (full, or at its
/// flush timer), and a produced message that does not fill one waits without a poll. A request that fails or outlives its timeout closes the connection (the HTTP
/// client cannot reuse one with a request in flight), counts a failed attempt and retries after
/// a jittered backoff on a new connection, sending the outbox again. A naive client
/// (`reconnect: naive`) polls from its own cursor (`PollCursor`): from now at its start and
/// after each failure, and waits the fixed naive retry.
///
/// With `watchNetwork` (a resilient client only), the app asks whether the phone has a network
/// where the live loop does, at the top of each round of requests (at the start, when a poll
/// or a retry is due, when the app wakes it with a message): offline, it sends nothing until
/// the network returns, then goes on at once with its backoff's count started over, as the
/// loop would have (what is due, then the poll if it is due too). Requests within a round go
/// without asking again, and a backoff already running is waited out, as live.
///
/// The engine delivers polled events and acknowledgements to the ledger before it hands the
/// frame here; this machine decides only what goes on the wire next, and when. With a consumer
/// (`ClientSettings.Consumer`) the app works through an answer at its pace (the engine times
/// each event's arrival) and the client goes on, as live, once the app has handled the last:
/// `count / rate` seconds after the answer.
public struct RESTPollingClientModel: Sendable {
    public enum Phase: Sendable, Equatable {
        case idle
        case posting(UInt64)
        case polling
        case waiting
        case backingOff
        /// The app works through a poll's answer; `full`: the server has more.
        case consuming(full: Bool)
        /// Watching the network, offline at the top of a round: no request until it returns.
        case suspended
    }

    public private(set) var phase = Phase.idle
    let settings: ClientSettings.RESTSettings
    /// Events a server answers at most per poll (`RESTServer.batchLimit`).
    let batchLimit: Int
    private var random: SeededRandom
    private var reconnection: Reconnection
    /// Uplink messages sent in batches (`POST /messages/batch`); nil: each in its own POST.
    let batching: ClientSettings.Batching?
    /// Where the next poll starts (`reconnect: naive` keeps its own cursor).
    private var cursor: PollCursor
    private var generation = 0
    private var hasConnection = false
    /// When the next poll is due: the poll interval after the app handled the last answer.
    private var nextPoll = 0.0
    /// Whether the app asks for the network before each round (`watchNetwork`, resilient only).
    private let watchesNetwork: Bool
    private var networkAvailable = true
    /// The app's pace; nil: it handles an answer at once.
    let consumer: ClientSettings.Consumer?

    public init(
        settings: ClientSettings.RESTSettings, batchLimit: Int, batching: ClientSettings.Batching? = nil,
        reconnect: ClientSettings.Reconnect = .resilient, consumer: ClientSettings.Consumer? = nil, seed: UInt64
    ) {
        self.consumer = consumer
        self.settings = settings
        self.batchLimit = batchLimit
        self.batching = batching
        self.random = SeededRandom(seed: seed)
        self.reconnection = Reconnection(reconnect.backoff(settings.backoff))
        self.cursor = PollCursor(reconnect)
        self.watchesNetwork = settings.watchNetwork && reconnect == .resilient
    }

    public mutating func start(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        generation = ledger.beginConnection()
        round(now: now, ledger: &ledger, into: &actions)
    }

    /// The answer to the request in flight arrived (its events or acknowledgement already in
    /// the ledger).
    public mutating func received(_ frame: Frame, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        switch (phase, frame) {
        case (.posting(let id), .postResponse(let ack)) where id == ack, (.posting(let id), .acks(_, let ack)) where id == ack:
            actions.append(.cancelTimer(.requestTimeout))
            cycle(now: now, ledger: &ledger, into: &actions)
        case (.polling, .pollResponse(let first, let last, let latest)):
            reconnection.startOver()
            cursor.answered(through: last >= first ? last : latest)
            let count = last >= first ? Int(last - first + 1) : 0
            actions.append(.cancelTimer(.requestTimeout))
            if let consumer, count > 0 {
                phase = .consuming(full: count >= batchLimit)
                actions.append(.setTimer(.consumed, at: now + Double(count) / consumer.eventsPerSecond))
            } else {
                answerHandled(full: count >= batchLimit, now: now, ledger: &ledger, into: &actions)
            }
        default:
            break
        }
    }

    /// The app has handled a poll's answer: poll again at once when it was full (a round of its
    /// own), else send what the outbox has due, else wait the poll interval.
    private mutating func answerHandled(full: Bool, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        nextPoll = full ? now : now + settings.pollInterval
        if full {
            round(now: now, ledger: &ledger, into: &actions)
        } else if isOffline {
            // The app waits for a wake-up, which finds the network gone: the same as
            // suspending now, since `networkChanged` polls only when `nextPoll` is due.
            phase = .suspended
        } else if let batch = ledger.dueMessages(for: generation, batching: batching, now: now, into: &actions) {
            // Produced while the poll was out (or the app worked), and due.
            post(batch, now: now, into: &actions)
        } else {
            phase = .waiting
            actions.append(.setTimer(.poll, at: nextPoll))
        }
    }

    /// A request in flight: its answer looks at the outbox. Waiting: what is due goes now, and
    /// the poll after it.
    public mutating func messageProduced(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        guard phase == .waiting else { return }
        if isOffline {
            // The wake-up reaches the top of the loop, which waits for the network.
            actions.append(.cancelTimer(.poll))
            phase = .suspended
            return
        }
        guard let batch = ledger.dueMessages(for: generation, batching: batching, now: now, into: &actions) else { return }
        actions.append(.cancelTimer(.poll))
        post(batch, now: now, into: &actions)
    }

    public mutating func timerFired(_ timer: TransportTimer, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        switch (timer, phase) {
        case (.poll, .waiting), (.retry, .backingOff):
            round(now: now, ledger: &ledger, into: &actions)
        case (.flush, .waiting):
            messageProduced(now: now, ledger: &ledger, into: &actions)
        case (.consumed, .consuming(let full)):
            answerHandled(full: full, now: now, ledger: &ledger, into: &actions)
        case (.requestTimeout, .posting), (.requestTimeout, .polling):
            fail(now: now, ledger: &ledger, closing: true, into: &actions)
        default:
            break
        }
    }

    public mutating func connectionEnded(
        _ end: ConnectionEnd, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {
        hasConnection = false
        switch phase {
        case .posting, .polling:
            actions.append(.cancelTimer(.requestTimeout))
            fail(now: now, ledger: &ledger, closing: false, into: &actions)
        case .idle, .waiting, .backingOff, .consuming, .suspended:
            // An idle pooled connection that died is replaced by the next request, silently.
            break
        }
    }

    /// Only a watching app hears of it, and only a suspended one acts: back online, it goes on
    /// at once, its backoff's count started over. A backoff already running is waited out.
    public mutating func networkChanged(
        available: Bool, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {
        networkAvailable = available
        guard available, phase == .suspended else { return }
        reconnection.startOver()
        if now >= nextPoll {
            cycle(now: now, ledger: &ledger, into: &actions)
        } else if let batch = ledger.dueMessages(for: generation, batching: batching, now: now, into: &actions) {
            post(batch, now: now, into: &actions)
        } else {
            phase = .waiting
            actions.append(.setTimer(.poll, at: nextPoll))
        }
    }

    /// A watching app with no network: it sends nothing until the network returns.
    private var isOffline: Bool { watchesNetwork && !networkAvailable }

    /// The top of the live loop: a round of requests, unless a watching app finds itself offline.
    private mutating func round(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        if isOffline {
            phase = .suspended
        } else {
            cycle(now: now, ledger: &ledger, into: &actions)
        }
    }

    /// The next request: what the outbox has due, else the poll.
    private mutating func cycle(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        if let batch = ledger.dueMessages(for: generation, batching: batching, now: now, into: &actions) {
            post(batch, now: now, into: &actions)
        } else {
            request(.pollRequest(after: cursor.after(highestReceived: ledger.highestSequence)), phase: .polling, now: now, into: &actions)
        }
    }

    /// POSTs a message (unbatched) or a batch of them.
    private mutating func post(_ batch: [Outbox<NoPayload>.Message], now: Double, into actions: inout [TransportAction]) {
        guard let first = batch.first?.id, let last = batch.last?.id else { return }
        let frame = batching == nil ? Frame.postRequest(message: first) : .messageBatch(first: first, last: last)
        request(frame, phase: .posting(last), now: now, into: &actions)
    }

    /// Sends a request on the kept-alive connection (a new one after a failure), with its timeout.
    private mutating func request(_ frame: Frame, phase: Phase, now: Double, into actions: inout [TransportAction]) {
        if !hasConnection {
            hasConnection = true
            actions.append(.connect)
        }
        self.phase = phase
        actions.append(.send(frame))
        if let timeout = settings.requestTimeout { actions.append(.setTimer(.requestTimeout, at: now + timeout)) }
    }

    private mutating func fail(now: Double, ledger: inout AppLedger, closing: Bool, into actions: inout [TransportAction]) {
        ledger.countFailedAttempt()
        cursor.failed()
        generation = ledger.beginConnection()
        phase = .backingOff
        if closing, hasConnection {
            hasConnection = false
            actions.append(.closeConnection)
        }
        actions.append(.setTimer(.retry, at: now + reconnection.failed(random: &random)))
    }
}
