import Foundation
import NIOCore
import NetsimCore
import NetsimProxy
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The admin API: read the live status, trigger conditions, reject bad requests.
@Suite(.serialized) struct AdminServerTests {
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
        let (server, serverPort) = try await Loopback.echoServer()
        let (proxy, port) = try await Loopback.proxy(profile, upstreamPort: serverPort)
        let admin = try await AdminServer.start(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy, group: Loopback.group)
        let base = "http://127.0.0.1:\(admin.address.port)"

        let channel = try await Loopback.connect(port: port)
        try await channel.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            _ = try await Loopback.roundTrip(10, inbound: &iterator, outbound: outbound)

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

        let handover = try await request("POST", base + "/handover?to=wifi&mode=keep")
        #expect(handover.status == 200)
        #expect(try await request("GET", base + "/status").json["network"] as? String == "wifi")

        let unknownNetwork = try await request("POST", base + "/handover?to=5g")
        #expect(unknownNetwork.status == 400)
        #expect((unknownNetwork.json["error"] as? String)?.contains("lte, wifi") == true)
        #expect(try await request("POST", base + "/outage?duration=soon").status == 400)
        #expect(try await request("GET", base + "/nothing").status == 404)

        let report = try await request("GET", base + "/report")
        #expect((report.json["connections"] as? [String: Any])?["reset"] as? Int == 1)
        await admin.stop()
        _ = try await proxy.stop()
        try await server.close()
    }
}

/// Requests meant to break the proxy through its admin API.
@Suite(.serialized) struct AdminServerHostileTests {
    @Test("durations beyond the profile rules are a 400, and traffic flows afterwards")
    func durationsOutOfRange() async throws {
        let profile = Profile(
            name: "admin", description: "",
            networks: [Network(name: "lte", radio: .none, up: LinkParameters(), down: LinkParameters())], start: "lte")
        let (server, serverPort) = try await Loopback.echoServer()
        let (proxy, port) = try await Loopback.proxy(profile, upstreamPort: serverPort)
        let admin = try await AdminServer.start(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy, group: Loopback.group)
        let base = "http://127.0.0.1:\(admin.address.port)"
        let tests = AdminServerTests()

        for path in [
            "/outage?duration=10000000000s", "/outage?duration=1" + String(repeating: "0", count: 306) + "h",
            "/outage?duration=0s", "/handover?to=lte&gap=10000000000s",
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
        await admin.stop()
        _ = try await proxy.stop()
        try await server.close()
    }
}
