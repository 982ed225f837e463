import Foundation
import NIOCore
import NIOPosix
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimProxy

/// Which phone a client gets (`PhoneAssignment`): pure, no sockets.
@Suite(.computes) struct PhoneAssignmentTests {
    let v4 = { (last: UInt8) in IPAddressBytes("10.0.0.\(last)")! }

    @Test func onePhoneTakesEveryClientWhateverItNames() {
        var assignment = PhoneAssignment(count: 1)
        #expect(assignment.phone(forName: "phone-7", source: v4(1)) == .success(1))
        #expect(assignment.phone(forName: "anyone", source: nil) == .success(1))
        #expect(assignment.phone(forSource: v4(2)) == 1)
    }

    @Test func aNameNamesItsPhoneAndAnyOtherNameIsRefused() {
        var assignment = PhoneAssignment(count: 3)
        #expect(assignment.phone(forName: "phone-1", source: v4(1)) == .success(1))
        #expect(assignment.phone(forName: "phone-3", source: v4(1)) == .success(3))
        for name in ["phone-0", "phone-4", "phone-02", "phone-", "Phone-1", "phone-+1", "alice", ""] {
            #expect(assignment.phone(forName: name, source: v4(1)) == .failure(.unknownName(name, count: 3)), "\(name)")
        }
        #expect(
            PhoneAssignment.Refusal.unknownName("bad\u{1B}[31m", count: 3).description
                == #"'bad\u{1B}[31m' names no phone: the names are phone-1 to phone-3"#)
    }

    @Test func sourceAddressesTakeTheNextPhoneInTheOrderFirstSeenAndKeepIt() {
        var assignment = PhoneAssignment(count: 2)
        #expect(assignment.phone(forSource: v4(9)) == 1)
        #expect(assignment.phone(forSource: v4(3)) == 2)
        #expect(assignment.phone(forSource: v4(5)) == 1, "after phone 2, phone 1 again")
        #expect(assignment.phone(forSource: v4(3)) == 2, "an address keeps its phone")
        #expect(assignment.phone(forName: nil, source: v4(9)) == .success(1))
        #expect(assignment.phone(forSource: nil) == 1, "no address: phone 1")
    }

    @Test func pastTheAddressTableAnAddressGetsTheSamePhoneEachTime() {
        var assignment = PhoneAssignment(count: 7)
        for index in 0..<PhoneAssignment.addressLimit {
            _ = assignment.phone(forSource: IPAddressBytes("10.1.\(index / 256).\(index % 256)")!)
        }
        let late = (0..<50).map { IPAddressBytes("10.2.0.\($0)")! }
        let first = late.map { assignment.phone(forSource: $0) }
        let again = late.map { assignment.phone(forSource: $0) }
        #expect(first == again)
        #expect(Set(first).count > 3, "spread over the phones: \(first)")
        #expect(first.allSatisfy { (1...7).contains($0) })
    }

    @Test func eventsOfSeveralPhonesNameTheirPhoneInJSON() {
        let event = NumberedPhoneEvent(phone: 2, event: .outageEnded(at: 3, startedAt: 1))
        #expect(event.jsonWithPhone == #"{"phone":2,"at":3,"startedAt":1}"#)
        #expect(NumberedPhoneEvent(phone: nil, event: .dropped(count: 4)).jsonWithPhone == #"{"count":4}"#)
    }
}

/// Several phones in one proxy, end to end on loopback: each client crosses the phone it names
/// (or its forward rule's, or its source address's), and each phone reports only its own.
@Suite(.serialized, .playsLive(timeLimit: .seconds(120))) struct PhonesTests {
    /// A SOCKS5 greeting offering username/password, then `name` with any password.
    static func socksLogin(_ name: String) -> [(send: [UInt8], replyLength: Int?)] {
        [([5, 1, 2], 2), ([1, UInt8(name.utf8.count)] + Array(name.utf8) + [1, UInt8(ascii: "x")], 2)]
    }

    @Test func eachClientCrossesThePhoneItNamesAndEachPhoneReportsItsOwn() async throws {
        let (echo, echoPort) = try await Loopback.echoServer()
        let front = try await FrontEndProxy.start(
            forwards: [
                ForwardRule(listen: HostPort(host: "127.0.0.1", port: 0), upstream: HostPort(host: "127.0.0.1", port: echoPort), phone: 3)
            ], phones: 3)
        let payload = (n: 1_000, m: 2_000)
        let first = try await RawClient.exchange(
            port: front.socksPort,
            Self.socksLogin("phone-1") + [
                RawClient.connect(to: "localhost", port: echoPort), (FrontEndPeers.pattern(payload.n), payload.n),
            ])
        #expect(Array(first.prefix(5)) == [5, 2, 1, 0, 5] && first[5] == 0 && first.count == 14 + payload.n)
        let second = try await RawClient.exchange(
            port: front.socksPort,
            Self.socksLogin("phone-2") + [
                RawClient.connect(to: "localhost", port: echoPort), (FrontEndPeers.pattern(payload.m), payload.m),
            ])
        #expect(second.count == 14 + payload.m)
        // The HTTP proxy's user, from Proxy-Authorization: Basic (phone-2:secret).
        let connect =
            "CONNECT localhost:\(echoPort) HTTP/1.1\r\nHost: localhost\r\nProxy-Authorization: Basic \(Data("phone-2:secret".utf8).base64EncodedString())\r\n\r\n"
        let tunnel = try await RawClient.exchange(
            port: front.httpPort, [(Array(connect.utf8), 39), (FrontEndPeers.pattern(300), 300)])
        #expect(RawClient.statusLine(tunnel) == "HTTP/1.1 200 Connection Established" && tunnel.count == 339)
        let (echoed, ending) = try await Loopback.echo(FrontEndPeers.pattern(3_000), port: front.proxy.listeningAddresses[0].port)
        #expect(echoed.count == 3_000 && ending == .finished)

        #expect(await eventually { (try? await front.proxy.status(phone: 1).openConnections) == 0 })
        let summaries = try await front.proxy.phoneSummaries()
        #expect(summaries.map(\.phone) == [1, 2, 3])
        #expect(summaries.map(\.bytes.up) == [payload.n, payload.m + 300, 3_000])
        let metrics = try await front.proxy.metricsText()
        #expect(metrics.contains(#"netsim_bytes_total{phone="3",direction="up"} 3000"#), "\(metrics)")
        #expect(metrics.contains(#"netsim_connections_opened_total{phone="2"} 2"#))

        let reports = try await front.proxy.stopEveryPhone()
        #expect(reports.map(\.phone) == [1, 2, 3])
        #expect(reports.map(\.seed) == [1, 2, 3], "phone K's seed is the run's seed + K - 1")
        #expect(reports.map(\.bytes.up) == [payload.n, payload.m + 300, 3_000])
        #expect(reports.map(\.bytes.down) == [payload.n, payload.m + 300, 3_000])
        #expect(reports.map(\.connections.opened) == [1, 2, 1])
        #expect(reports.allSatisfy { $0.radio.promotions == 1 }, "each phone's radio woke for its own traffic only")
        try await echo.close()
    }

    @Test func aNameThatNamesNoPhoneIsRefusedAndTheOthersStillServe() async throws {
        let (echo, echoPort) = try await Loopback.echoServer()
        let front = try await FrontEndProxy.start(phones: 2)
        let socks = try await RawClient.exchange(
            port: front.socksPort, Self.socksLogin("phone-3") + [RawClient.connect(to: "localhost", port: echoPort)])
        #expect(Array(socks.prefix(6)) == [5, 2, 1, 0, 5, SOCKSReply.notAllowed])
        let connect =
            "CONNECT localhost:\(echoPort) HTTP/1.1\r\nProxy-Authorization: Basic \(Data("phone-0:x".utf8).base64EncodedString())\r\n\r\n"
        let http = try await RawClient.exchange(port: front.httpPort, [(Array(connect.utf8), nil)])
        #expect(RawClient.statusLine(http) == "HTTP/1.1 403 Forbidden")
        #expect(String(decoding: http, as: UTF8.self).contains("'phone-0' names no phone: the names are phone-1 to phone-2"))
        // No name: the source address's phone, here the first seen, phone 1.
        let plain = try await RawClient.exchange(
            port: front.socksPort, [RawClient.greeting, RawClient.connect(to: "localhost", port: echoPort), ([1, 2, 3], 3)])
        #expect(plain.count == 15)
        let reports = try await front.proxy.stopEveryPhone()
        #expect(reports.map(\.connections.opened) == [1, 0])
        try await echo.close()
    }

    @Test func aRunOfOnePhoneTakesAClientThatOffersOnlyAUsername() async throws {
        let (echo, echoPort) = try await Loopback.echoServer()
        let front = try await FrontEndProxy.start()
        let reply = try await RawClient.exchange(
            port: front.socksPort, Self.socksLogin("phone-9") + [RawClient.connect(to: "localhost", port: echoPort), ([7, 7], 2)])
        #expect(Array(reply.prefix(6)) == [5, 2, 1, 0, 5, 0] && reply.count == 16)
        // One that offers both gets no authentication, as before phones.
        let both = try await RawClient.exchange(port: front.socksPort, [([5, 2, 0, 2], 2)])
        #expect(both == [5, 0])
        #expect(try await front.proxy.stop().connections.opened == 1)
        try await echo.close()
    }

    @Test func clientsWithoutANameGetPhonesByTheirSourceAddress() async throws {
        let (echo, echoPort) = try await Loopback.echoServer()
        let proxy = try await NetsimProxy.start(
            profile: FrontEndProxy.profile, seed: 5, phones: 2,
            forwards: [ForwardRule(listen: HostPort(host: "127.0.0.1", port: 0), upstream: HostPort(host: "127.0.0.1", port: echoPort))],
            group: Loopback.group, logger: Loopback.logger)
        let port = proxy.listeningAddresses[0].port
        // 127.0.0.2 first (phone 1), 127.0.0.3 next (phone 2), 127.0.0.4 (phone 1 again), then
        // 127.0.0.3 once more (still phone 2).
        for (source, size) in [("127.0.0.2", 100), ("127.0.0.3", 200), ("127.0.0.4", 400), ("127.0.0.3", 800)] {
            let channel = try await ClientBootstrap(group: Loopback.group)
                .bind(to: try SocketAddress(ipAddress: source, port: 0))
                .connect(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            try await channel.executeThenClose { inbound, outbound in
                try await outbound.write(ByteBuffer(bytes: FrontEndPeers.pattern(size)))
                var received = 0
                for try await chunk in inbound {
                    received += chunk.readableBytes
                    if received >= size { break }
                }
                #expect(received == size)
            }
        }
        #expect(await eventually { (try? await proxy.phoneSummaries().map(\.openConnections)) == [0, 0] })
        let reports = try await proxy.stopEveryPhone()
        #expect(reports.map(\.bytes.up) == [500, 1_000])
        #expect(reports.map(\.seed) == [5, 6])
        try await echo.close()
    }

    @Test func staggeredPhonesStartTheTimelineEachAtItsSeededDelay() async throws {
        var profile = FrontEndProxy.profile
        profile.timeline = Timeline(events: [TimelineEvent(at: 600, kind: .outage(duration: 60, mode: .stall))])
        let start = { (phase: TimelinePhase) in
            try await NetsimProxy.start(
                profile: profile, seed: 9, phones: 3, timelinePhase: phase, forwards: [], group: Loopback.group, logger: Loopback.logger)
        }
        let staggered = try await start(.staggered).stopEveryPhone()
        #expect(staggered.map(\.timelineDelaySeconds) == (9...11).map { profile.timeline.staggerDelay(seed: UInt64($0)) })
        #expect(staggered.allSatisfy { ($0.timelineDelaySeconds ?? -1) >= 0 && ($0.timelineDelaySeconds ?? 660) < 660 })
        let together = try await start(.together).stopEveryPhone()
        #expect(together.allSatisfy { $0.timelineDelaySeconds == nil })
    }

    @Test func theAPINamesPhonesItDoesNotHave() async throws {
        let front = try await FrontEndProxy.start(phones: 2)
        await #expect(throws: ProxyError.noSuchPhone(3, count: 2)) { try await front.proxy.status(phone: 3) }
        await #expect(throws: ProxyError.noSuchPhone(0, count: 2)) { try await front.proxy.outage(seconds: 1, mode: .stall, phone: 0) }
        #expect(ProxyError.noSuchPhone(3, count: 2).description == "there is no phone 3: the run's phones are 1 to 2")
        _ = try await front.proxy.stopEveryPhone()
        await #expect(throws: ProxyError.phoneCount(0)) {
            try await NetsimProxy.start(
                profile: FrontEndProxy.profile, seed: 1, phones: 0, forwards: [], group: Loopback.group, logger: Loopback.logger)
        }
        await #expect(throws: ProxyError.noSuchPhone(2, count: 1)) {
            try await NetsimProxy.start(
                profile: FrontEndProxy.profile, seed: 1,
                forwards: [
                    ForwardRule(listen: HostPort(host: "127.0.0.1", port: 0), upstream: HostPort(host: "127.0.0.1", port: 9), phone: 2)
                ],
                group: Loopback.group, logger: Loopback.logger)
        }
    }

    @Test func oneSubscriptionFollowsOnePhoneAnotherAllOfThem() async throws {
        let front = try await FrontEndProxy.start(phones: 2)
        var second = front.proxy.events(phone: 2).makeAsyncIterator()
        var all = front.proxy.events().makeAsyncIterator()
        _ = try await front.proxy.outage(seconds: 5, mode: .stall, phone: 1)
        _ = try await front.proxy.outage(seconds: 7, mode: .blackhole, phone: 2)
        let firstSeen = await all.next()
        #expect(firstSeen?.phone == 1 && firstSeen?.event.name == "outage")
        let secondSeen = await all.next()
        #expect(secondSeen?.phone == 2 && secondSeen?.event.name == "outage")
        let onlySecond = await second.next()
        guard case .timeline(let event) = onlySecond?.event else {
            Issue.record("expected phone 2's outage, got \(String(describing: onlySecond))")
            return
        }
        #expect(event.mode == .blackhole && onlySecond?.phone == 2)
        _ = try await front.proxy.stopEveryPhone()
    }
}
