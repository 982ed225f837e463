import Foundation
import NetsimInput
import NetsimTestSupport
import Testing

@testable import NetsimBench
@testable import NetsimModel

@Suite(.computes)
struct SettingsFileTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func shipped(_ path: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func theSameSeedGivesEveryTransportTheSameSchedule() {
        let workload = Workload()
        let first = workload.schedule(device: 3, seed: 42, duration: 600)
        #expect(first == workload.schedule(device: 3, seed: 42, duration: 600))
        #expect(first != workload.schedule(device: 4, seed: 42, duration: 600))
        #expect(first != workload.schedule(device: 3, seed: 43, duration: 600))
        // A longer run extends the schedule without changing its beginning.
        #expect(workload.schedule(device: 3, seed: 42, duration: 1200).eventTimes.prefix(first.eventTimes.count) == first.eventTimes[...])
    }

    @Test func eventsArriveAsAPoissonProcessAndMessagesAtTheirInterval() {
        let workload = Workload()
        let gaps = (0..<50).flatMap { device in
            let times = workload.schedule(device: device, seed: 1, duration: 3600).eventTimes
            return zip(times.dropFirst(), times).map { $0 - $1 }
        }
        let mean = gaps.reduce(0, +) / Double(gaps.count)
        #expect(abs(mean - 30) < 1.5, "mean gap \(mean) s")
        let messages = workload.schedule(device: 0, seed: 1, duration: 600).messageTimes
        #expect(messages.count == 10)
        #expect(zip(messages.dropFirst(), messages).allSatisfy { abs($0 - $1 - 60) < 1e-9 })
    }

    @Test func payloadsHaveTheirLength() {
        #expect(Workload.payload("event", device: 7, number: 12, length: 256).utf8.count == 256)
        #expect(Workload.payload("event", device: 7, number: 12, length: 5) == "event")
    }

    @Test func theShippedWorkloadIsTheDefault() throws {
        #expect(try Workload.load(yaml: Self.shipped("workloads/chat.yaml"), source: "chat.yaml") == Workload())
    }

    @Test func theShippedClientFiles() throws {
        var tuned = try ClientSettings.load(yaml: Self.shipped(ClientSettings.defaultsFile), source: "tuned")
        tuned.source = ClientSettings().source
        #expect(tuned == ClientSettings())
        // A report names the file of the defaults it used.
        #expect(ClientSettings.describe(source: "built-in") == "built-in, the values of clients/grpc-tuned.yaml")
        #expect(ClientSettings.describe(source: "mine.yaml") == "mine.yaml")
        let alternative = try ClientSettings.load(yaml: Self.shipped("clients/grpc-alternative.yaml"), source: "alternative").grpc
        #expect(alternative.keepaliveTime == 30 && alternative.keepaliveTimeout == 10 && !alternative.permitWithoutCalls)
        #expect(alternative.backoff == Backoff(initial: 1, maximum: 60, multiplier: 1.6, jitter: 0.2))
        #expect(alternative.callTimeLimit == 30)
        #expect(try ClientSettings.load(yaml: "grpc: {callTimeLimit: none}", source: "x").grpc.callTimeLimit == nil)
        #expect(try ClientSettings.load(yaml: "grpc: {reconnection: one-connection}", source: "x").grpc.reconnection == .oneConnection)
        #expect(throws: InputFileError.self) { try ClientSettings.load(yaml: "grpc: {reconnection: two}", source: "x") }
    }

    @Test func theQUICSection() throws {
        let quic = try ClientSettings.load(
            yaml:
                "quic: {keepAlivePeriod: none, maxIdleTimeout: 2m, serverIdleTimeout: 90s, zeroRTT: false, onNetworkChange: wait}",
            source: "q.yaml"
        ).quic
        #expect(quic.keepAlivePeriod == nil && quic.maxIdleTimeout == 120 && quic.effectiveIdleTimeout == 90)
        #expect(!quic.zeroRTT && quic.onNetworkChange == .wait && quic.watchNetwork)
        #expect {
            try ClientSettings.load(yaml: "quic: {pingInterval: 10s}", source: "q.yaml")
        } throws: { "\($0)".contains("q.yaml:1:8: unknown key 'quic.pingInterval'") }
    }

    @Test(arguments: [
        ("serverEvents: {meanGap: 30s, payloadSize: 1KB}", "w.yaml:1:30: unknown key 'serverEvents.payloadSize'"),
        ("serverEvents: {meanGap: soon}", "w.yaml:1:25: 'serverEvents.meanGap'"),
        ("outboxLimit: 0", "w.yaml:1:14: 'outboxLimit' must be a whole number from 1"),
        ("- 1\n- 2", "w.yaml:1:1: the top level must be a mapping"),
    ])
    func workloadErrorsNameTheKey(yaml: String, message: String) {
        #expect {
            try Workload.load(yaml: yaml, source: "w.yaml")
        } throws: { error in
            "\(error)".hasPrefix(message)
        }
    }

    @Test func clientErrorsNameTheKey() {
        #expect {
            try ClientSettings.load(yaml: "grpc: {keepalive: {time: 60s, permit: true}}", source: "c.yaml")
        } throws: { error in
            "\(error)".contains("unknown key 'grpc.keepalive.permit'")
        }
        #expect {
            try ClientSettings.load(yaml: "rest: {backoff: {multiplier: 0.5}}", source: "c.yaml")
        } throws: { error in
            "\(error)".contains("'rest.backoff.multiplier' must be a number from 1 to 10")
        }
    }
}
