import NIOCore
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimProxy

/// The proxy's listeners: each bound address listed with the rule it serves, so nothing pairs
/// addresses with rules by position.
@Suite(.playsLive(timeLimit: .seconds(60))) struct ListenerTests {
    static let loopback = "127.0.0.1"

    @Test func aBoundListenerHasTheRulesHostAndTheChannelsPort() {
        let rule = ForwardRule(listen: HostPort(host: Self.loopback, port: 0), upstream: HostPort(host: "10.0.0.1", port: 80))
        let listener = Listener(.forward(rule), boundPort: 41_234)
        #expect(listener.address == HostPort(host: Self.loopback, port: 41_234))
        #expect(listener.role == .forward(rule))
        // A channel that names no port leaves the rule's.
        let named = FrontEndRule(listen: HostPort(host: "::1", port: 1080), frontEnd: .httpProxy)
        #expect(Listener(.frontEnd(named), boundPort: nil).address == HostPort(host: "::1", port: 1080))
        #expect(Listener.Role.datagramForward(rule).listen == rule.listen)
    }

    @Test func theProxyListsEveryListenerWithItsRuleInOrder() async throws {
        let any = HostPort(host: Self.loopback, port: 0)
        let upstream = HostPort(host: Self.loopback, port: 9)
        let forwards = [ForwardRule(listen: any, upstream: upstream), ForwardRule(listen: any, upstream: upstream)]
        let frontEnds = [FrontEndRule(listen: any, frontEnd: .socks5(credentials: nil)), FrontEndRule(listen: any, frontEnd: .httpProxy)]
        let udp = [ForwardRule(listen: any, upstream: upstream)]
        let proxy = try await NetsimProxy.start(
            profile: .passThrough, seed: 1, forwards: forwards, frontEnds: frontEnds, datagramForwards: udp, group: Loopback.group,
            logger: Loopback.logger)
        let roles: [Listener.Role] = forwards.map { .forward($0) } + frontEnds.map { .frontEnd($0) } + udp.map { .datagramForward($0) }
        #expect(proxy.listeners.map(\.role) == roles)
        #expect(proxy.listeners.allSatisfy { $0.address.host == Self.loopback && $0.address.port > 0 })
        #expect(Set(proxy.listeners.map(\.address.port)).count == 5)
        #expect(proxy.listeningAddresses == Array(proxy.listeners.prefix(2).map(\.address)))
        #expect(proxy.frontEndAddresses == Array(proxy.listeners.dropFirst(2).prefix(2).map(\.address)))
        #expect(proxy.datagramAddresses == [proxy.listeners[4].address])
        _ = try await proxy.stop()
    }

    @Test func aFrontEndThatCannotListenIsNamedAndTheForwardBeforeItClosed() async throws {
        let (server, busyPort) = try await Loopback.echoServer()
        let (probe, freePort) = try await Loopback.echoServer()
        try await probe.close()
        let busy = HostPort(host: Self.loopback, port: busyPort)
        await #expect(throws: ProxyError.cannotListen(busy, reason: "the address is already in use")) {
            _ = try await NetsimProxy.start(
                profile: .passThrough, seed: 1,
                forwards: [
                    ForwardRule(listen: HostPort(host: Self.loopback, port: freePort), upstream: HostPort(host: Self.loopback, port: 9))
                ],
                frontEnds: [FrontEndRule(listen: busy, frontEnd: .httpProxy)], group: Loopback.group, logger: Loopback.logger)
        }
        // The forward rule's listener was closed: its port binds again.
        let again = try await NetsimProxy.start(
            profile: .passThrough, seed: 1,
            forwards: [
                ForwardRule(listen: HostPort(host: Self.loopback, port: freePort), upstream: HostPort(host: Self.loopback, port: 9))
            ],
            group: Loopback.group, logger: Loopback.logger)
        #expect(again.listeningAddresses == [HostPort(host: Self.loopback, port: freePort)])
        _ = try await again.stop()
        try await server.close()
    }
}
