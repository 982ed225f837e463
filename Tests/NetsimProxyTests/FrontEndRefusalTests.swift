import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimProxy

/// Refusals and malformed handshakes: each gets its protocol's own error reply and a close,
/// and the proxy goes on serving. Raw bytes, so that no tool is needed.
@Suite(.serialized, .playsLive(timeLimit: .seconds(120))) struct FrontEndRefusalTests {
    @Test func refusalsGetTheProtocolsErrorAndTheProxyKeepsServing() async throws {
        let (echo, echoPort) = try await Loopback.echoServer()
        let access = AccessPolicy(allowTo: [DestinationPattern("localhost:\(echoPort)")!, DestinationPattern("*.invalid")!])
        let front = try await FrontEndProxy.start(access: access)
        let socks = front.socksPort
        let http = front.httpPort

        // SOCKS5: a destination outside --allow-to (by name, and an address no pattern names).
        let outside = try await RawClient.exchange(port: socks, [RawClient.greeting, RawClient.connect(to: "example.com", port: 80)])
        #expect(Array(outside.prefix(4)) == [5, 0, 5, SOCKSReply.notAllowed])
        let address = try await RawClient.exchange(
            port: socks, [RawClient.greeting, RawClient.connect(toAddress: [127, 0, 0, 1], port: echoPort)])
        #expect(Array(address.prefix(4)) == [5, 0, 5, SOCKSReply.notAllowed])
        // A name that does not resolve.
        let unresolvable = try await RawClient.exchange(
            port: socks, [RawClient.greeting, RawClient.connect(to: "nonexistent.invalid", port: 80)])
        #expect(Array(unresolvable.prefix(4)) == [5, 0, 5, SOCKSReply.hostUnreachable])
        // SOCKS4, and a request with an unknown address type.
        let socks4 = try await RawClient.exchange(port: socks, [([4, 1, 0, 80, 127, 0, 0, 1, 0], nil)])
        #expect(socks4 == [5, 0xFF])
        let badAddress = try await RawClient.exchange(port: socks, [RawClient.greeting, ([5, 1, 0, 9, 1, 2, 3, 4, 0, 80], nil)])
        #expect(Array(badAddress.prefix(4)) == [5, 0, 5, SOCKSReply.serverFailure])
        // BIND is not supported.
        let bind = try await RawClient.exchange(port: socks, [RawClient.greeting, ([5, 2, 0, 1, 127, 0, 0, 1, 0, 80], nil)])
        #expect(Array(bind.prefix(4)) == [5, 0, 5, SOCKSReply.commandUnsupported])

        // HTTP: outside --allow-to, unresolvable, not a proxy request, not HTTP at all.
        let requests = [
            ("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", "HTTP/1.1 403 Forbidden"),
            ("GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", "HTTP/1.1 403 Forbidden"),
            ("CONNECT nonexistent.invalid:443 HTTP/1.1\r\n\r\n", "HTTP/1.1 502 Bad Gateway"),
            ("GET /index.html HTTP/1.1\r\nHost: localhost\r\n\r\n", "HTTP/1.1 400 Bad Request"),
            ("CONNECT localhost HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request"),
            ("\u{1}\u{2}\u{3} not http\r\n\r\n", "HTTP/1.1 400 Bad Request"),
            // A bad chunk size was a silent close.
            (
                "POST http://localhost:\(echoPort)/ HTTP/1.1\r\nHost: localhost:\(echoPort)\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "zz\r\nhello\r\n0\r\n\r\n", "HTTP/1.1 400 Bad Request"
            ),
        ]
        for (request, status) in requests {
            let reply = try await RawClient.exchange(port: http, [(Array(request.utf8), nil)])
            #expect(RawClient.statusLine(reply) == status, "\(request)")
        }

        // Still serving: an echo through each front end, the client's first bytes sent right
        // behind its request (before the reply).
        let payload = Loopback.randomBytes(100_000, seed: 9)
        let connect = RawClient.connect(to: "localhost", port: echoPort)
        let viaSOCKS = try await RawClient.exchange(port: socks, [RawClient.greeting, (connect.send + payload, 10 + payload.count)])
        #expect(Array(viaSOCKS.prefix(4)) == [5, 0, 5, 0])
        let intactViaSOCKS = Array(viaSOCKS.dropFirst(12)) == payload
        #expect(intactViaSOCKS, "the echo through SOCKS5 (\(viaSOCKS.count) bytes) is intact")
        let established = Array("HTTP/1.1 200 Connection Established\r\n\r\n".utf8)
        let tunnel = Array("CONNECT localhost:\(echoPort) HTTP/1.1\r\nHost: localhost:\(echoPort)\r\n\r\n".utf8)
        let viaHTTP = try await RawClient.exchange(port: http, [(tunnel + payload, established.count + payload.count)])
        #expect(Array(viaHTTP.prefix(established.count)) == established)
        let intactViaHTTP = Array(viaHTTP.dropFirst(established.count)) == payload
        #expect(intactViaHTTP, "the echo through the tunnel (\(viaHTTP.count) bytes) is intact")

        let report = try await front.proxy.stop()
        #expect(report.connections.opened == 2, "only the two echoes became connections")
        try await echo.close()
    }

    /// A bad chunk size in a plain request's body, after its head went on to the
    /// origin, was a bare reset.
    @Test func aBadChunkSizeAfterTheHeadWentOnIsA400() async throws {
        let (echo, echoPort) = try await Loopback.echoServer()
        let front = try await FrontEndProxy.start(access: AccessPolicy(allowTo: [DestinationPattern("localhost:\(echoPort)")!]))
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "http://localhost:\(echoPort)/")
        head.headers.add(name: "Host", value: "localhost:\(echoPort)")
        head.headers.add(name: "Transfer-Encoding", value: "chunked")
        let request = "POST http://localhost:\(echoPort)/ HTTP/1.1\r\nHost: localhost:\(echoPort)\r\nTransfer-Encoding: chunked\r\n\r\n"
        let chunk = "5\r\nhello\r\n"
        // The echo origin sends back what reached it: the head in origin form and the chunk.
        let forwarded = OriginFormRequestEncoder.originFormHead(head).utf8.count + chunk.utf8.count
        let reply = try await RawClient.exchange(
            port: front.httpPort, [(Array((request + chunk).utf8), forwarded), (Array("zz\r\n".utf8), nil)])
        #expect(RawClient.statusLine(Array(reply.dropFirst(forwarded))) == "HTTP/1.1 400 Bad Request")
        _ = try await front.proxy.stop()
        try await echo.close()
    }

    /// Whether this machine has IPv6 loopback (some containers have none).
    static let hasIPv6Loopback: Bool = {
        guard let channel = try? ServerBootstrap(group: Loopback.group).bind(host: "::1", port: 0).wait() else { return false }
        try? channel.close().wait()
        return true
    }()

    @Test(.enabled(if: hasIPv6Loopback, "needs IPv6 loopback"))
    func aSOCKS5ConnectToAnIPv6Address() async throws {
        let (echo, echoPort) = try await Loopback.echoServer(host: "::1")
        let front = try await FrontEndProxy.start()
        let payload = Loopback.randomBytes(10_000, seed: 2)
        let connect = RawClient.connect(toAddress: [UInt8](repeating: 0, count: 15) + [1], port: echoPort)
        let reply = try await RawClient.exchange(port: front.socksPort, [RawClient.greeting, connect, (payload, payload.count)])
        #expect(Array(reply.prefix(4)) == [5, 0, 5, 0])
        let intact = Array(reply.dropFirst(12)) == payload
        #expect(intact, "the echo (\(reply.count) bytes) is intact")
        _ = try await front.proxy.stop()
        try await echo.close()
    }

    /// This machine's first IPv4 address that is not loopback, if it has one.
    static let externalAddress: String? = {
        (try? System.enumerateDevices())?.lazy.compactMap { device -> String? in
            guard let address = device.address, case .v4 = address, let ip = address.ipAddress, !ip.hasPrefix("127.") else { return nil }
            return ip
        }.first
    }()

    @Test(.enabled(if: externalAddress != nil, "needs a non-loopback IPv4 address"))
    func aClientOutsideAllowFromIsClosedAtOnceAndOthersAreServed() async throws {
        let external = try #require(Self.externalAddress)
        for (allowFrom, admitted) in [("10.255.0.0/16", false), ("\(external)/32", true)] {
            var options = ProxyOptions()
            options.access = AccessPolicy(allowFrom: [IPNetwork(allowFrom)!])
            let proxy = try await NetsimProxy.start(
                profile: FrontEndProxy.profile, seed: 1, forwards: [],
                frontEnds: [FrontEndRule(listen: HostPort(host: "0.0.0.0", port: 0), frontEnd: .socks5(credentials: nil))],
                options: options, group: Loopback.group, logger: Loopback.logger)
            let port = proxy.frontEndAddresses[0].port
            let outside: [UInt8]
            do {
                outside = try await RawClient.exchange(port: port, host: external, [RawClient.greeting])
            } catch let error as IOError where !admitted && error.errnoCode == ECONNRESET {
                // Closed at accept with the greeting already in its buffer, the socket is reset
                // rather than shut: a refusal all the same (CI saw this once in 458 tests).
                outside = []
            }
            #expect(outside == (admitted ? [5, 0] : []), "from \(external) with --allow-from \(allowFrom)")
            // Loopback is always served, also after a refusal.
            let local = try await RawClient.exchange(port: port, [RawClient.greeting])
            #expect(local == [5, 0])
            _ = try await proxy.stop()
        }
    }

    @Test func theHandshakeWaitsForTheEmulatedNameLookup() async throws {
        let (echo, echoPort) = try await Loopback.echoServer()
        // An idle LTE phone: the lookup's query pays the promotion, the connection does not.
        let front = try await FrontEndProxy.start()
        let start = ContinuousClock.now
        let reply = try await RawClient.exchange(
            port: front.socksPort, [RawClient.greeting, RawClient.connect(to: "localhost", port: echoPort)])
        let elapsed = ContinuousClock.now - start
        #expect(Array(reply.prefix(4)) == [5, 0, 5, 0])
        #expect(elapsed >= .milliseconds(260), "the promotion (\(elapsed))")
        let report = try await front.proxy.stop()
        #expect(report.radio.promotions == 1)
        try await echo.close()
    }
}

/// The SOCKS5 reply codes the tests expect (RFC 1928).
enum SOCKSReply {
    static let serverFailure: UInt8 = 1
    static let notAllowed: UInt8 = 2
    static let hostUnreachable: UInt8 = 4
    static let commandUnsupported: UInt8 = 7
}

/// The pure parts of the front ends: who may connect, where to, and how requests are read.
@Suite(.computes) struct FrontEndRuleTests {
    @Test func cidrBlocksMatchTheirAddressesOnly() {
        let block = IPNetwork("192.168.4.0/22")!
        #expect(block.contains(IPAddressBytes("192.168.7.255")!))
        #expect(!block.contains(IPAddressBytes("192.168.8.0")!))
        #expect(!block.contains(IPAddressBytes("::1")!))
        #expect(IPNetwork("0.0.0.0/0")!.contains(IPAddressBytes("8.8.8.8")!))
        #expect(IPNetwork("fd00::/8")!.contains(IPAddressBytes("fd12::1")!))
        #expect(!IPNetwork("fd00::/8")!.contains(IPAddressBytes("fe80::1")!))
        #expect(IPNetwork("10.1.2.3")!.contains(IPAddressBytes("10.1.2.3")!))
        #expect(!IPNetwork("10.1.2.3")!.contains(IPAddressBytes("10.1.2.4")!))
        // A dual-stack socket's IPv4 peer.
        #expect(block.contains(IPAddressBytes("::ffff:192.168.5.1")!))
        for bad in ["10.0.0.0/33", "10.0.0/8", "fd00::/129", "example.com", "10.0.0.0/-1", ""] {
            #expect(IPNetwork(bad) == nil, "\(bad)")
        }
    }

    @Test func clientsOutsideAllowFromAreRefusedButLoopbackAlwaysServed() {
        let policy = AccessPolicy(allowFrom: [IPNetwork("10.0.0.0/8")!])
        #expect(policy.admits(client: IPAddressBytes("127.0.0.1")!))
        #expect(policy.admits(client: IPAddressBytes("::1")!))
        #expect(policy.admits(client: IPAddressBytes("10.9.8.7")!))
        #expect(!policy.admits(client: IPAddressBytes("192.168.1.2")!))
        #expect(!AccessPolicy().admits(client: IPAddressBytes("192.168.1.2")!))
    }

    @Test func destinationPatternsMatchNamesSubdomainsAddressesAndPorts() {
        let policy = AccessPolicy(allowTo: [
            DestinationPattern("api.example.com:443")!, DestinationPattern("*.cdn.example")!, DestinationPattern("10.0.0.0/8")!,
            DestinationPattern("[fd00::/8]:8443")!,
        ])
        let public1 = IPAddressBytes("93.184.216.34")
        // Before resolution only a refusal is final; after it, the address decides too.
        #expect(policy.decision(name: "API.example.com.", address: nil, port: 443) == .needsAddress)
        #expect(policy.decision(name: "API.example.com.", address: public1, port: 443) == .allowed)
        #expect(policy.decision(name: "api.example.com", address: nil, port: 80) == .needsAddress)
        #expect(policy.decision(name: "api.example.com", address: public1, port: 80) == .refused(.notAllowed))
        #expect(policy.decision(name: "a.b.cdn.example", address: public1, port: 1) == .allowed)
        #expect(policy.decision(name: "cdn.example", address: nil, port: 1) == .needsAddress)
        #expect(policy.decision(name: "cdn.example", address: IPAddressBytes("10.1.1.1"), port: 1) == .allowed)
        #expect(policy.decision(name: "cdn.example", address: IPAddressBytes("11.1.1.1"), port: 1) == .refused(.notAllowed))
        #expect(policy.decision(name: nil, address: IPAddressBytes("fd00::5"), port: 8443) == .allowed)
        #expect(policy.decision(name: nil, address: IPAddressBytes("fd00::5"), port: 443) == .refused(.notAllowed))
        #expect(AccessPolicy().decision(name: "anything", address: nil, port: 1) == .needsAddress)
        #expect(AccessPolicy().decision(name: "anything", address: public1, port: 1) == .allowed)
        // Only names: an address cannot be allowed, so nothing waits for a lookup.
        let names = AccessPolicy(allowTo: [DestinationPattern("example.com")!])
        #expect(names.decision(name: "other.com", address: nil, port: 80) == .refused(.notAllowed))
        for bad in ["", "*.", "exa mple.com", "host:0", "host:70000", "[::1]x", "a..b", "bücher.de", "a\u{0}b.com", "-x.com"] {
            #expect(DestinationPattern(bad) == nil, "\(bad)")
        }
    }

    @Test func proxyRequestTargets() {
        func target(_ method: HTTPMethod, _ uri: String) -> ProxyRequestTarget {
            ProxyRequestTarget(HTTPRequestHead(version: .http1_1, method: method, uri: uri))
        }
        #expect(target(.CONNECT, "example.com:443") == .tunnel(HostPort(host: "example.com", port: 443)))
        #expect(target(.CONNECT, "[::1]:8443") == .tunnel(HostPort(host: "::1", port: 8443)))
        #expect(target(.GET, "http://example.com/a?b=c") == .origin(HostPort(host: "example.com", port: 80)))
        #expect(target(.POST, "HTTP://example.com:8080") == .origin(HostPort(host: "example.com", port: 8080)))
        for (method, uri) in [
            (HTTPMethod.CONNECT, "example.com"), (.CONNECT, ":443"), (.GET, "/path"), (.GET, "https://example.com/"),
            (.GET, "http://user@example.com/"), (.GET, "http:///path"), (.CONNECT, "example.com:0"),
            (.CONNECT, "bad_name.example:443"), (.GET, "http://a%00b.example/"), (.CONNECT, "a\u{1B}[31m.example:443"),
        ] {
            guard case .invalid = target(method, uri) else {
                Issue.record("\(method) \(uri) accepted")
                continue
            }
        }
    }

    @Test func aDestinationIsAHostNameOrAddressWithAPortFrom1To65535() {
        #expect(HostPort(validatingDestination: "192.0.2.1", port: 80) == HostPort(host: "192.0.2.1", port: 80))
        #expect(HostPort(validatingDestination: "2001:db8::1", port: 443) == HostPort(host: "2001:db8::1", port: 443))
        #expect(HostPort(validatingDestination: "example.com", port: 65535) == HostPort(host: "example.com", port: 65535))
        #expect(HostPort(validatingDestination: "example.com", port: 1) == HostPort(host: "example.com", port: 1))
        #expect(HostPort(validatingDestination: "example.com", port: 0) == nil)
        #expect(HostPort(validatingDestination: "example.com", port: 65536) == nil)
        #expect(HostPort(validatingDestination: "", port: 80) == nil)
        #expect(HostPort(validatingDestination: "bad_name.example", port: 80) == nil)
        #expect(HostPort(validatingDestination: "localhost\u{0}.example.com", port: 80) == nil)
    }

    @Test func plainRequestsGoOnInOriginFormWithoutHopByHopHeaders() {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "example.com")
        headers.add(name: "Proxy-Connection", value: "keep-alive")
        headers.add(name: "Proxy-Authorization", value: "Basic eA==")
        headers.add(name: "Connection", value: "keep-alive, X-Hop")
        headers.add(name: "X-Hop", value: "1")
        headers.add(name: "Accept", value: "*/*")
        // Hop-by-hop whatever Connection says, and a client's Host (two of them) that is not
        // the target's authority: the origin gets the authority (RFC 9112 section 3.2.2).
        headers.add(name: "TE", value: "trailers")
        headers.add(name: "Upgrade", value: "websocket")
        headers.add(name: "Keep-Alive", value: "timeout=5")
        headers.add(name: "Host", value: "internal.admin")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "http://example.com/a/b?c=d#frag", headers: headers)
        #expect(
            OriginFormRequestEncoder.originFormHead(head)
                == "GET /a/b?c=d HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nConnection: close\r\n\r\n")
        let bare = HTTPRequestHead(version: .http1_0, method: .GET, uri: "http://example.com:8080?q")
        #expect(OriginFormRequestEncoder.originFormHead(bare) == "GET /?q HTTP/1.0\r\nHost: example.com:8080\r\nConnection: close\r\n\r\n")
    }

    @Test func usernamePasswordRequests() {
        #expect(
            UsernamePassword.parse(ByteBuffer(bytes: [1, 2, 0x61, 0x62, 1, 0x63])) == .parsed(username: "ab", password: "c", trailing: 0))
        #expect(UsernamePassword.parse(ByteBuffer(bytes: [1, 2, 0x61])) == .needsMoreData)
        #expect(UsernamePassword.parse(ByteBuffer(bytes: [5, 2, 0x61, 0x62, 1, 0x63])) == .malformed)
        #expect(UsernamePassword.parse(ByteBuffer(bytes: [1, 0, 0, 7])) == .parsed(username: "", password: "", trailing: 1))
    }
}
