import NetsimCore
import NetsimInput
import NetsimModel
import NetsimTestSupport
import Testing

@testable import NetsimBench

/// Strategies 4 (deadlines: zombie seconds) and 6 (REST and WebSocket clients that
/// watch the network), through the proxy on short profiles.
@Suite(.serialized, .playsLive(.strategies)) struct DeadlineAndNetworkWatchTests {
    @Test func theClientFileSwitchesDeadlinesAndWatching() throws {
        let settings = try ClientSettings.load(
            yaml: "rest: {requestTimeout: none, watchNetwork: true}\nwebsocket: {pingInterval: none, watchNetwork: true}",
            source: "c.yaml")
        #expect(settings.rest.requestTimeout == nil && settings.ws.pingInterval == nil)
        #expect(settings.rest.watchNetwork && settings.ws.watchNetwork)
        #expect(!ClientSettings().rest.watchNetwork && ClientSettings().rest.requestTimeout == 10)
        let shipped = try ClientSettings.load(yaml: SettingsFileTests.shipped("clients/no-deadlines.yaml"), source: "n")
        #expect(shipped.rest.requestTimeout == nil && shipped.ws.pingInterval == nil && shipped.grpc.callTimeLimit == nil)
        let watching = try ClientSettings.load(yaml: SettingsFileTests.shipped("clients/watch-network.yaml"), source: "w")
        #expect(watching.rest.watchNetwork && watching.ws.watchNetwork)
        #expect {
            try ClientSettings.load(yaml: "rest: {watchNetwork: sometimes}", source: "c.yaml")
        } throws: { error in
            "\(error)".contains("'rest.watchNetwork' must be true or false")
        }
    }

    /// Across a blackhole outage (the path dies silently), each transport's deadline bounds
    /// how long the app waits on the dead connection: a REST request timeout, a WebSocket ping,
    /// gRPC keepalive. Without them the app never learns: it waits until the run ends.
    @Test(.tags(.liveTiming)) func aDeadlineBoundsTheZombieTime() async throws {
        let outage = TimelineEvent(at: 2, kind: .outage(duration: 2, mode: .blackhole))
        let profile = BenchEndToEndTests.profile(events: [outage])
        var bounded = BenchEndToEndTests.configuration(profile, duration: 6)
        bounded.client.rest.requestTimeout = 0.5
        bounded.client.ws.pingInterval = 0.5
        bounded.client.grpc.keepaliveTime = 0.5
        bounded.client.grpc.keepaliveTimeout = 0.5
        // The longest each waits: a poll interval and a timeout; a ping interval and the next;
        // the keepalive time and its timeout; plus a second for a busy machine.
        let bounds: [BenchTransport: Double] = [.rest: 0.2 + 0.5 + 1, .ws: 0.5 + 0.5 + 1, .grpc: 0.5 + 0.5 + 1]
        let withDeadlines = try await BenchRunner.run(bounded, logger: BenchEndToEndTests.logger) { _ in }

        var unbounded = BenchEndToEndTests.configuration(profile, duration: 6)
        unbounded.drainTimeout = 2
        unbounded.client.rest.requestTimeout = nil
        unbounded.client.ws.pingInterval = nil
        unbounded.client.grpc.keepaliveTime = 7200
        unbounded.client.grpc.callTimeLimit = nil
        let without = try await BenchRunner.run(unbounded, logger: BenchEndToEndTests.logger) { _ in }

        for transport in BenchTransport.comparedByDefault {
            let zombie = try #require(withDeadlines.report.transports[transport]?.resilience?.zombieSeconds)
            let forever = try #require(without.report.transports[transport]?.resilience?.zombieSeconds)
            #expect(zombie.deaths >= 2 && forever.deaths >= 2, "\(transport): \(zombie.deaths) / \(forever.deaths) deaths")
            #expect(zombie.max <= bounds[transport]!, "\(transport): zombie \(zombie.max) s with a deadline")
            // Dead from 2 s to the end of the 6 s run, at least.
            #expect(forever.mean >= 4, "\(transport): zombie \(forever.mean) s without a deadline")
            #expect(withDeadlines.report.transports[transport]?.events.lost == 0)
        }
    }

    /// A reset outage from 3 s to 6 s: a REST or WebSocket client that watches the network
    /// makes no attempt while the phone is offline (as the gRPC client); one that does not
    /// keeps trying (a short request timeout makes REST's attempts fail and repeat). They ask
    /// the phone before each attempt. gRPC always watches; its rule (a call lost offline waits
    /// for the network) is held by `GRPCAppTests`.
    @Test(.tags(.liveTiming)) func watchingClientsMakeNoAttemptWhileOffline() async throws {
        let outage = TimelineEvent(at: 3, kind: .outage(duration: 3, mode: .reset))
        /// Attempts per transport in seconds 3, 4 and 5 of the bench clock, all inside the outage.
        func attemptsWhileOffline(watching: Bool) async throws -> [BenchTransport: Int] {
            var configuration = BenchEndToEndTests.configuration(BenchEndToEndTests.profile(events: [outage]), duration: 8)
            configuration.transports = [.rest, .ws]
            configuration.client.rest.requestTimeout = 0.3
            configuration.client.rest.watchNetwork = watching
            configuration.client.ws.watchNetwork = watching
            let (measured, _) = try await BenchRunner.measure(configuration, logger: BenchEndToEndTests.logger) { _ in }
            return measured.mapValues { devices in
                devices.reduce(0) { total, device in total + (3...5).reduce(0) { $0 + device.app.attemptsBySecond[$1, default: 0] } }
            }
        }
        // The two benches are independent and mostly wait: they run side by side.
        async let watchingRun = attemptsWhileOffline(watching: true)
        async let blindRun = attemptsWhileOffline(watching: false)
        let (watching, blind) = try await (watchingRun, blindRun)
        for transport in [BenchTransport.rest, .ws] {
            #expect(watching[transport] == 0, "\(transport) watching: \(watching[transport] ?? -1) attempts while offline")
            #expect((blind[transport] ?? 0) > 0, "\(transport) not watching: \(blind[transport] ?? -1) attempts while offline")
        }
    }
}
