import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@testable import NetsimAdmin
@testable import NetsimProxy

/// The admin API's routes and middleware through Hummingbird's router alone (`app.test(.router)`):
/// no socket, no HTTP parser, a proxy that listens nowhere. What needs the request as sent
/// (two `Host` headers, an absolute-form target, the connection cap, keep-alive) is the
/// end-to-end tests' (`AdminServerTests`, `AdminDashboardTests`).
@Suite(.serialized, .playsLive(timeLimit: .seconds(120))) struct AdminRouterTests {
    /// Two networks, for a move.
    static let profile = AdminObservabilityTests.lteProfile

    static let token = "s3cret-s3cret-s3cret"

    /// The headers every answer carries, whatever answered it.
    static let common: [String: String] = [
        "content-security-policy": DashboardPage.contentSecurityPolicy, "x-content-type-options": "nosniff",
        "cache-control": "no-store", "referrer-policy": "no-referrer", "x-frame-options": "DENY",
    ]

    /// Runs `body` with a client of the admin API's router over a proxy with no listeners;
    /// stops the proxy after it, whatever `body` throws.
    static func withRouter<Result: Sendable>(
        access: AdminAccess = AdminAccess(), _ body: @Sendable (any TestClientProtocol, NetsimProxy) async throws -> Result
    ) async throws -> Result {
        let proxy = try await NetsimProxy.start(
            profile: profile, seed: 1, forwards: [], options: ProxyOptions(), group: Loopback.group, logger: Loopback.logger)
        let server = AdminServer(proxy: proxy, access: access)
        let outcome: Swift.Result<Result, any Error>
        do {
            outcome = .success(try await Application(router: server.router()).test(.router) { try await body($0, proxy) })
        } catch {
            outcome = .failure(error)
        }
        _ = try await proxy.stop()
        return try outcome.get()
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any] ?? [:]
    }

    static func expectCommonHeaders(_ response: TestResponse, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for (name, value) in common {
            #expect(response.headers[HTTPField.Name(name)!] == value, "\(what): \(name)", sourceLocation: sourceLocation)
        }
    }

    @Test func everyAnswerCarriesTheSecurityHeadersEvenAnError() async throws {
        try await Self.withRouter { client, _ in
            for (uri, method, status) in [
                ("/", HTTPRequest.Method.get, HTTPResponse.Status.ok), ("/status", .get, .ok), ("/nothing", .get, .notFound),
                ("/status", .post, .methodNotAllowed), ("/status?x=1", .get, .badRequest),
            ] {
                let response = try await client.execute(uri: uri, method: method)
                #expect(response.status == status, "\(method) \(uri)")
                Self.expectCommonHeaders(response, "\(method) \(uri)")
            }
        }
    }

    @Test func anUnknownPathIsA404ThatListsTheRoutesAndAWrongMethodA405WithAllow() async throws {
        try await Self.withRouter { client, _ in
            let unknown = try await client.execute(uri: "/handover?to=wifi", method: .post)
            #expect(unknown.status == .notFound)
            #expect(unknown.headers[.contentType] == "application/json")
            let message = try #require(try Self.json(unknown)["error"] as? String)
            #expect(message.contains("unknown endpoint /handover") && message.contains("POST /network") && message.contains("GET /events"))

            let wrong = try await client.execute(uri: "/outage", method: .get)
            #expect(wrong.status == .methodNotAllowed)
            #expect(wrong.headers[.allow] == "POST")
            #expect(try Self.json(wrong)["error"] as? String == "/outage takes POST, not GET")
            #expect(try await client.execute(uri: "/dashboard.js", method: .delete).headers[.allow] == "GET")
        }
    }

    @Test func aTokenGuardsTheDataButNotThePagesOwnFiles() async throws {
        try await Self.withRouter(access: AdminAccess(token: Self.token)) { client, _ in
            let missing = try await client.execute(uri: "/status", method: .get)
            #expect(missing.status == .unauthorized)
            #expect(missing.headers[.wwwAuthenticate] == "Bearer")
            #expect((try Self.json(missing)["error"] as? String)?.contains("--admin-token") == true)
            Self.expectCommonHeaders(missing, "401")
            for wrong in [Self.token + "!", String(Self.token.dropLast()), ""] {
                let answer = try await client.execute(uri: "/status", method: .get, headers: [.authorization: "Bearer \(wrong)"])
                #expect(answer.status == .unauthorized, "Bearer \(wrong)")
            }
            #expect(try await client.execute(uri: "/report", method: .get).status == .unauthorized)
            // An unknown path is refused before it is named: a 401, not a 404 listing the routes.
            #expect(try await client.execute(uri: "/nothing", method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: "/events", method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: "/outage", method: .post).status == .unauthorized)
            for file in ["/", "/dashboard.js", "/dashboard.css"] {
                #expect(try await client.execute(uri: file, method: .get).status == .ok, "\(file)")
            }
            let given = try await client.execute(uri: "/status", method: .get, headers: [.authorization: "bearer \(Self.token)"])
            #expect(given.status == .ok)
            let outage = try await client.execute(
                uri: "/outage?duration=1s", method: .post, headers: [.authorization: "Bearer \(Self.token)"])
            #expect(outage.status == .ok, "\(String(buffer: outage.body))")
        }
    }

    @Test func aPostFromAnotherSitesPageIsA403AndReachesNoPhone() async throws {
        try await Self.withRouter { client, proxy in
            let crossSite = try await client.execute(
                uri: "/outage?duration=1s", method: .post, headers: [.origin: "https://attacker.example"])
            #expect(crossSite.status == .forbidden)
            #expect((try Self.json(crossSite)["error"] as? String)?.contains("another site") == true)
            let ownPage = try await client.execute(uri: "/outage?duration=1s", method: .post, headers: [.origin: "http://localhost"])
            #expect(ownPage.status == .ok)
            #expect(try await proxy.report().events.count { $0.kind == .outage } == 1)
        }
    }

    @Test func theRoutesAnswerJSONAndABadQueryIsA400ThatSaysWhatIsWrong() async throws {
        try await Self.withRouter { client, _ in
            let status = try await client.execute(uri: "/status", method: .get)
            #expect(status.headers[.contentType] == "application/json")
            #expect(try Self.json(status)["network"] as? String == "lte")
            let phones = try await client.execute(uri: "/phones", method: .get)
            #expect((try JSONSerialization.jsonObject(with: Data(buffer: phones.body)) as? [Any])?.count == 1)
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            #expect(String(buffer: metrics.body).contains("netsim_event_subscribers"))
            let moved = try await client.execute(uri: "/network?to=wifi", method: .post)
            #expect(moved.status == .ok)
            #expect(try Self.json(moved)["kind"] as? String == "handover")

            for (uri, method, expected) in [
                ("/status?phone=2", HTTPRequest.Method.get, "phone must be a number from 1 to 1, not '2'"),
                ("/status?verbose=1", .get, "unknown parameter 'verbose' for /status; it takes phone"),
                ("/report?format=json&format=html", .get, "duplicate parameter 'format'"),
                ("/report?format=xml", .get, "format must be json or html, not 'xml'"),
                ("/outage?mode=nap", .post, "mode must be one of stall, blackhole, reset"),
                ("/events?phone=0", .get, "phone must be a number from 1 to 1"),
            ] {
                let answer = try await client.execute(uri: uri, method: method)
                #expect(answer.status == .badRequest, "\(uri)")
                #expect(answer.headers[.contentType] == "application/json", "\(uri)")
                #expect((try Self.json(answer)["error"] as? String)?.contains(expected) == true, "\(uri): \(String(buffer: answer.body))")
            }
        }
    }

    @Test func setTakesAChangeUpToTheBodyLimitAndA413Beyond() async throws {
        try await Self.withRouter { client, _ in
            let change = try await client.execute(
                uri: "/set", method: .post, body: ByteBuffer(string: #"{"link": {"delay": "200ms"}}"#))
            #expect(change.status == .ok, "\(String(buffer: change.body))")
            let bad = try await client.execute(uri: "/set", method: .post, body: ByteBuffer(string: "link: [1"))
            #expect(bad.status == .badRequest)
            #expect((try Self.json(bad)["error"] as? String)?.contains("the /set body") == true)
            let tooLarge = try await client.execute(
                uri: "/set", method: .post, body: ByteBuffer(string: "# " + String(repeating: "x", count: AdminServer.bodyLimit)))
            #expect(tooLarge.status == .contentTooLarge)
            #expect((try Self.json(tooLarge)["error"] as? String)?.contains("larger than 65536 bytes") == true)
            Self.expectCommonHeaders(tooLarge, "413")
        }
    }

    /// The stream opens with a comment (the subscription is in place once it is sent), then
    /// carries each event as `event: NAME` and one `data:` line of JSON, blank-line framed, and
    /// ends when the proxy stops.
    @Test func theEventStreamFramesEachEventAndEndsWhenTheProxyStops() async throws {
        let body = try await Self.withRouter { client, proxy in
            try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask {
                    let response = try await client.execute(uri: "/events", method: .get)
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/event-stream")
                    Self.expectCommonHeaders(response, "events")
                    return String(buffer: response.body)
                }
                group.addTask {
                    // The stream subscribed (its metric says so), an outage, then the end.
                    while !(try await proxy.metricsText()).contains("netsim_event_subscribers 1") {
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    _ = try await proxy.outage(seconds: 2, mode: .stall)
                    _ = try await proxy.stop()
                    return nil
                }
                var body = ""
                for try await text in group { body = text ?? body }
                return body
            }
        }
        #expect(body.hasPrefix(": netsim events\n\n"))
        let blocks = body.components(separatedBy: "\n\n").filter { !$0.isEmpty && !$0.hasPrefix(":") }
        let outage = try #require(blocks.first { $0.hasPrefix("event: outage\n") }, "\(body)")
        let lines = outage.split(separator: "\n")
        #expect(lines.count == 2 && lines[1].hasPrefix("data: {"), "\(outage)")
        let data = try JSONSerialization.jsonObject(with: Data(lines[1].dropFirst(6).utf8)) as? [String: Any]
        #expect(data?["durationSeconds"] as? Double == 2)
    }
}
