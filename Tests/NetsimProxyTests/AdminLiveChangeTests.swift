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

/// `POST /set` and `POST /network`: live changes with the profile's rules, and 400s that say
/// what is wrong.
@Suite(.serialized, .playsLive(timeLimit: .seconds(120))) struct AdminLiveChangeTests {
    static let profile = Profile(
        name: "live", description: "",
        networks: [
            Network(name: "lte", radio: .none, up: LinkParameters(), down: LinkParameters()),
            Network(name: "wifi", radio: .none, up: LinkParameters(), down: LinkParameters()),
        ],
        start: "lte")

    func post(_ url: String, body: String? = nil) async throws -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return ((response as! HTTPURLResponse).statusCode, json)
    }

    /// What the change does to the next round trip is timed on virtual time
    /// (`LiveChangeVirtualTimeTests`).
    @Test("POST /set changes the link it says, and names the network it changed")
    func setChangesTheLink() async throws {
        try await AdminRig.with(Self.profile) { rig in
            let base = rig.base
            // JSON is YAML: the body is a timeline `set` step either way.
            let answer = try await post(base + "/set", body: #"{"link": {"delay": "300ms"}}"#)
            #expect(answer.status == 200)
            #expect(answer.json["kind"] as? String == "set")
            #expect(answer.json["network"] as? String == "lte")
            // The answer and the status say what the link is now (before, neither did).
            let link = answer.json["link"] as? [String: [String: Any]]
            #expect(
                link?["up"]?["delaySeconds"] as? Double == 0.3 && link?["down"]?["summary"] as? String == "rate unlimited, delay 300ms")
            let status = try await rig.proxy.status()
            #expect(status.link.down.delaySeconds == 0.3 && status.link.up.bitsPerSecond == nil)
            let (statusBody, _) = try await URLSession.shared.data(from: URL(string: base + "/status")!)
            let statusJSON = try JSONSerialization.jsonObject(with: statusBody) as? [String: Any]
            #expect((statusJSON?["link"] as? [String: [String: Any]])?["up"]?["delaySeconds"] as? Double == 0.3)

            // A change to another network waits for the device to get there.
            let other = try await post(base + "/set", body: "network: wifi\nlink:\n  up:\n    delay: 1ms\n")
            #expect(other.status == 200)
            #expect(other.json["network"] as? String == "wifi")
            let report = try await rig.proxy.report()
            #expect(report.eventCounts[.set] == 2)
        }
    }

    @Test(
        "a bad change or move is a 400 that says what is wrong",
        arguments: [
            ("/set", #"{"link": {"delai": "1ms"}}"#, "did you mean 'delay'"),
            ("/set", #"{"link": {"delay": "soon"}}"#, "delay"),
            ("/set", #"{"link": {"rate": "-5Mbps"}}"#, "rate"),
            ("/set", #"{"link": {"up": {"rate": "80bps"}}}"#, "a rate from 1kbps (the floor"),
            ("/set", #"{"network": "5g", "link": {"delay": "1ms"}}"#, "lte, wifi"),
            ("/set", #"{"link": {}}"#, "changes nothing"),
            ("/set", #"{"link": {"trace": "/etc/passwd"}}"#, "only be set in a profile"),
            ("/set", "", "empty"),
            ("/set", "{link: [", "the /set body:2:1: YAML syntax error"),
            ("/set?delay=1ms", #"{"link": {"delay": "1ms"}}"#, "unknown parameter 'delay'"),
            ("/network?to=5g", "", "no network named '5g'"),
            ("/network", "", "lte, wifi"),
            ("/network?to=wifi&mode=gently", "", "reset, blackhole, keep"),
            ("/outage?durration=5s", "", "unknown parameter 'durration' for /outage; it takes duration, mode"),
            ("/outage?duration=5s&duration=1s", "", "duplicate parameter 'duration' for /outage: give each parameter once"),
        ])
    func badChanges(path: String, body: String, expectedInError: String) async throws {
        let (proxy, _) = try await Loopback.proxy(Self.profile, upstreamPort: 1)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let answer = try await post("http://127.0.0.1:\(admin.port)" + path, body: body)
            #expect(answer.status == 400)
            let error = answer.json["error"] as? String ?? ""
            #expect(error.contains(expectedInError), "\(error)")
            // Nothing happened.
            let report = try await proxy.report()
            #expect(report.eventCounts.isEmpty)
        }
        _ = try await proxy.stop()
    }

    @Test("POST /set/undo takes back the latest step, says what the link is then, and is a 400 once none is left")
    func undoingASet() async throws {
        let (proxy, _) = try await Loopback.proxy(Self.profile, upstreamPort: 1)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let base = "http://127.0.0.1:\(admin.port)"
            #expect(try await post(base + "/set", body: #"{"link": {"delay": "300ms"}}"#).status == 200)
            #expect(try await post(base + "/set", body: #"{"link": {"down": {"rate": "1Mbps"}}}"#).status == 200)

            let undone = try await post(base + "/set/undo")
            #expect(undone.status == 200)
            #expect(undone.json["kind"] as? String == "set" && undone.json["network"] as? String == "lte")
            #expect((undone.json["undoes"] as? Double).map { $0 > 0 } == true)
            let link = undone.json["link"] as? [String: [String: Any]]
            #expect(link?["down"]?["summary"] as? String == "rate unlimited, delay 300ms", "the rate is undone, the delay stays")
            #expect(try await proxy.status().link.down.delaySeconds == 0.3)

            #expect(try await post(base + "/set/undo").status == 200)
            #expect(try await proxy.status().link.down.delaySeconds == 0)
            let none = try await post(base + "/set/undo")
            #expect(none.status == 400)
            #expect((none.json["error"] as? String)?.contains("no set step to undo") == true)
            #expect(try await post(base + "/set/undo?all=1").status == 400, "no parameters")
            #expect(try await proxy.report().eventCounts[.set] == 4)
        }
        _ = try await proxy.stop()
    }

    /// An outage could not end early. Bytes written 0.1 s into a 60 s stall come back
    /// once it is ended, not after the planned 60 s; the report's outage lasted as long as it
    /// did. When they come (at TCP's next retransmission) is timed on virtual time
    /// (`LiveChangeVirtualTimeTests`).
    @Test("POST /outage/end ends a stall now: what it held arrives, and a second is a 400")
    func endingAnOutageEarly() async throws {
        try await AdminRig.with(Self.profile) { rig in
            let base = rig.base
            try await rig.withOpenConnection { iterator, outbound in
                #expect(try await post(base + "/outage?duration=60s").status == 200)
                try await Task.sleep(for: .milliseconds(100))
                try await outbound.write(ByteBuffer(repeating: 7, count: 1000))
                try await Task.sleep(for: .milliseconds(300))
                let ended = try await post(base + "/outage/end")
                #expect(ended.status == 200)
                #expect(ended.json["movedDeliveries"] as? Int == 1)
                let startedAt = try #require(ended.json["startedAt"] as? Double)
                #expect(ended.json["plannedEnd"] as? Double == startedAt + 60)
                #expect(ended.json["connectivityReturnsAt"] == nil)
                var got = 0
                while got < 1000 {
                    guard let chunk = try await iterator.next() else { throw Loopback.EchoClosed() }
                    got += chunk.readableBytes
                }
                #expect(try await rig.proxy.status().disconnected == false)
            }
            let again = try await post(base + "/outage/end")
            #expect(again.status == 400)
            #expect((again.json["error"] as? String)?.contains("no outage to end") == true)
            #expect(try await post(base + "/outage/end?now=1").status == 400, "no parameters")
            let outage = try #require(try await rig.proxy.report().events.first { $0.kind == .outage })
            #expect(outage.durationSeconds.map { $0 > 0.3 && $0 < 60 } == true, "\(String(describing: outage.durationSeconds))")
        }
    }

    /// An outage scripted 20 s in (at time scale 10, 2 s of wall time): paused at once, it has
    /// not begun 0.5 s (5 emulated seconds) later; resumed, it begins no sooner than its script
    /// and the pause (exactly then on virtual time: `LiveChangeVirtualTimeTests`).
    @Test("POST /timeline/pause holds the scripted outage back and /timeline/resume lets it come, that much later")
    func pauseAndResumeTheTimeline() async throws {
        var profile = Self.profile
        profile.timeline = Timeline(events: [TimelineEvent(at: 20, kind: .outage(duration: 2, mode: .stall))])
        let (echo, echoPort) = try await Loopback.echoServer()
        var options = ProxyOptions()
        options.timeScale = 10
        let proxy = try await NetsimProxy.start(
            profile: profile, seed: 1,
            forwards: [ForwardRule(listen: HostPort(host: "127.0.0.1", port: 0), upstream: HostPort(host: "127.0.0.1", port: echoPort))],
            options: options, group: Loopback.group, logger: Loopback.logger)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let base = "http://127.0.0.1:\(admin.port)"
            let paused = try await post(base + "/timeline/pause")
            #expect(paused.status == 200)
            let pausedAt = try #require(paused.json["at"] as? Double)
            #expect(try await proxy.status().timeline == .paused)
            let again = try await post(base + "/timeline/pause")
            #expect(again.status == 400 && (again.json["error"] as? String)?.contains("paused already") == true)
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await proxy.report().events.isEmpty, "no scripted event while paused")
            let resumed = try await post(base + "/timeline/resume")
            #expect(resumed.status == 200)
            let resumedAt = try #require(resumed.json["resumedAt"] as? Double)
            #expect(resumedAt - pausedAt >= 5)
            #expect(await eventually { (try? await proxy.report().events.count) == 1 })
            let report = try await proxy.report()
            let outageAt = try #require(report.events.first?.at)
            #expect(outageAt >= 20 + resumedAt - pausedAt - 1e-9, "\(outageAt) \(pausedAt) \(resumedAt)")
            #expect(report.timelinePauses?.count == 1)
            #expect(await eventually { (try? await proxy.status().timeline) == .over })
            let over = try await post(base + "/timeline/pause")
            #expect(over.status == 400 && (over.json["error"] as? String)?.contains("played all its events") == true)
            let notPaused = try await post(base + "/timeline/resume")
            #expect(notPaused.status == 400 && notPaused.json["error"] as? String == "the timeline is not paused")
        }
        _ = try await proxy.stop()
        try await echo.close()
    }

    @Test("POST /network moves the device; /handover, its old name, is gone: a 404 that names /network")
    func networkMoves() async throws {
        let (proxy, _) = try await Loopback.proxy(Self.profile, upstreamPort: 1)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let gone = try await post("http://127.0.0.1:\(admin.port)/handover?to=wifi&gap=0s")
            #expect(gone.status == 404)
            #expect((gone.json["error"] as? String)?.contains("POST /network") == true)
            #expect(try await proxy.status().network == "lte")
            let answer = try await post("http://127.0.0.1:\(admin.port)/network?to=wifi&gap=0s")
            #expect(answer.status == 200)
            #expect(answer.json["kind"] as? String == "handover")
            #expect(try await proxy.status().network == "wifi")
        }
        _ = try await proxy.stop()
    }

    @Test("a change nested as deep as the body limit allows is a 400, not a crash", arguments: ["[", "{a: ", "- "])
    func deeplyNestedChange(opening: String) async throws {
        let (proxy, _) = try await Loopback.proxy(Self.profile, upstreamPort: 1)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let body = String(repeating: opening, count: 60_000 / opening.count)
            let answer = try await post("http://127.0.0.1:\(admin.port)/set", body: body)
            #expect(answer.status == 400)
            #expect(try await proxy.status().openConnections == 0, "the proxy still answers")
        }
        _ = try await proxy.stop()
    }

    @Test("a body over the limit is a 413")
    func oversizedBody() async throws {
        let (proxy, _) = try await Loopback.proxy(Self.profile, upstreamPort: 1)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let answer = try await post(
                "http://127.0.0.1:\(admin.port)/set", body: "# " + String(repeating: "x", count: 70_000))
            #expect(answer.status == 413)
        }
        _ = try await proxy.stop()
    }
}
