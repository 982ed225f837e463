import NetsimCore

/// The gRPC bidi client in the model engine: the app's policy (`GRPCApp`, which the live bench
/// plays over grpc-swift itself) over a model of what grpc-swift-nio-transport's channel does
/// underneath it, which live is the library's own:
///
/// - A call the app opens goes on the current connection, or on a new one (its SYN, then the
///   preface with the call's HEADERS and Subscribe) when there is none, or waits for a
///   connection still setting up HTTP/2.
/// - Keepalive as grpc-swift-nio-transport 2.9.2's `ClientConnectionHandler` implements gRFC A8:
///   the timer starts at the server's first SETTINGS and again at each PING ACK, and repeats;
///   when it fires with a call open (or `permitWithoutCalls`) it sends a PING, and no ACK within
///   the timeout closes the connection (GOAWAY "keepalive_expired").
/// - After a keepalive timeout, or a RST or TCP timeout while a call is open, the call fails
///   and the app reopens it at once; with `GRPCReconnection.oneConnection` (grpc-java, grpc-go,
///   C-core) on one new connection. grpc-swift 2 opens two connections at once, whether or not
///   the phone has a network: grpc-swift-nio-transport 2.9.2's `Subchannel` reconnects on
///   `.keepaliveTimeout` and `.error(wasIdle: false)` and asks for the name to be resolved
///   again, and `PickFirstLoadBalancer`, which never records the endpoint it was given, makes a
///   second subchannel for the same address. Both start HTTP/2 (the reconnection's SYN first),
///   and the call waits for the first to finish:
///   - the second first: the load balancer closes the reconnection (a FIN) and the call goes on
///     the second;
///   - the reconnection first: the call goes on it. When the second is ready the load balancer
///     "rolls over": it closes the first gracefully, so the call stays on it until the call
///     ends, and the second becomes the connection the next call goes on. That one carries
///     nothing and sends no pings (unless `permitWithoutCalls`), so a NAT may forget it, and the
///     next call, after the first connection dies, goes on it and waits for keepalive to find it
///     dead. The tuner's `--verify` found this.
/// - With `maxPingsWithoutData` (gRPC C-core's `grpc.http2.max_pings_without_data`, 2 by
///   default there), once that many pings went with no HEADERS or DATA written since, the next
///   waits until a minute after the last (C-core's throttle); writing HEADERS or DATA lifts it.
/// - A GOAWAY with ENHANCE_YOUR_CALM "too_many_pings" closes the connection, and the client
///   doubles its keepalive time, as A8 requires.
/// - A call the app cancels (its time limit) sends RST_STREAM on its connection; after a
///   roll-over, that call was the last stream of the connection rolled over, which closes, and
///   the renewed call goes on the waiting connection.
///
/// The app's actions are its call's (`GRPCApp`); this turns them into the wire's, in order.
public struct GRPCClientModel: Sendable {
    public enum Connection: Sendable, Equatable {
        case none
        /// Opened with the call's `open`, which carries the preface.
        case handshaking
        /// Opened by the subchannel with the preface alone: a call waits for its SETTINGS.
        case settingUp
        case ready
    }

    /// The load balancer's second subchannel's connection (`TransportAction.openSpareConnection`).
    public enum Spare: Sendable, Equatable {
        case none
        /// Racing the reconnection to finish HTTP/2 first.
        case settingUp
        /// Ready, behind a connection the load balancer rolled over: the next call goes on it.
        case standby
    }

    /// The app's call as the channel carries it.
    private enum Stream: Equatable {
        case none
        /// Opened by the app; `waitsFor` holds its Subscribe's cursor while it waits for the
        /// current connection's SETTINGS (nil: its HEADERS went).
        case opening(waitsFor: UInt64?)
        case open
    }

    /// The app's policy, which the live bench plays over grpc-swift.
    private var app: GRPCApp
    public private(set) var connection = Connection.none
    public private(set) var spare = Spare.none
    /// The load balancer rolled the current connection over: it carries the call until the call
    /// ends and then closes; its subchannel is shut down, so its death opens no connection.
    public private(set) var goingAway = false
    private var stream = Stream.none
    /// The spare's keepalive: when its timer next fires, and whether its ping awaits an ACK.
    private var spareTimerDue = 0.0
    private var spareAwaitingPingAck = false
    /// The keepalive time in force: the configured one, doubled after each too_many_pings.
    public private(set) var keepaliveTime: Double
    let settings: ClientSettings.GRPCClientSettings
    private var awaitingPingAck = false
    /// Pings sent since the client last wrote HEADERS or DATA, and when the last went.
    private var pingsWithoutData = 0
    private var lastPingSent: Double?
    /// When the next ping is due by the keepalive time alone, while the throttle holds it later.
    private var throttledPingDue: Double?
    /// The app's actions of one input, before they become the wire's (kept: one buffer a run).
    private var appActions: [TransportAction] = []

    /// C-core's throttle on pings without data (`kThrottleIntervalWithoutDataSent`).
    static let pingThrottleWithoutData = 60.0

    public var call: GRPCApp.Call { app.call }

    public init(
        settings: ClientSettings.GRPCClientSettings, batching: ClientSettings.Batching? = nil,
        reconnect: ClientSettings.Reconnect = .resilient, seed: UInt64
    ) {
        self.settings = settings
        self.app = GRPCApp(settings: settings, batching: batching, reconnect: reconnect, seed: seed)
        self.keepaliveTime = settings.keepaliveTime
    }

    public mutating func start(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        app.start(now: now, ledger: &ledger, into: &appActions)
        carryOut(now: now, ledger: &ledger, into: &actions)
    }

    public mutating func received(_ frame: Frame, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        switch frame {
        case .accepted(let newConnection):
            if newConnection, connection == .handshaking {
                connection = .ready
                keepaliveStarts(now: now, into: &actions)
            }
            guard case .opening = stream else { return }
            stream = .open
            app.received(frame, now: now, ledger: &ledger, into: &appActions)
            carryOut(now: now, ledger: &ledger, into: &actions)
        case .prefaceAccepted where connection == .settingUp:
            // The server's SETTINGS on the subchannel's connection: keepalive starts, and a call
            // waiting for a ready connection goes on it.
            connection = .ready
            keepaliveStarts(now: now, into: &actions)
            sendWaitingOpen(into: &actions)
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

    /// A frame on the spare connection: the server's SETTINGS (which decide the race), a PING
    /// ACK, the server's PING or its GOAWAY.
    public mutating func spareReceived(_ frame: Frame, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        switch frame {
        case .prefaceAccepted where spare == .settingUp:
            spareReady(now: now, ledger: &ledger, into: &actions)
        case .pong(toClient: true) where spareAwaitingPingAck:
            spareAwaitingPingAck = false
            actions.append(.cancelTimer(.sparePingTimeout))
            spareTimerDue = now + keepaliveTime
            actions.append(.setTimer(.sparePing, at: spareTimerDue))
        case .ping(fromClient: false):
            actions.append(.sendOnSpare(.pong(toClient: false)))
        case .goAway:
            actions.append(.closeSpareConnection)
            spareGone(into: &actions)
        default:
            break
        }
    }

    /// The spare connection is gone (a RST, the server's FIN, or TCP gave up). An idle
    /// subchannel's error leaves it idle (`.error(wasIdle: true)`): nothing reconnects.
    public mutating func spareEnded(_ end: ConnectionEnd, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        spareGone(into: &actions)
    }

    public mutating func messageProduced(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        app.messageProduced(now: now, ledger: &ledger, into: &appActions)
        carryOut(now: now, ledger: &ledger, into: &actions)
    }

    /// The app's: on one connection, a cancelled call's events and acknowledgements all arrive
    /// before the new call's response headers, and are dropped.
    public func delivers(_ frame: Frame) -> Bool {
        app.delivers(frame)
    }

    public mutating func timerFired(_ timer: TransportTimer, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        switch timer {
        case .ping where connection == .ready:
            guard hasStream || settings.permitWithoutCalls else {
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
        case .sparePing where spare == .standby:
            guard settings.permitWithoutCalls else {
                spareTimerDue = now + keepaliveTime
                actions.append(.setTimer(.sparePing, at: spareTimerDue))
                return
            }
            spareAwaitingPingAck = true
            actions.append(.sendOnSpare(.ping(fromClient: true)))
            spareTimerDue = now + settings.keepaliveTimeout
            actions.append(.setTimer(.sparePingTimeout, at: spareTimerDue))
        case .sparePingTimeout where spareAwaitingPingAck:
            // Its subchannel would reconnect; the model lets it go (it carries no call).
            actions.append(.sendOnSpare(.goAway(tooManyPings: false)))
            actions.append(.closeSpareConnection)
            spareGone(into: &actions)
        case .callDeadline, .retry, .flush:
            app.timerFired(timer, now: now, ledger: &ledger, into: &appActions)
            carryOut(now: now, ledger: &ledger, into: &actions)
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
        let reconnects = end != .closedByPeer && connection == .ready && stream == .open
        connectionGone(reconnect: reconnects, now: now, ledger: &ledger, into: &actions)
    }

    /// The phone's network went away or came back: the app's to act on (grpc-swift's channel
    /// does not watch it).
    public mutating func networkChanged(
        available: Bool, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {
        app.networkChanged(available: available, now: now, ledger: &ledger, into: &appActions)
        carryOut(now: now, ledger: &ledger, into: &actions)
    }

    /// Turns what the app asked for into the wire's actions, in order: opening a call, writing
    /// its messages and cancelling it are the channel's to carry; timers pass through.
    private mutating func carryOut(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        var asked = appActions
        appActions = []
        defer {
            asked.removeAll(keepingCapacity: true)
            appActions = asked
        }
        for action in asked {
            switch action {
            case .connect:
                // The call's own: which connection it goes on is decided at its open.
                break
            case .send(.open(let after, _)):
                openStream(after: after, into: &actions)
            case .send(let frame):
                actions.append(.send(frame))
                wroteHeadersOrData(into: &actions)
            case .closeConnection:
                cancelStream(now: now, ledger: &ledger, into: &actions)
            default:
                actions.append(action)
            }
        }
    }

    /// The app opened a call: on a new connection when there is none, after the SETTINGS of one
    /// setting up, else on the current one.
    private mutating func openStream(after: UInt64, into actions: inout [TransportAction]) {
        let newConnection = connection == .none
        if newConnection {
            connection = .handshaking
            actions.append(.connect)
        }
        if connection == .settingUp {
            stream = .opening(waitsFor: after)
        } else {
            stream = .opening(waitsFor: nil)
            actions.append(.send(.open(after: after, newConnection: newConnection)))
            wroteHeadersOrData(into: &actions)
        }
    }

    /// The app cancelled its call: its RST_STREAM, unless its HEADERS never went. After a
    /// roll-over it was the last stream of the connection rolled over, which closes.
    private mutating func cancelStream(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        let sent = stream == .opening(waitsFor: nil) || stream == .open
        stream = .none
        if sent { actions.append(.send(.callCancelled)) }
        if goingAway { closeConnection(now: now, ledger: &ledger, into: &actions) }
    }

    /// Closes the current connection; with `reconnect`, the subchannel's two new connections
    /// open before the call hears of its failure, so a reopened call waits for them.
    private mutating func closeConnection(
        now: Double, ledger: inout AppLedger, reconnect: Bool = false, into actions: inout [TransportAction]
    ) {
        guard connection != .none else { return }
        actions.append(.closeConnection)
        connectionGone(reconnect: reconnect, now: now, ledger: &ledger, into: &actions)
    }

    /// The current connection is gone. With `reconnect` (an unclean close), its subchannel opens
    /// the two racing connections, unless the load balancer had rolled it over: its subchannel
    /// is shut down, and the standby connection takes its place. A call waiting for a
    /// connection to be ready waits on for the spare; any other call has failed.
    private mutating func connectionGone(
        reconnect: Bool, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {
        connection = .none
        awaitingPingAck = false
        actions.append(.cancelTimer(.ping))
        actions.append(.cancelTimer(.pingTimeout))
        if reconnect, !goingAway, (settings.reconnection ?? .grpcSwift2) == .grpcSwift2 {
            subchannelReconnection(into: &actions)
        } else if spareTakesOver(into: &actions), case .opening(waitsFor: .some) = stream {
            return
        }
        guard stream != .none else { return }
        stream = .none
        app.connectionEnded(.reset, now: now, ledger: &ledger, into: &appActions)
        carryOut(now: now, ledger: &ledger, into: &actions)
    }

    /// The two connections grpc-swift opens at once after an unclean close: the subchannel's
    /// reconnection becomes current, and the load balancer's second subchannel's connection is
    /// the spare (replacing an earlier spare). Both start HTTP/2; a call waits for the first.
    private mutating func subchannelReconnection(into actions: inout [TransportAction]) {
        connection = .settingUp
        goingAway = false
        actions.append(.connect)
        actions.append(.send(.preface))
        spareGone(into: &actions)
        spare = .settingUp
        actions.append(.openSpareConnection)
    }

    /// The spare finished HTTP/2 setup. If the current connection has not, the load balancer
    /// closes that one and the waiting call goes on the spare. If it has and carries the call,
    /// the load balancer rolls over: the call stays where it is and the spare waits, ready, for
    /// the next. If it carries nothing, it closes and the spare replaces it.
    private mutating func spareReady(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {
        if connection == .ready, hasStream {
            spare = .standby
            goingAway = true
            spareTimerDue = now + keepaliveTime
            actions.append(.setTimer(.sparePing, at: spareTimerDue))
            return
        }
        if connection != .none {
            actions.append(.closeConnection)
            actions.append(.cancelTimer(.ping))
            actions.append(.cancelTimer(.pingTimeout))
        }
        actions.append(.promoteSpareConnection)
        spare = .none
        goingAway = false
        connection = .ready
        keepaliveStarts(now: now, into: &actions)
        sendWaitingOpen(into: &actions)
    }

    /// The spare becomes the current connection, keeping its keepalive timer; false when there
    /// is none.
    private mutating func spareTakesOver(into actions: inout [TransportAction]) -> Bool {
        goingAway = false
        switch spare {
        case .none:
            return false
        case .settingUp:
            connection = .settingUp
        case .standby:
            connection = .ready
            pingsWithoutData = 0
            lastPingSent = nil
            throttledPingDue = nil
            awaitingPingAck = spareAwaitingPingAck
            actions.append(.setTimer(spareAwaitingPingAck ? .pingTimeout : .ping, at: spareTimerDue))
        }
        actions.append(.promoteSpareConnection)
        spareGone(into: &actions)
        return true
    }

    /// Forgets the spare and its keepalive.
    private mutating func spareGone(into actions: inout [TransportAction]) {
        if spare == .standby {
            actions.append(.cancelTimer(.sparePing))
            actions.append(.cancelTimer(.sparePingTimeout))
        }
        spare = .none
        spareAwaitingPingAck = false
    }

    /// Whether a call has a stream on the current connection (its HEADERS went).
    private var hasStream: Bool {
        stream == .open || stream == .opening(waitsFor: nil)
    }

    /// A call that waited for a ready connection goes on the current one.
    private mutating func sendWaitingOpen(into actions: inout [TransportAction]) {
        guard case .opening(waitsFor: .some(let after)) = stream, connection == .ready else { return }
        stream = .opening(waitsFor: nil)
        actions.append(.send(.open(after: after, newConnection: false)))
        wroteHeadersOrData(into: &actions)
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
