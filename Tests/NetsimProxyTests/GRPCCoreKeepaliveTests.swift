import Foundation
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimTune

/// The tuner's gRPC C-core snippet, played by a real C-core client (python grpcio) holding an
/// idle stream open through netsim's HTTP proxy; a relay before the server counts the PING
/// frames that reach it (Peers/grpc_keepalive_peers.py).
///
/// Scaled: a 5 s keepalive and 30 s of idle stream (both clients at once, well under a minute
/// in all) instead of the 10 s over 5 minutes. With the snippet's
/// `grpc.http2.max_pings_without_data` 0 the client pings every 5 s, 5 or 6 pings in the 30 s;
/// with the trap left in (the argument unset: C-core's default 2) it pings at 5 s and 10 s, and
/// the next waits until a minute after the second (70 s: grpcio 1.85.3 measured 2, 4, then
/// 64 s with a 2 s keepalive).
@Suite(.playsLive(.peers))
struct GRPCCoreKeepaliveTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Peers/grpc_keepalive_peers.py"
    ).path
    static let seconds = 30.0

    /// The Python C-core snippet's channel arguments for a 5 s / 2 s recommendation, as the
    /// tuner prints them.
    static func snippetArguments() throws -> [String: Int] {
        var sweep = KeepaliveSweep(profiles: [Profile.passThrough])
        sweep.natTimeouts = [nil]
        sweep.keepaliveTimes = [5]
        sweep.keepaliveTimeouts = [2]
        sweep.seeds = 1
        sweep.horizon = 60
        sweep.impairments = .none
        let results = try sweep.run()
        let snippet = try #require(KeepaliveRecommendationText.snippets(results).first { $0.title.contains("Python grpcio") })
        var arguments: [String: Int] = [:]
        for line in snippet.text.split(separator: "\n") {
            let parts = line.split(separator: "\"")
            guard parts.count == 3, parts[1].hasPrefix("grpc."),
                let value = Int(parts[2].trimmingCharacters(in: CharacterSet(charactersIn: " ,()")))
            else { continue }
            arguments[String(parts[1])] = value
        }
        return arguments
    }

    @Test(.enabled(if: FrontEndPeers.python(has: "grpc"), "needs python3 with grpcio"))
    func theSnippetKeepsPingingAnIdleStreamAndTheTrapStopsAfterTwo() async throws {
        let snippet = try Self.snippetArguments()
        #expect(
            snippet == [
                "grpc.keepalive_time_ms": 5_000, "grpc.keepalive_timeout_ms": 2_000, "grpc.keepalive_permit_without_calls": 0,
                "grpc.http2.max_pings_without_data": 0,
            ], "\(snippet)")
        var trap = snippet
        trap["grpc.http2.max_pings_without_data"] = nil
        let clients = String(decoding: try JSONSerialization.data(withJSONObject: ["snippet": snippet, "trap": trap]), as: UTF8.self)
        let front = try await FrontEndProxy.start()
        let result = try FrontEndPeers.run(
            ["python3", Self.script, "idle-streams", "\(front.httpPort)", "\(Self.seconds)", clients], timeout: .seconds(120))
        let report = try await front.proxy.stop()
        #expect(report.connections.opened >= 2, "both clients went through netsim")
        let pings = try Self.pings(result)
        let fixed = try #require(pings["snippet"])
        let trapped = try #require(pings["trap"])
        #expect(fixed.count >= 5, "with the snippet: pings at \(fixed)")
        if let last = fixed.last { #expect(last >= 25, "the snippet's last ping at \(last) s") }
        #expect(trapped.count == 2, "with C-core's default max_pings_without_data: pings at \(trapped)")
    }

    /// The ping times the peer script printed, seconds after the stream opened.
    static func pings(_ result: (status: Int32, output: String)) throws -> [String: [Double]] {
        #expect(result.status == 0, "\(result.output)")
        let line = try #require(result.output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(result.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try #require(object["pings"] as? [String: [Double]])
    }
}
