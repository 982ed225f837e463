import NetsimModel
import NetsimTestSupport
import Synchronization
import Testing

@testable import NetsimBench

/// The live `AppDriver` plays the model engine's REST machine over a scripted transport on a
/// fast bench clock (50 emulated seconds a wall-clock second): the machine's timers fire on
/// the clock, its requests reach the transport in its order, answers and a produced message
/// reach it, and a watching app hears the phone's network. The checks are orders, counts and
/// lower bounds on gaps (a sleep never ends early), so a loaded machine cannot fail them.
@Suite(.playsLive(timeLimit: .seconds(60))) struct AppDriverTests {
    /// What the machine asked of the wire, with the bench time.
    final class WireLog: Sendable {
        private let entries = Mutex<[(time: Double, action: TransportAction)]>([])

        func append(_ action: TransportAction, at time: Double) { entries.withLock { $0.append((time, action)) } }

        var all: [(time: Double, action: TransportAction)] { entries.withLock { $0 } }

        /// The frames sent, with their times.
        var sent: [(time: Double, frame: Frame)] {
            all.compactMap { entry in
                guard case .send(let frame) = entry.action else { return nil }
                return (entry.time, frame)
            }
        }
    }

    /// Logs every action and answers each request at once (a poll with nothing new, a POST
    /// with its acknowledgement, an upgrade accepted), or never when `answers` is false. With
    /// `connectionsLast`, each accepted connection is closed by the peer that long after.
    struct ScriptedTransport: LiveTransport {
        let log: WireLog
        let answers: Bool
        var clock = BenchClock()
        var connectionsLast: Double?

        mutating func perform(
            _ action: TransportAction, now: Double, app: inout AppLedger, inputs: AppInputs, group: inout DiscardingTaskGroup
        ) {
            log.append(action, at: now)
            guard answers, case .send(let frame) = action else { return }
            switch frame {
            case .pollRequest:
                inputs.received(.pollResponse(first: 1, last: 0, latest: nil))
            case .postRequest(let id):
                app.acknowledge(id)
                inputs.received(.postResponse(ack: id))
            case .open:
                inputs.received(.accepted(newConnection: true))
                if let connectionsLast {
                    group.addTask { [clock] in
                        try? await clock.sleep(until: now + connectionsLast)
                        inputs.connectionEnded(.closedByPeer)
                    }
                }
            default:
                break
            }
        }

        func shutdown() async {}
    }

    /// Each test's own: its origin is the test's start.
    let clock = BenchClock(timeScale: 50)

    /// Plays `machine` until `until` bench seconds, doing `meanwhile` beside it.
    static func play<Machine: TransportClientModel>(
        _ machine: Machine, answers: Bool = true, connectionsLast: Double? = nil, ledger: DeviceLedger, clock: BenchClock,
        network: NetworkWatch? = nil, until: Double, meanwhile: @escaping @Sendable () async -> Void = {}
    ) async -> WireLog {
        let log = WireLog()
        let transport = ScriptedTransport(log: log, answers: answers, clock: clock, connectionsLast: connectionsLast)
        let driver = AppDriver(machine: machine, transport: transport, ledger: ledger, clock: clock, network: network)
        await withDiscardingTaskGroup { group in
            group.addTask { await driver.run() }
            group.addTask { await meanwhile() }
            try? await clock.sleep(until: until)
            group.cancelAll()
        }
        return log
    }

    static func settings(pollInterval: Double, requestTimeout: Double?) -> ClientSettings.RESTSettings {
        var settings = ClientSettings.RESTSettings()
        settings.pollInterval = pollInterval
        settings.requestTimeout = requestTimeout
        settings.backoff = Backoff(initial: 1, maximum: 1, multiplier: 1, jitter: 0)
        return settings
    }

    /// Polls every 10 s from 0 until 35 s; the message produced at 15 s is posted at once, and
    /// the machine polls right after it, as its loop does.
    @Test func pollsOnTheClockAndPostsAProducedMessageAtOnce() async {
        let ledger = DeviceLedger(device: 0, outboxLimit: 8)
        let machine = RESTPollingClientModel(settings: Self.settings(pollInterval: 10, requestTimeout: nil), batchLimit: 100, seed: 1)
        let log = await Self.play(machine, ledger: ledger, clock: clock, until: 35) {
            try? await clock.sleep(until: 15)
            ledger.produceMessage(createdAt: clock.now())
        }
        let sent = log.sent
        #expect(log.all.first?.action == .connect)
        #expect(log.all.filter { $0.action == .connect }.count == 1)
        #expect(sent.first?.frame == .pollRequest(after: 0))
        let posts = sent.indices.filter { sent[$0].frame == .postRequest(message: 1) }
        #expect(posts.count == 1)
        if let post = posts.first {
            #expect(sent[post].time >= 15)
            #expect(post + 1 < sent.count && sent[post + 1].frame == .pollRequest(after: 0))
        }
        // Polls on their own clock: at 0, 10, (15 after the post), 25 at the earliest.
        let polls = sent.filter { $0.frame == .pollRequest(after: 0) }.map(\.time)
        #expect((3...5).contains(polls.count), "\(polls)")
        for (earlier, later) in zip(polls, polls.dropFirst()) where !(earlier < 15 && later >= 15) {
            #expect(later - earlier >= 9.999, "\(polls)")
        }
        #expect(ledger.isSettled(eventsCreated: 0))
    }

    /// A request with no answer: the machine's 2 s timeout closes the connection, counts a
    /// failed attempt, waits its 1 s backoff and connects again.
    @Test func aRequestThatOutlivesItsTimeoutIsClosedAndRetriedAfterTheBackoff() async {
        let ledger = DeviceLedger(device: 0, outboxLimit: 8)
        let machine = RESTPollingClientModel(settings: Self.settings(pollInterval: 10, requestTimeout: 2), batchLimit: 100, seed: 1)
        let log = await Self.play(machine, answers: false, ledger: ledger, clock: clock, until: 10)
        let actions = log.all
        #expect(
            Array(actions.map(\.action).prefix(5)) == [
                .connect, .send(.pollRequest(after: 0)), .closeConnection, .connect, .send(.pollRequest(after: 0)),
            ])
        if actions.count >= 4 {
            #expect(actions[2].time - actions[1].time >= 1.999)
            #expect(actions[3].time - actions[2].time >= 0.999)
        }
        let closes = actions.filter { $0.action == .closeConnection }.count
        let connects = actions.filter { $0.action == .connect }.count
        let record = ledger.record
        #expect(closes >= 2)
        #expect(record.failedAttempts == closes)
        // Each new connection after the first is one after a failure.
        #expect(connects == closes + 1 || connects == closes)
    }

    /// Watching the network, offline from the start: nothing is sent until it is back at 5 s,
    /// then the poll goes at once.
    @Test func aWatchingAppSendsNothingWhileOfflineAndPollsWhenTheNetworkReturns() async {
        let ledger = DeviceLedger(device: 0, outboxLimit: 8)
        var settings = Self.settings(pollInterval: 10, requestTimeout: nil)
        settings.watchNetwork = true
        let up = Mutex(false)
        let network = NetworkWatch(clock: clock) { up.withLock { $0 } }
        let log = await Self.play(
            RESTPollingClientModel(settings: settings, batchLimit: 100, seed: 1), ledger: ledger, clock: clock, network: network,
            until: 12
        ) {
            try? await clock.sleep(until: 5)
            up.withLock { $0 = true }
        }
        let first = log.all.first
        #expect(first?.action == .connect)
        #expect((first?.time ?? 0) >= 5)
        #expect(log.sent.first?.frame == .pollRequest(after: 0))
    }

    /// The WebSocket machine on the same driver: each connection closed by the peer 3 s after
    /// its upgrade is opened again after the 2 s backoff, resuming after the highest event that
    /// came off the network (5, still in the app's buffer), and the message produced while it
    /// was down (at 4 s, a second of bench time from either edge) goes on the new connection.
    @Test func aWebSocketMachineReconnectsAfterItsBackoffAndResumesAfterWhatItRead() async {
        let ledger = DeviceLedger(device: 0, outboxLimit: 8)
        var settings = ClientSettings.WebSocketSettings()
        settings.pingInterval = nil
        settings.backoff = Backoff(initial: 2, maximum: 2, multiplier: 1, jitter: 0)
        let log = await Self.play(
            WebSocketClientModel(settings: settings, seed: 1), connectionsLast: 3, ledger: ledger, clock: clock, until: 11.5
        ) {
            try? await clock.sleep(until: 1)
            ledger.readOffNetwork(5)
            try? await clock.sleep(until: 4)
            ledger.produceMessage(createdAt: clock.now())
        }
        let opens = log.sent.filter { if case .open = $0.frame { true } else { false } }
        #expect(
            opens.map(\.frame) == [
                .open(after: 0, newConnection: true), .open(after: 5, newConnection: true), .open(after: 5, newConnection: true),
            ])
        if opens.count == 3 {
            #expect(opens[1].time - opens[0].time >= 4.999)
        }
        let message = log.sent.first { $0.frame == .message(1) }
        #expect(message != nil && message!.time >= opens[1].time)
        #expect(ledger.record.failedAttempts == 2)
    }

    /// A connection the machine closed can still report its end after the next one opened (a
    /// task's cancellation is not at once). This transport's first connection ends by itself;
    /// the second's opening comes with a late end of the first. The driver drops that end, so
    /// the machine keeps its second connection; taken as the second's, it would fail it, back
    /// off and open a third.
    @Test func anEndFromAConnectionTheMachineReplacedIsDropped() async {
        struct LateEndTransport: LiveTransport {
            let log: WireLog
            var opened = 0

            mutating func perform(
                _ action: TransportAction, now: Double, app: inout AppLedger, inputs: AppInputs, group: inout DiscardingTaskGroup
            ) {
                log.append(action, at: now)
                guard case .send(.open) = action else { return }
                opened += 1
                let number = opened
                if number > 1 { inputs.connectionEnded(.closedByPeer, on: number - 1) }
                inputs.received(.accepted(newConnection: true), on: number)
                if number == 1 { inputs.connectionEnded(.closedByPeer, on: 1) }
            }

            func isCurrent(_ connection: Int) -> Bool { connection == opened }

            func shutdown() async {}
        }
        let ledger = DeviceLedger(device: 0, outboxLimit: 8)
        var settings = ClientSettings.WebSocketSettings()
        settings.pingInterval = nil
        settings.backoff = Backoff(initial: 1, maximum: 1, multiplier: 1, jitter: 0)
        let log = WireLog()
        let driver = AppDriver(
            machine: WebSocketClientModel(settings: settings, seed: 1), transport: LateEndTransport(log: log), ledger: ledger,
            clock: clock, network: nil)
        await withDiscardingTaskGroup { group in
            group.addTask { await driver.run() }
            try? await clock.sleep(until: 10)
            group.cancelAll()
        }
        let opens = log.sent.filter { if case .open = $0.frame { true } else { false } }
        #expect(opens.count == 2)
        #expect(ledger.record.failedAttempts == 1)
    }
}
