import Foundation
import NIOCore
import NetsimAdmin
import NetsimCore
import NetsimProxy
import NetsimTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The admin API: read the live status, trigger conditions, reject bad requests.
@Suite(.serialized, .playsLive(timeLimit: .seconds(120))) struct AdminServerTests {
    func request(_ method: String, _ url: String) async throws -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        let (data, response) = try await URLSession.shared.data(for: request)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return ((response as! HTTPURLResponse).statusCode, json)
    }

    @Test func statusOutageAndHandoverOverHTTP() async throws {
        let profile = Profile(
            name: "admin", description: "",
            networks: [
                Network(name: "lte", radio: .lte(LTERadioParameters()), up: LinkParameters(), down: LinkParameters()),
                Network(name: "wifi", radio: .wifi(WiFiRadioParameters()), up: LinkParameters(), down: LinkParameters()),
            ],
            start: "lte")
        try await AdminRig.with(profile) { rig in
            let base = rig.base
            try await rig.withOpenConnection { iterator, outbound in
                let status = try await request("GET", base + "/status")
                #expect(status.status == 200)
                #expect(status.json["network"] as? String == "lte")
                #expect(status.json["openConnections"] as? Int == 1)

                let outage = try await request("POST", base + "/outage?duration=1s&mode=reset")
                #expect(outage.status == 200)
                #expect(outage.json["kind"] as? String == "outage")
                #expect(outage.json["affectedConnections"] as? Int == 1)
                var wasReset = false
                do {
                    _ = try await Loopback.roundTrip(10, inbound: &iterator, outbound: outbound)
                } catch {
                    wasReset = true
                }
                #expect(wasReset)
            }

            let handover = try await request("POST", base + "/network?to=wifi&mode=keep")
            #expect(handover.status == 200)
            #expect(try await request("GET", base + "/status").json["network"] as? String == "wifi")

            let unknownNetwork = try await request("POST", base + "/network?to=5g")
            #expect(unknownNetwork.status == 400)
            #expect((unknownNetwork.json["error"] as? String)?.contains("lte, wifi") == true)
            #expect(try await request("POST", base + "/outage?duration=soon").status == 400)
            #expect(try await request("GET", base + "/nothing").status == 404)

            let report = try await request("GET", base + "/report")
            #expect((report.json["connections"] as? [String: Any])?["reset"] as? Int == 1)
        }
    }
}

/// Requests meant to break the proxy through its admin API.
@Suite(.serialized, .playsLive(timeLimit: .seconds(120))) struct AdminServerHostileTests {
    @Test("durations beyond the profile rules are a 400, and traffic flows afterwards")
    func durationsOutOfRange() async throws {
        let profile = Profile(
            name: "admin", description: "",
            networks: [Network(name: "lte", radio: .none, up: LinkParameters(), down: LinkParameters())], start: "lte")
        let (server, serverPort) = try await Loopback.echoServer()
        let (proxy, port) = try await Loopback.proxy(profile, upstreamPort: serverPort)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let base = "http://127.0.0.1:\(admin.port)"
            let tests = AdminServerTests()

            for path in [
                "/outage?duration=10000000000s", "/outage?duration=1" + String(repeating: "0", count: 306) + "h",
                "/outage?duration=0s", "/network?to=lte&gap=10000000000s",
            ] {
                let answer = try await tests.request("POST", base + path)
                #expect(answer.status == 400, "\(path)")
                #expect(answer.json["error"] is String, "\(path)")
            }
            #expect(try await tests.request("GET", base + "/outage").status == 405)
            #expect(try await tests.request("POST", base + "/status").status == 405)

            let payload = Loopback.randomBytes(1000, seed: 3)
            let echoed = try await Loopback.echo(payload, port: port)
            #expect(echoed.ending == .finished)
            #expect(echoed.received == payload)
        }
        _ = try await proxy.stop()
        try await server.close()
    }
}

/// Clients that would keep the admin API busy: half-sent requests, too many connections,
/// malformed requests.
@Suite(.serialized, .playsLive(timeLimit: .seconds(120))) struct AdminServerLimitTests {
    /// Reads until the server closes; returns what it sent, or nil if it is still open
    /// after `limit`.
    func responseUntilClose(
        _ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, within limit: Duration = .seconds(10)
    ) async throws -> String? {
        try await AdminWire.reading(channel, within: limit) {
            var text = ""
            do {
                try await channel.executeThenClose { inbound, _ in
                    for try await chunk in inbound { text += String(buffer: chunk) }
                }
            } catch {}
            return text
        }
    }

    @Test("half-sent requests are closed at the request timeout, the oldest first beyond the cap, and /status answers meanwhile")
    func slowloris() async throws {
        let (proxy, _) = try await Loopback.proxy(.passThrough, upstreamPort: 1)
        var limits = AdminLimits()
        limits.requestTimeout = .seconds(1)
        limits.maximumConnections = 8
        try await AdminServer.with(
            at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy, limits: limits
        ) { admin in
            var slow: [NIOAsyncChannel<ByteBuffer, ByteBuffer>] = []
            for _ in 0..<20 {
                let channel = try await Loopback.connect(port: admin.port)
                try await channel.channel.writeAndFlush(ByteBuffer(string: "GET /status HTTP/1.1\r\nHost: x\r\n"))
                slow.append(channel)
            }
            // A new connection closes the oldest idle one: the half-sent requests cannot lock it out.
            let status = try await AdminServerTests().request("GET", "http://127.0.0.1:\(admin.port)/status")
            #expect(status.status == 200)
            for channel in slow {
                #expect(try await responseUntilClose(channel) == "", "a half-sent request is closed without an answer")
            }
        }
        _ = try await proxy.stop()
    }

    /// Two requests on one connection, the second written once the first is answered, and
    /// then two at once (pipelined): each gets its answer, in order, on the same connection,
    /// which stays open (no `Connection: close`); a later request with two readings is refused
    /// as a first one is, and the connection closed.
    @Test("a connection is kept alive between requests")
    func keepAlive() async throws {
        let (proxy, _) = try await Loopback.proxy(.passThrough, upstreamPort: 1)
        try await AdminServer.with(proxy: proxy) { admin in
            let channel = try await Loopback.connect(port: admin.port)
            try await channel.executeThenClose { inbound, outbound in
                var bytes: [UInt8] = []
                var iterator = inbound.makeAsyncIterator()
                func answers(_ count: Int) async throws -> [String] {
                    var taken: [String] = []
                    while taken.count < count {
                        if let answer = AdminWire.takeAnswer(&bytes) {
                            taken.append(answer)
                        } else if let chunk = try await iterator.next() {
                            bytes += chunk.readableBytesView
                        } else {
                            break
                        }
                    }
                    return taken
                }
                try await outbound.write(ByteBuffer(string: "GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
                let first = try await answers(1)
                try await outbound.write(ByteBuffer(string: "GET /phones HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
                let second = try await answers(1)
                try await outbound.write(
                    ByteBuffer(string: "GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /nothing HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
                let pipelined = try await answers(2)
                let all = first + second + pipelined
                #expect(all.map { $0.prefix(12) } == ["HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 404"], "\(all)")
                #expect(all.allSatisfy { !$0.lowercased().contains("connection: close") }, "\(all)")
                #expect(second.first?.contains(#""phone" : 1"#) == true, "the second answer is the second request's")
                // A later request on the connection is read as sent too: two Host headers are a 400, and the close.
                try await outbound.write(
                    ByteBuffer(string: "GET /status HTTP/1.1\r\nHost: localhost\r\nHost: attacker.example\r\n\r\n"))
                let refused = try await answers(2)
                #expect(refused.count == 1 && refused[0].hasPrefix("HTTP/1.1 400") && refused[0].contains("2 Host headers"), "\(refused)")
            }
        }
        _ = try await proxy.stop()
    }

    @Test("a malformed request gets a 400 and the connection is closed")
    func malformedRequest() async throws {
        let (proxy, _) = try await Loopback.proxy(.passThrough, upstreamPort: 1)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let channel = try await Loopback.connect(port: admin.port)
            try await channel.channel.writeAndFlush(ByteBuffer(string: "NOT HTTP AT ALL\r\n\r\n"))
            let response = try await responseUntilClose(channel)
            #expect(response?.hasPrefix("HTTP/1.1 400") == true, "\(response ?? "still open")")
        }
        _ = try await proxy.stop()
    }
}
