import NetsimCore

/// The gRPC bidi app as a state machine: the live bench's `LiveGRPCClient` (its
/// `ReconnectionStateMachine`: a lost call is reopened at once, a failed attempt waits a
/// jittered exponential backoff, no attempts while the phone has no network) over the
/// grpc-swift-nio-transport connection it drives:
///
/// - A naive client (`reconnect: naive`) opens every call from now, waits the fixed naive retry
///   and does not watch the network, as the live bench's naive `LiveGRPCClient`.
/// - Keepalive as grpc-swift-nio-transport 2.9.2's `ClientConnectionHandler` implements gRFC A8:
///   the timer starts at the server's first SETTINGS and again at each PING ACK, and repeats;
///   when it fires with a call open (or `permitWithoutCalls`) it sends a PING, and no ACK within
///   the timeout closes the connection (GOAWAY "keepalive_expired").
/// - After a keepalive timeout, or a RST or TCP timeout while a call is open, grpc-swift opens two
///   connections at once, whether or not the phone has a network (grpc-swift-nio-transport's
///   `Subchannel` on `.keepaliveTimeout` and `.error(wasIdle: false)`): both
///   start HTTP/2, one idles ever after, and the next call goes on the other, even one still
///   waiting for the server's SETTINGS. The live bench's captures show both handshakes; the
///   tuner's `--verify` showed the call waiting on a connection opened during an outage.
/// - With `maxPingsWithoutData` (gRPC C-core's `grpc.http2.max_pings_without_data`, 2 by
///   default there), once that many pings went with no HEADERS or DATA written since, the next
///   waits until a minute after the last (C-core's throttle); writing HEADERS or DATA lifts it.
/// - A GOAWAY with ENHANCE_YOUR_CALM "too_many_pings" closes the connection, and the client
///   doubles its keepalive time, as A8 requires.
/// - A call reaching its time limit is cancelled (RST_STREAM) and renewed at once on the same
///   connection, resuming from the last event received.
public struct GRPCClientModel: Sendable {
    public enum Connection: Sendable, Equatable {
        case none
        case handshaking
        case ready
    }

    public enum Call: Sendable, Equatable {
        case none
        case opening
        case open
        case backingOff
        case suspended
    }

    public private(set) var connection = Connection.none
    public private(set) var call = Call.none
    /// The keepalive time in force: the configured one, doubled after each too_many_pings.
    public private(set) var keepaliveTime: Double
    let settings: ClientSettings.GRPCClientSettings
    private var random: SeededRandom
    private var reconnection: Reconnection
    let reconnect: ClientSettings.Reconnect
    private var generation = 0
    private var networkAvailable = true
    private var awaitingPingAck = false
    /// Pings sent since the client last wrote HEADERS or DATA, and when the last went.
    private var pingsWithoutData = 0
    private var lastPingSent: Double?
    /// When the next ping is due by the keepalive time alone, while the throttle holds it later.
    private var throttledPingDue: Double?

    /// C-core's throttle on pings without data (`kThrottleIntervalWithoutDataSent`).
    static let pingThrottleWithoutData = 60.0

    public init(settings: ClientSettings.GRPCClientSettings, reconnect: ClientSettings.Reconnect = .resilient, seed: UInt64) {
        self.settings = settings
        self.reconnect = reconnect
        self.keepaliveTime = settings.keepaliveTime
        self.random = SeededRandom(seed: seed)
        self.reconnection = Reconnection(reconnect.backoff(settings.backoff))
    }

    public mutating func start(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        openCall(startingOver: true, now: now, ledger: &ledger, into: &actions)
    }

    public mutating func received(_ frame: Frame, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        switch frame {
        case .accepted(let newConnection):
            if newConnection, connection == .handshaking {
                connection = .ready
                keepaliveStarts(now: now, into: &actions)
            }
            guard case .opening = call else { return }
            call = .open
            sendOutbox(ledger: &ledger, into: &actions)
        case .prefaceAccepted where connection == .handshaking:
            // The server's SETTINGS on the subchannel's reconnection: keepalive starts.
            connection = .ready
            keepaliveStarts(now: now, into: &actions)
        case .pong(toClient: true) where awaitingPingAck:
            awaitingPingAck = false
            actions.append(.cancelTimer(.pingTimeout))
            actions.append(.setTimer(.ping, at: nextPing(due: now + keepaliveTime)))
        case .ping(fromClient: false):
            actions.append(.send(.pong(toClient: false)))
        case .goAway(let tooManyPings):
            if tooManyPings { keepaliveTime *= 2 }
            closeConnection(now: now, ledger: &ledger, into: &actions)
        default:
            break
        }
    }

    public mutating func messageProduced(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        if call == .open { sendOutbox(ledger: &ledger, into: &actions) }
    }

    /// Events and acknowledgements reach the app only on an open call: those of a call the
    /// client cancelled (a renewal) arrive on a closed HTTP/2 stream and are dropped, and on one
    /// connection they all arrive before the new call's response headers.
    public func delivers(_ frame: Frame) -> Bool {
        switch frame {
        case .event, .ack: call == .open
        default: true
        }
    }

    public mutating func timerFired(_ timer: TransportTimer, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        switch timer {
        case .ping where connection == .ready:
            guard call == .open || settings.permitWithoutCalls else {
                actions.append(.setTimer(.ping, at: now + keepaliveTime))
                return
            }
            awaitingPingAck = true
            pingsWithoutData += 1
            lastPingSent = now
            actions.append(.send(.ping(fromClient: true)))
            actions.append(.setTimer(.pingTimeout, at: now + settings.keepaliveTimeout))
        case .pingTimeout where awaitingPingAck:
            actions.append(.send(.goAway(tooManyPings: false)))
            closeConnection(now: now, ledger: &ledger, reconnect: true, into: &actions)
        case .callDeadline where call == .open || isOpening:
            ledger.countCallRenewal()
            call = .none
            actions.append(.send(.callCancelled))
            openCall(startingOver: true, now: now, ledger: &ledger, into: &actions)
        case .retry:
            guard call == .backingOff else { return }
            openCall(startingOver: false, now: now, ledger: &ledger, into: &actions)
        default:
            break
        }
    }

    public mutating func connectionEnded(
        _ end: ConnectionEnd, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {
        guard connection != .none else { return }
        // grpc-swift's subchannel treats an error on a connection with a stream open as it
        // treats a keepalive timeout (`Subchannel` `.error(wasIdle: false)`): it reconnects at
        // once, network or not. A FIN is a clean close: it waits for the next call.
        let reconnects = end != .closedByPeer && connection == .ready && call == .open
        connection = .none
        awaitingPingAck = false
        actions.append(.cancelTimer(.ping))
        actions.append(.cancelTimer(.pingTimeout))
        if reconnects { subchannelReconnection(into: &actions) }
        callFailed(now: now, ledger: &ledger, into: &actions)
    }

    /// The phone's network went away or came back (a mobile OS's reachability callback).
    public mutating func networkChanged(
        available: Bool, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {
        guard reconnect == .resilient else { return }
        networkAvailable = available
        switch (call, available) {
        case (.backingOff, false):
            call = .suspended
            actions.append(.cancelTimer(.retry))
        case (.suspended, true):
            openCall(startingOver: true, now: now, ledger: &ledger, into: &actions)
        default:
            break
        }
    }

    private var isOpening: Bool {
        if case .opening = call { return true }
        return false
    }

    /// Closes the current connection; with `reconnect`, the subchannel's two new connections
    /// open before the call hears of its failure, so a reopened call goes on the second.
    private mutating func closeConnection(
        now: Double, ledger: inout AppLedger, reconnect: Bool = false, into actions: inout [TransportAction]
    ) {
        guard connection != .none else { return }
        connection = .none
        awaitingPingAck = false
        actions.append(.cancelTimer(.ping))
        actions.append(.cancelTimer(.pingTimeout))
        actions.append(.closeConnection)
        if reconnect { subchannelReconnection(into: &actions) }
        callFailed(now: now, ledger: &ledger, into: &actions)
    }

    /// The two connections grpc-swift opens at once after an unclean close: one idles ever
    /// after, the other becomes current and starts HTTP/2 (the next call goes on it).
    private mutating func subchannelReconnection(into actions: inout [TransportAction]) {
        connection = .handshaking
        actions.append(.openSpareConnection)
        actions.append(.connect)
        actions.append(.send(.preface))
    }

    /// The call ended with an error: reopened at once if it had opened, else after backoff.
    private mutating func callFailed(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        switch call {
        case .open:
            ledger.countFailedAttempt()
            actions.append(.cancelTimer(.callDeadline))
            openCall(startingOver: true, now: now, ledger: &ledger, into: &actions)
        case .opening:
            ledger.countFailedAttempt()
            actions.append(.cancelTimer(.callDeadline))
            guard networkAvailable else {
                call = .suspended
                return
            }
            call = .backingOff
            actions.append(.setTimer(.retry, at: now + reconnection.failed(random: &random)))
        case .none, .backingOff, .suspended:
            break
        }
    }

    /// Opens a call: `startingOver` after one that had opened, at the start and when the
    /// network returns (the backoff's count starts over), not on a retry after a failed attempt.
    private mutating func openCall(
        startingOver: Bool, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {
        if startingOver { reconnection.startOver() }
        guard networkAvailable else {
            call = .suspended
            return
        }
        generation = ledger.beginConnection()
        call = .opening
        let newConnection = connection == .none
        if newConnection {
            connection = .handshaking
            actions.append(.connect)
        }
        actions.append(
            .send(.open(after: reconnect.resumeCursor(highestReceived: ledger.highestSequence), newConnection: newConnection)))
        wroteHeadersOrData(into: &actions)
        if let limit = settings.callTimeLimit { actions.append(.setTimer(.callDeadline, at: now + limit)) }
    }

    private mutating func sendOutbox(ledger: inout AppLedger, into actions: inout [TransportAction]) {
        while let id = ledger.nextMessage(for: generation) {
            actions.append(.send(.message(id)))
            wroteHeadersOrData(into: &actions)
        }
    }

    /// A new connection's keepalive: its first ping after the keepalive time, and no pings
    /// counted without data on it yet.
    private mutating func keepaliveStarts(now: Double, into actions: inout [TransportAction]) {
        awaitingPingAck = false
        pingsWithoutData = 0
        lastPingSent = nil
        throttledPingDue = nil
        actions.append(.setTimer(.ping, at: now + keepaliveTime))
    }

    /// When the ping due at `due` may go: then, unless the pings without data are used up and
    /// the last went less than a minute before (C-core's throttle).
    private mutating func nextPing(due: Double) -> Double {
        guard let most = settings.maxPingsWithoutData, pingsWithoutData >= most, let last = lastPingSent,
            last + Self.pingThrottleWithoutData > due
        else {
            throttledPingDue = nil
            return due
        }
        throttledPingDue = due
        return last + Self.pingThrottleWithoutData
    }

    /// The client wrote HEADERS or DATA: the pings without data count from zero, and a ping the
    /// throttle held goes when the keepalive time alone would send it.
    private mutating func wroteHeadersOrData(into actions: inout [TransportAction]) {
        pingsWithoutData = 0
        if let due = throttledPingDue, connection == .ready, !awaitingPingAck {
            throttledPingDue = nil
            actions.append(.setTimer(.ping, at: due))
        }
    }
}
