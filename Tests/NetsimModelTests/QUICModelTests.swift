import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimInput
@testable import NetsimModel

/// The QUIC transport of the model engine: the client's state machine alone, the path's loss
/// recovery figures by hand from RFC 9002, and whole devices behind UDP NATs and handovers.
@Suite(.computes) struct QUICModelTests {
    // MARK: The client alone

    @Test func aFirstConnectionWaitsOneRoundTripAndALaterOneSendsItsRequestAs0RTT() {
        var client = QUICClientModel(settings: QUICSettings(), seed: 1)
        var ledger = AppLedger(outboxLimit: 8)
        #expect(client.start(now: 0, ledger: &ledger) == [.connect, .send(.clientHello(resumed: false)), .setTimer(.idle, at: 5)])
        #expect(
            client.received(.serverHello(resumed: false), now: 0.1, ledger: &ledger) == [
                .send(.clientFinished), .setTimer(.idle, at: 30.1), .send(.open(after: 0, newConnection: true)),
            ])
        // Open: nothing received for 15 s (at most half the 30 s idle timeout) sends a PING.
        #expect(
            client.received(.accepted(newConnection: true), now: 0.15, ledger: &ledger) == [
                .setTimer(.idle, at: 30.15), .setTimer(.ping, at: 15.15),
            ])
        #expect(client.phase == .open)
        #expect(
            client.timerFired(.ping, now: 15.15, ledger: &ledger) == [
                .send(.ping(fromClient: true)), .setTimer(.idle, at: 45.15), .setTimer(.ping, at: 30.15),
            ])
        // Nothing came back: the idle timeout closes it silently, and the client connects again
        // at once with its session ticket, the request in the first flight.
        #expect(
            client.timerFired(.idle, now: 45.15, ledger: &ledger) == [
                .closeConnection, .cancelTimer(.ping), .cancelTimer(.idle), .connect, .send(.clientHello(resumed: true)),
                .setTimer(.idle, at: 50.15), .send(.open(after: 0, newConnection: true)),
            ])
        #expect(ledger.record.failedAttempts == 1)
    }

    @Test func aHandoverMigratesTheConnectionOrWithoutMigrationReplacesIt() {
        var ledger = AppLedger(outboxLimit: 8)
        func opened(_ settings: QUICSettings) -> QUICClientModel {
            var client = QUICClientModel(settings: settings, seed: 1)
            _ = client.start(now: 0, ledger: &ledger)
            _ = client.received(.serverHello(resumed: false), now: 0.1, ledger: &ledger)
            _ = client.received(.accepted(newConnection: true), now: 0.2, ledger: &ledger)
            return client
        }
        var migrating = opened(QUICSettings())
        #expect(migrating.addressChanged(now: 30, ledger: &ledger) == [.send(.ping(fromClient: true)), .setTimer(.idle, at: 60)])
        #expect(migrating.received(.pathChallenge, now: 30.2, ledger: &ledger).first == .send(.pathResponse))
        var settings = QUICSettings()
        settings.onNetworkChange = .reconnect
        var replacing = opened(settings)
        #expect(
            replacing.addressChanged(now: 30, ledger: &ledger).prefix(4) == [
                .closeConnection, .cancelTimer(.ping), .cancelTimer(.idle), .connect,
            ])
    }

    @Test func aStatelessResetEndsTheConnectionAtOnce() {
        var client = QUICClientModel(settings: QUICSettings(), seed: 1)
        var ledger = AppLedger(outboxLimit: 8)
        _ = client.start(now: 0, ledger: &ledger)
        _ = client.received(.serverHello(resumed: false), now: 0.1, ledger: &ledger)
        _ = client.received(.accepted(newConnection: true), now: 0.2, ledger: &ledger)
        let actions = client.received(.statelessReset, now: 10, ledger: &ledger)
        #expect(actions.contains(.connect))
        #expect(!actions.contains(.closeConnection), "the connection is already gone; the new one replaces it")
    }

    /// The datagrams of docs/model-engine.md's table: a frame's bytes and the 27 of its packet
    /// (device 0, sequence 1, 256-byte payloads, written at 5 s).
    @Test func packetSizes() {
        let wire = WireFormat(encoding: .transport(.quic), eventPayloadBytes: 256, messagePayloadBytes: 256)
        func datagrams(_ frame: Frame) -> [Int] { wire.chunks(frame, at: 5).map { $0 + WireFormat.quicPacketOverhead } }
        #expect(datagrams(.clientHello(resumed: false)) == [1200])
        #expect(datagrams(.serverHello(resumed: false)) == [1200, 1200])
        #expect(datagrams(.serverHello(resumed: true)) == [350])
        #expect(datagrams(.clientFinished) == [92])
        #expect(datagrams(.open(after: 0, newConnection: false)) == [84])
        #expect(datagrams(.open(after: 0, newConnection: true)) == [100])
        #expect(datagrams(.accepted(newConnection: false)) == [38])
        #expect(datagrams(.accepted(newConnection: true)) == [338])
        // {"payload":"...","seq":1,"createdAt":5.000000000} and a newline, in a DATA frame.
        #expect(datagrams(.event(1)) == [337])
        #expect(datagrams(.ack(1)) == [44])
        #expect(datagrams(.message(1)) == [336])
        #expect(datagrams(.ping(fromClient: true)) == [28])
        #expect(datagrams(.packetAck) == [32])
        #expect(datagrams(.pathChallenge) == [1200])
        #expect(datagrams(.statelessReset) == [43])
    }

    // MARK: The path

    /// RFC 9002 section 5.3 by hand: the first sample sets the estimate (50 ms, variation 25 ms),
    /// the second moves it (smoothed 7/8 * 50 + 1/8 * 90 = 55 ms, variation 3/4 * 25 + 1/4 * 40
    /// = 28.75 ms); the probe timeout adds four variations and the 25 ms ACK delay, and doubles.
    @Test func probeTimeoutsFollowRFC9002() {
        var estimate = RoundTripEstimate()
        #expect(estimate.probeTimeout(afterProbes: 0) == 0.2)
        estimate.add(0.05)
        #expect(abs(estimate.probeTimeout(afterProbes: 0) - 0.175) < 1e-12)
        estimate.add(0.09)
        #expect(abs(estimate.probeTimeout(afterProbes: 0) - 0.195) < 1e-12)
        #expect(abs(estimate.probeTimeout(afterProbes: 2) - 0.78) < 1e-12)
    }

    @Test func streamDataIsHandedOverInOrder() {
        var path = QUICPath(openedAt: 0)
        let first = path.sequence(.down)
        let second = path.sequence(.down)
        let third = path.sequence(.down)
        #expect(path.arrived(sequence: second, key: 12, .down).isEmpty)
        #expect(path.arrived(sequence: third, key: 13, .down).isEmpty)
        #expect(path.waiting == 2)
        #expect(path.arrived(sequence: first, key: 11, .down) == [11, 12, 13])
        #expect(path.waiting == 0)
        #expect(path.arrived(sequence: path.sequence(.up), key: 20, .up) == [20])
    }

    // MARK: Devices

    /// An open stream and nothing on it: keepalive is all that flows.
    private static let idle: Workload = {
        var workload = Workload()
        workload.eventMeanGap = 1e15
        workload.messageInterval = 1e15
        return workload
    }()

    private static func play(
        _ profileName: String, udpNAT: Double? = nil, workload: Workload = idle, duration: Double = 3600,
        _ configure: (inout QUICSettings) -> Void = { _ in }
    ) throws -> DeviceOutcome {
        var profile = try ProfileCatalog.builtin(named: profileName)
        if let udpNAT { profile.nat = NATPolicy(idleTimeout: nil, udpIdleTimeout: udpNAT) }
        var settings = QUICSettings()
        configure(&settings)
        return ModelEngine.playDevice(profile: profile, client: .quic(settings), workload: workload, duration: duration, seed: 1)
    }

    /// A PING 15 s after the last packet received keeps a 30 s UDP mapping: one connection for
    /// the hour and no expiry. Each PING's ACK comes back a round trip and an LTE promotion
    /// (0.26 s) later, so a PING goes every 15.3 s: 3600 / 15.3 = 235 of them, each a datagram
    /// up and its ACK one down.
    @Test func aPingUnderTheNATTimeoutKeepsTheMapping() throws {
        let outcome = try Self.play("lte-good", udpNAT: 30)
        #expect(outcome.connections.opened == 1)
        #expect(outcome.eventCounts[.natExpiry, default: 0] == 0)
        #expect((233...237).contains(outcome.server.pingsReceived), "\(outcome.server.pingsReceived) pings")
        #expect(outcome.server.migrations == 0)
        let datagrams = try #require(outcome.datagrams).counts
        // Besides the PINGs and their ACKs: the handshake and its ACKs, a few datagrams each way.
        #expect((0...6).contains(datagrams.up.delivered - outcome.server.pingsReceived), "\(datagrams.up) up")
        #expect((0...6).contains(datagrams.down.delivered - outcome.server.pingsReceived), "\(datagrams.down) down")
        #expect(datagrams.up.dropped.isEmpty && datagrams.down.dropped.isEmpty)
    }

    /// A PING every 45 s behind a 30 s UDP NAT: the mapping is gone before each PING, which
    /// opens a new one; the server sees the phone at a new port and migrates the connection
    /// (validating the path) instead of losing it. The connection survives the hour.
    @Test func aPingOverTheNATTimeoutRebindsAndTheConnectionMigrates() throws {
        let outcome = try Self.play("lte-good", udpNAT: 30) {
            $0.keepAlivePeriod = 45
            $0.maxIdleTimeout = 120
            $0.serverIdleTimeout = 120
        }
        #expect(outcome.connections.opened == 1)
        let expiries = outcome.eventCounts[.natExpiry, default: 0]
        #expect((78...80).contains(expiries), "\(expiries) expiries in 3600 / 45 = 80 pings")
        #expect(outcome.server.migrations == expiries)
        #expect(outcome.datagrams?.remappings == expiries)
        #expect(outcome.natExpiriesWithNetwork == expiries)
        // Each rebinding: unreachable from the expiry (30 s after the last ACK) until the PING
        // (45 s after it) reaches the server: 15 s, the LTE promotion and the way up.
        let blackout = outcome.app.detections
        #expect(blackout.count == outcome.server.migrations)
        #expect(blackout.allSatisfy { $0 > 15 && $0 < 15.5 }, "\(blackout.prefix(3))")
    }

    /// No keepalive: the 30 s idle timeout closes the connection twice a minute (a new one
    /// every 30.4 s: the handshake's round trip after an LTE promotion).
    @Test func withoutKeepaliveTheIdleTimeoutClosesTheConnection() throws {
        let outcome = try Self.play("lte-good") { $0.keepAlivePeriod = nil }
        #expect((116...120).contains(outcome.connections.opened), "\(outcome.connections.opened) connections")
        #expect(outcome.server.pingsReceived == 0)
        #expect(outcome.app.failedAttempts == outcome.connections.opened - 1)
    }

    /// A resumed connection's server flight has no certificate: the second connection's
    /// handshake costs the downlink fewer bytes than the first's.
    @Test func aResumedHandshakeIsSmaller() throws {
        let first = try Self.play("lte-good", duration: 20) { $0.keepAlivePeriod = nil }
        let second = try Self.play("lte-good", duration: 50) { $0.keepAlivePeriod = nil }
        #expect(second.connections.opened == 2)
        let resumedDown = second.bytes.down - first.bytes.down
        #expect(resumedDown < first.bytes.down / 3, "first \(first.bytes.down) B, resumed \(resumedDown) B")
    }

    /// lte-handover: two handovers that change the phone's address. The connection migrates
    /// both times (the server sees two new addresses); without migration it is replaced.
    @Test func handoversMigrateTheConnection() throws {
        var workload = Workload()
        workload.eventMeanGap = 2
        let migrating = try Self.play("lte-handover", workload: workload, duration: 150)
        #expect(migrating.connections.opened == 1)
        #expect(migrating.server.migrations == 2)
        #expect(migrating.app.events.duplicates == 0)
        // aioquic's way: nothing until the next PING (15 s at most), which moves the connection.
        let waiting = try Self.play("lte-handover", workload: workload, duration: 150) { $0.onNetworkChange = .wait }
        #expect(waiting.connections.opened == 1 && waiting.server.migrations == 2)
        #expect(waiting.app.detections.count == 2 && waiting.app.detections.allSatisfy { $0 <= 15.5 })
        let replacing = try Self.play("lte-handover", workload: workload, duration: 150) { $0.onNetworkChange = .reconnect }
        #expect(replacing.connections.opened == 3)
        #expect(replacing.server.migrations == 0)
        #expect(replacing.app.events.arrived == migrating.app.events.arrived)
    }

    /// A reset outage resets TCP connections; a QUIC connection has no RST to get: its packets
    /// are dropped for the 5 s, sent again after it, and the connection carries on. The phone
    /// was unreachable for the outage and the probe timeout after it.
    @Test func aResetOutageDoesNotEndAQUICConnection() throws {
        var workload = Workload()
        workload.eventMeanGap = 1
        let profile = try ModelEngineTests.resetOutage()
        let outcome = ModelEngine.playDevice(profile: profile, client: .quic(QUICSettings()), workload: workload, duration: 120, seed: 1)
        #expect(outcome.connections.opened == 1)
        #expect(outcome.app.events.isComplete && outcome.app.events.duplicates == 0)
        let blackout = try #require(outcome.app.detections.first)
        #expect(blackout >= 5 && blackout < 7, "\(blackout) s")
        #expect((outcome.datagrams?.counts.down.dropped[.outage] ?? 0) > 0)
    }

    /// Events pushed over lossy, jittery links arrive once each and in order, and the
    /// messages reach the server once each.
    @Test func aLossyLinkLosesNothingAndReordersNothing() throws {
        var workload = Workload()
        workload.eventMeanGap = 2
        workload.messageInterval = 5
        let outcome = try Self.play("very-bad-network", workload: workload, duration: 600)
        #expect(outcome.app.events.arrived > 250)
        #expect(outcome.app.events.duplicates == 0)
        #expect(outcome.app.events.outOfOrder == 0)
        #expect(outcome.server.messages.duplicates == 0)
    }
}
