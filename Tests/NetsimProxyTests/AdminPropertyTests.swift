import Foundation
import NIOCore
import NetsimAdmin
import NetsimCore
import NetsimProxy
import NetsimTestSupport
import PropertyBased
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Admin requests with generated extreme durations: each is answered 200 or 400, and the proxy
/// goes on carrying bytes and answering afterwards (a huge outage once trapped on the next byte).
@Suite(.serialized, .playsLive(timeLimit: .seconds(120))) struct AdminPropertyTests {
    static var hostileDuration: Generator<String, some Sequence & SendableMetatype> {
        zip(Gen.number.string(of: 1...320), Gen.int(in: 0...3)).map { digits, unit in digits + ["ms", "s", "m", "h"][unit] }
    }

    @Test("generated outage durations and handover gaps never break the proxy")
    func hostileTriggers() async throws {
        let profile = Profile(
            name: "admin", description: "",
            networks: [Network(name: "lte", radio: .lte(LTERadioParameters()), up: LinkParameters(), down: LinkParameters())],
            start: "lte")
        let (server, serverPort) = try await Loopback.echoServer()
        let (proxy, port) = try await Loopback.proxy(profile, upstreamPort: serverPort)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let base = "http://127.0.0.1:\(admin.port)"
            let client = AdminServerTests()

            await propertyCheck(count: 40, input: Self.hostileDuration, Self.hostileDuration) { duration, gap in
                let outage = try await client.request("POST", base + "/outage?duration=\(duration)&mode=stall")
                #expect([200, 400].contains(outage.status), "\(duration)")
                let handover = try await client.request("POST", base + "/network?to=lte&mode=keep&gap=\(gap)")
                #expect([200, 400].contains(handover.status), "\(gap)")
            }
            // Bytes now meet whatever outage was accepted last: they may wait, but must not trap.
            let channel = try await Loopback.connect(port: port)
            try await channel.executeThenClose { _, outbound in
                try await outbound.write(ByteBuffer(repeating: 9, count: 1000))
                #expect(try await client.request("GET", base + "/status").status == 200)
            }
            #expect(try await client.request("GET", base + "/status").status == 200)
        }
        _ = try await proxy.stop()
        try await server.close()
    }

    /// Bodies of `set` tokens, quantities at and beyond their limits, and YAML syntax, in any order.
    static var hostileChange: Generator<String, some Sequence & SendableMetatype> {
        let tokens = [
            "{", "}", "[", "]", ":", ", ", " ", "\n", "  ", "- ", "link", "network", "up", "down", "delay", "rate", "loss",
            "jitter", "queue", "trace", "amount", "distribution", "pareto", "unlimited", "lte", "1e308", "720h", "721h",
            "0", "-1", "0.5", "100%", "101%", "ms", "s", "bps", "Tbps", "1bps", "KiB", "&a ", "*a", "<<", "!!binary ", "\"",
            "'", "~", "null", "true",
        ]
        return Gen.element(of: tokens).array(of: 1...40).map { $0.compactMap { $0 }.joined() }
    }

    @Test("generated set bodies are each answered 200 or 400, and the proxy goes on carrying bytes")
    func hostileChanges() async throws {
        let profile = Profile(
            name: "admin", description: "",
            networks: [Network(name: "lte", radio: .lte(LTERadioParameters()), up: LinkParameters(), down: LinkParameters())],
            start: "lte")
        let (server, serverPort) = try await Loopback.echoServer()
        let (proxy, port) = try await Loopback.proxy(profile, upstreamPort: serverPort)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let base = "http://127.0.0.1:\(admin.port)"
            let client = AdminLiveChangeTests()

            await propertyCheck(count: 60, input: Self.hostileChange) { body in
                let answer = try await client.post(base + "/set", body: body)
                #expect([200, 400].contains(answer.status), "\(body)")
                if answer.status == 400 { #expect(answer.json["error"] is String, "\(body)") }
            }
            // Bytes now meet whatever change was accepted last: they may be slow, but must not trap.
            let channel = try await Loopback.connect(port: port)
            try await channel.executeThenClose { _, outbound in
                try await outbound.write(ByteBuffer(repeating: 9, count: 1000))
                #expect(try await client.post(base + "/set", body: "link: {delay: 1ms}").status == 200)
            }
            #expect(try await AdminServerTests().request("GET", base + "/status").status == 200)
        }
        _ = try await proxy.stop()
        try await server.close()
    }
}
