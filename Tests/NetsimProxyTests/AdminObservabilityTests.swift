import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NetsimAdmin
import NetsimCore
import NetsimProxy
import NetsimTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `GET /metrics` and `GET /events`: what a dashboard or a test follows the phone with.
@Suite(.serialized, .playsLive(timeLimit: .seconds(120))) struct AdminObservabilityTests {
    static let lteProfile = Profile(
        name: "observed", description: "",
        networks: [
            Network(name: "lte", radio: .lte(LTERadioParameters()), up: LinkParameters(), down: LinkParameters()),
            Network(name: "wifi", radio: .wifi(WiFiRadioParameters()), up: LinkParameters(), down: LinkParameters()),
        ],
        start: "lte")

    // MARK: Metrics

    /// One sample of a Prometheus text exposition: `name{labels} value`.
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// Parses the Prometheus text format strictly enough to fail on anything malformed: every
    /// sample's metric has a `# TYPE` line first, labels are `key="value"`, values are numbers.
    static func parsePrometheus(_ text: String) throws -> [Sample] {
        struct Malformed: Error, CustomStringConvertible { let description: String }
        var types: [String: String] = [:]
        var samples: [Sample] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]) else {
                    throw Malformed(description: "bad TYPE line: \(line)")
                }
                types[String(parts[2])] = String(parts[3])
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                throw Malformed(description: "no value: \(line)")
            }
            var series = line[..<space]
            var labels: [String: String] = [:]
            if let brace = series.firstIndex(of: "{") {
                guard series.hasSuffix("}") else { throw Malformed(description: "unclosed labels: \(line)") }
                for pair in series[series.index(after: brace)..<series.index(before: series.endIndex)].split(separator: ",") {
                    let keyValue = pair.split(separator: "=", maxSplits: 1)
                    guard keyValue.count == 2, keyValue[1].hasPrefix("\""), keyValue[1].hasSuffix("\"") else {
                        throw Malformed(description: "bad label \(pair): \(line)")
                    }
                    labels[String(keyValue[0])] = String(keyValue[1].dropFirst().dropLast())
                }
                series = series[..<brace]
            }
            let name = String(series)
            let family = ["_bucket", "_sum", "_count"].reduce(name) { name, suffix in
                name.hasSuffix(suffix) && types[name] == nil ? String(name.dropLast(suffix.count)) : name
            }
            guard types[family] != nil else { throw Malformed(description: "no TYPE for \(name)") }
            samples.append(Sample(name: name, labels: labels, value: value))
        }
        return samples
    }

    func scrape(_ base: String) async throws -> [Sample] {
        let (data, response) = try await URLSession.shared.data(from: URL(string: base + "/metrics")!)
        let http = response as! HTTPURLResponse
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "content-type")?.hasPrefix("text/plain; version=0.0.4") == true)
        return try Self.parsePrometheus(String(decoding: data, as: UTF8.self))
    }

    func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    @Test("GET /metrics is Prometheus text, and its counters move with the traffic")
    func metricsMoveWithTraffic() async throws {
        let (server, serverPort) = try await Loopback.echoServer()
        let (proxy, port) = try await Loopback.proxy(Self.lteProfile, upstreamPort: serverPort)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let base = "http://127.0.0.1:\(admin.port)"

            let before = try await scrape(base)
            #expect(value(before, "netsim_bytes_total", ["direction": "up"]) == 0)
            #expect(value(before, "netsim_connections_opened_total") == 0)
            #expect(value(before, "netsim_radio_state", ["state": "IDLE"]) == 1)
            #expect(value(before, "netsim_radio_promotions_total") == 0)
            #expect(value(before, "netsim_info", ["profile": "observed", "seed": "1", "version": NetsimVersion.current]) == 1)

            let payload = Loopback.randomBytes(20_000, seed: 5)
            let echoed = try await Loopback.echo(payload, port: port)
            #expect(echoed.received == payload)
            _ = try await proxy.outage(seconds: 1, mode: .stall)
            #expect(try await eventually { try await proxy.status().openConnections == 0 })

            let after = try await scrape(base)
            #expect(value(after, "netsim_bytes_total", ["direction": "up"]) == 20_000)
            #expect(value(after, "netsim_bytes_total", ["direction": "down"]) == 20_000)
            #expect(value(after, "netsim_connections_opened_total") == 1)
            #expect(value(after, "netsim_open_connections") == 0)
            #expect(value(after, "netsim_queued_bytes", ["direction": "down"]) == 0)
            #expect(value(after, "netsim_radio_promotions_total") ?? 0 >= 1)
            #expect(value(after, "netsim_radio_wake_seconds_total") ?? 0 > 0)
            #expect(value(after, "netsim_radio_energy_joules_total") ?? 0 > 0)
            #expect(value(after, "netsim_events_total", ["kind": "outage"]) == 1)
            let states = after.filter { $0.name == "netsim_radio_state" }
            #expect(states.count == RadioState.allCases.count)
            #expect(states.map(\.value).reduce(0, +) == 1, "exactly one state is current")
            #expect(after.contains { $0.name == "netsim_event_loop_lag_seconds_count" })

            // A second scrape adds nothing that did not happen: counters are not counted twice.
            let again = try await scrape(base)
            #expect(value(again, "netsim_bytes_total", ["direction": "up"]) == 20_000)
            #expect(value(again, "netsim_events_total", ["kind": "outage"]) == 1)
        }
        _ = try await proxy.stop()
        try await server.close()
    }

    @Test("two proxies in one process keep their own metrics")
    func metricsPerProxy() async throws {
        let (server, serverPort) = try await Loopback.echoServer()
        let (first, port) = try await Loopback.proxy(.passThrough, upstreamPort: serverPort)
        let (second, _) = try await Loopback.proxy(.passThrough, upstreamPort: serverPort)
        _ = try await Loopback.echo([1, 2, 3], port: port)
        let firstSamples = try Self.parsePrometheus(try await first.metricsText())
        let secondSamples = try Self.parsePrometheus(try await second.metricsText())
        #expect(value(firstSamples, "netsim_bytes_total", ["direction": "up"]) == 3)
        #expect(value(secondSamples, "netsim_bytes_total", ["direction": "up"]) == 0)
        _ = try await first.stop()
        _ = try await second.stop()
        try await server.close()
    }

    // MARK: Events

    /// One server-sent event.
    struct ServerSentEvent {
        var name: String
        var data: [String: Any]
    }

    /// Opens `GET /events`, waits for the stream to start (the subscription is then in place),
    /// runs `action`, and collects events until `isLast` says so. Gives up after `limit` by
    /// closing the stream, and returns what came (a guard against a hang, not a timing assertion).
    static func followEvents(
        port: Int, limit: Duration = .seconds(30), during action: @Sendable () async throws -> Void,
        until isLast: @escaping @Sendable (ServerSentEvent) -> Bool
    ) async throws -> (status: HTTPResponseStatus?, events: [ServerSentEvent]) {
        let channel = try await ClientBootstrap(group: Loopback.group)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await withThrowingTaskGroup(of: Void.self) { watchdog in
            // The guard against a hang: a child of this scope, cancelled when the stream is read.
            watchdog.addTask { [stream = channel.channel] in
                try await Task.sleep(for: limit)
                Issue.record("no final event within \(limit)")
                try await stream.close()
            }
            defer { watchdog.cancelAll() }
            return try await follow(channel, during: action, until: isLast)
        }
    }

    private static func follow(
        _ channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>, during action: @Sendable () async throws -> Void,
        until isLast: @escaping @Sendable (ServerSentEvent) -> Bool
    ) async throws -> (status: HTTPResponseStatus?, events: [ServerSentEvent]) {
        try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/events")
            head.headers.add(name: "host", value: "127.0.0.1")
            try await outbound.write(.head(head))
            try await outbound.write(.end(nil))
            var status: HTTPResponseStatus?
            var text = ""
            var started = false
            var events: [ServerSentEvent] = []
            for try await part in inbound {
                switch part {
                case .head(let response): status = response.status
                case .body(let buffer): text += String(buffer: buffer)
                case .end: return (status, events)
                }
                if status != .ok { continue }
                while let blank = text.range(of: "\n\n") {
                    let block = text[..<blank.lowerBound]
                    text.removeSubrange(..<blank.upperBound)
                    if block.hasPrefix(":") {
                        if !started {
                            started = true
                            try await action()
                        }
                        continue
                    }
                    var name = "message"
                    var data: [String: Any] = [:]
                    for line in block.split(separator: "\n") {
                        if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                        if line.hasPrefix("data: ") {
                            data = try JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any] ?? [:]
                        }
                    }
                    let event = ServerSentEvent(name: name, data: data)
                    events.append(event)
                    if isLast(event) { return (status, events) }
                }
            }
            return (status, events)
        }
    }

    @Test("GET /events streams the radio waking for a connection, then an outage, in order")
    func eventsInOrder() async throws {
        let (server, serverPort) = try await Loopback.echoServer()
        let (proxy, port) = try await Loopback.proxy(Self.lteProfile, upstreamPort: serverPort)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in

            let (status, events) = try await Self.followEvents(port: admin.port) {
                let echoed = try await Loopback.echo([1, 2, 3], port: port)
                #expect(echoed.ending == .finished)
                _ = try await proxy.outage(seconds: 2, mode: .stall)
            } until: {
                $0.name == "outage"
            }
            #expect(status == .ok)
            let names = events.map(\.name)
            #expect(names.first == "connection-opened")
            let radio = try #require(events.first { $0.name == "radio-state" })
            #expect(radio.data["previous"] as? String == "IDLE")
            #expect(radio.data["state"] as? String == "PROMOTION")
            #expect(names.last == "outage")
            #expect(events.last?.data["durationSeconds"] as? Double == 2)
            // Every event's time is in order.
            let times = events.compactMap { $0.data["at"] as? Double }
            #expect(times.count == events.count)
            #expect(times == times.sorted())

            // The stream's subscription ended with its connection.
            var subscribers = 1.0
            for _ in 0..<100 where subscribers != 0 {
                subscribers = value(try Self.parsePrometheus(try await proxy.metricsText()), "netsim_event_subscribers") ?? -1
                if subscribers != 0 { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(subscribers == 0)
        }
        _ = try await proxy.stop()
        try await server.close()
    }

    @Test("outage-ended follows an outage when connectivity is back, once for outages that overlap")
    func outageEnded() async throws {
        let (proxy, _) = try await Loopback.proxy(Self.lteProfile, upstreamPort: 1)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let (_, events) = try await Self.followEvents(port: admin.port) {
                _ = try await proxy.outage(seconds: 1, mode: .stall)
                _ = try await proxy.outage(seconds: 1, mode: .stall)
            } until: {
                $0.name == "outage-ended"
            }
            let outages = events.filter { $0.name == "outage" }
            #expect(outages.count == 2)
            let ended = try #require(events.last)
            let first = try #require(outages.first?.data["at"] as? Double)
            let second = try #require(outages.last?.data["at"] as? Double)
            #expect(ended.data["startedAt"] as? Double == first)
            // The second outage overlaps the first and ends later: connectivity is back at its end.
            #expect(abs((ended.data["at"] as? Double ?? 0) - (second + 1)) < 1e-9)
            #expect(try await proxy.status().disconnected == false)
        }
        _ = try await proxy.stop()
    }

    @Test("an outage ended early says so when it ends, not at its planned end")
    func outageEndedEarly() async throws {
        let (proxy, _) = try await Loopback.proxy(Self.lteProfile, upstreamPort: 1)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let ended = Mutex<OutageEnd?>(nil)
            let (_, events) = try await Self.followEvents(port: admin.port) {
                _ = try await proxy.outage(seconds: 600, mode: .stall)
                let end = try await proxy.endOutage()
                ended.withLock { $0 = end }
            } until: {
                $0.name == "outage-ended"
            }
            let end = try #require(ended.withLock { $0 })
            let last = try #require(events.last)
            #expect(last.data["at"] as? Double == end.endedAt && last.data["startedAt"] as? Double == end.startedAt)
            #expect(end.plannedEnd == end.startedAt + 600)
        }
        _ = try await proxy.stop()
    }

    @Test("a handover comes before the fresh radio's state it causes")
    func handoverBeforeItsRadioChange() async throws {
        let (server, serverPort) = try await Loopback.echoServer()
        let (proxy, port) = try await Loopback.proxy(Self.lteProfile, upstreamPort: serverPort)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in

            // The LTE radio wakes for the echo; its tail lasts seconds, so the first change to IDLE
            // is the one the handover to WiFi's fresh radio causes.
            let (_, events) = try await Self.followEvents(port: admin.port) {
                _ = try await Loopback.echo([1, 2, 3], port: port)
                _ = try await proxy.handover(to: "wifi", mode: .keep)
            } until: {
                $0.name == "radio-state" && $0.data["state"] as? String == "IDLE"
            }
            #expect(events.suffix(2).map(\.name) == ["handover", "radio-state"])
            #expect(events.last?.data["at"] as? Double == events.dropLast().last?.data["at"] as? Double)
        }
        _ = try await proxy.stop()
        try await server.close()
    }

    @Test("an event stream outlives the connection cap that closes idle requests")
    func eventStreamsAndTheConnectionCap() async throws {
        let (proxy, _) = try await Loopback.proxy(Self.lteProfile, upstreamPort: 1)
        var limits = AdminLimits()
        limits.maximumConnections = 4
        limits.maximumEventStreams = 1
        try await AdminServer.with(
            at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy, limits: limits
        ) { admin in
            let adminPort = admin.port

            let (status, events) = try await Self.followEvents(port: adminPort) {
                // More idle connections than the cap: each new one closes the oldest idle one, never the stream.
                var idle: [NIOAsyncChannel<ByteBuffer, ByteBuffer>] = []
                for _ in 0..<8 { idle.append(try await Loopback.connect(port: adminPort)) }
                _ = try await proxy.handover(to: "wifi", mode: .keep)
                for channel in idle { try? await channel.channel.close() }
            } until: {
                $0.name == "handover"
            }
            #expect(status == .ok)
            #expect(events.last?.data["network"] as? String == "wifi")
        }
        _ = try await proxy.stop()
    }

    @Test("sixteen event streams that never read, on a quiet phone, do not keep a seventeenth subscriber out")
    func neverReadingStreamsOnAQuietPhone() async throws {
        let (proxy, _) = try await Loopback.proxy(Self.lteProfile, upstreamPort: 1)
        try await AdminServer.with(at: HostPort(host: "127.0.0.1", port: 0), proxy: proxy) { admin in
            let adminPort = admin.port
            let limit = AdminLimits().maximumEventStreams
            var silent: [any Channel] = []
            for _ in 0..<limit {
                // Reads once, to see the stream open (its first bytes), and never again.
                let opened = Loopback.group.next().makePromise(of: Void.self)
                let channel = try await ClientBootstrap(group: Loopback.group)
                    .channelOption(ChannelOptions.autoRead, value: false)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(FirstBytes(opened))
                        }
                    }
                    .connect(host: "127.0.0.1", port: adminPort).get()
                try await channel.writeAndFlush(ByteBuffer(string: "GET /events HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n"))
                channel.read()
                try await opened.futureResult.get()
                silent.append(channel)
            }
            let (status, _) = try await Self.followEvents(port: adminPort) {
                _ = try await proxy.handover(to: "wifi", mode: .keep)
            } until: {
                $0.name == "handover"
            }
            #expect(status == .ok)
            for channel in silent { try? await channel.close() }
        }
        _ = try await proxy.stop()
    }

    @Test("a subscriber that falls behind misses events beyond its buffer, and is told how many before the next")
    func slowSubscriber() async throws {
        let (proxy, _) = try await Loopback.proxy(.passThrough, upstreamPort: 1)
        var events = proxy.events().map(\.event).makeAsyncIterator()
        let published = 300
        for index in 0..<published { _ = try await proxy.set("link: {delay: \(index)ms}") }
        var times: [Double] = []
        for _ in 0..<256 {
            guard case .timeline(let event) = await events.next() else { break }
            times.append(event.at)
        }
        #expect(times.count == 256, "the first 256 are kept")
        #expect(times == times.sorted())
        _ = try await proxy.set("link: {delay: 1s}")
        #expect(await events.next() == .dropped(count: published - 256))
        #expect(await events.next()?.name == "set")
        _ = try await proxy.stop()
        #expect(await events.next() == nil, "the stream ends when the proxy stops")
    }
}

/// Succeeds its promise at a channel's first bytes, and reads nothing itself after them.
private final class FirstBytes: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let arrived: EventLoopPromise<Void>

    init(_ arrived: EventLoopPromise<Void>) { self.arrived = arrived }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        arrived.succeed()
    }
}
