import Foundation
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimPcap

/// Polling that opens a new connection each time: each poll is a short flow of its own, none
/// periodic, but their server's bursts are. The costliest polling pattern.
@Suite(.computes) struct ServerPollingTests {
    /// Four GETs 13 s apart, each on a new connection to api.example.com, then a browsing
    /// flow to another server: one periodic transfer over the four flows, and the flows grouped
    /// by server.
    @Test func pollingOnANewConnectionEachTimeIsFoundPerServer() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("polling.pcap")
        let writer = try CaptureWriter(path: path, wallClockOrigin: 1_700_000_000)
        let request = Array("GET /poll HTTP/1.1\r\nHost: api.example.com\r\n\r\n".utf8)
        let browsing = CaptureEndpoints(clientPort: 42_000, server: IPAddress("198.51.100.7")!, serverPort: 443)
        for poll in 0..<4 {
            let time = 2 + Double(poll) * 13
            let connection = ConnectionID(poll + 1)
            writer.open(connection, CaptureEndpoints(clientPort: 41_000 + UInt16(poll), server: Frames.server, serverPort: 80), at: time)
            writer.data(connection, .up, request, onAirStart: time + 0.05, onAirEnd: time + 0.05, at: time + 0.05)
            writer.data(connection, .down, [UInt8](repeating: 9, count: 2000), onAirStart: time + 0.1, onAirEnd: time + 0.1, at: time + 0.1)
            writer.close(connection, reset: false, at: time + 0.15)
        }
        writer.open(100, browsing, at: 60)
        writer.data(100, .up, [UInt8](repeating: 7, count: 600), onAirStart: 60.1, onAirEnd: 60.1, at: 60.1)
        writer.close(100, reset: false, at: 61)
        try writer.finish()

        let analysis = try CaptureAnalysis.analyze(
            file: path, options: CaptureAnalysisOptions(radio: RadioStages(.defaults(for: .lte))))
        #expect(analysis.flows.count == 5)
        let periodic = try #require(analysis.periodicTransfers.first)
        #expect(analysis.periodicTransfers.count == 1)
        #expect(periodic.serverName == "api.example.com")
        #expect(periodic.flows.count == 4 && periodic.flow == periodic.flows[0])
        #expect(abs(periodic.periodSeconds - 13) < 0.1)
        #expect(periodic.repetitions == 3)
        // 13 s apart the LTE radio (tail 10.12 s) sleeps between polls: each costs a promotion.
        #expect(abs(periodic.wakeSecondsPerRepetition - (0.26 + 0.15 + 10.12)) < 0.05)

        let server = try #require(analysis.servers.first { $0.server == "api.example.com" })
        #expect(Set(server.flows) == Set(analysis.flows.filter { $0.serverName == "api.example.com" }.map(\.id)))
        #expect(server.flows.count == 4 && server.wakeUps == 4)
        #expect(server.bytesDown == 8000)
        #expect(analysis.servers.map(\.server).sorted() == ["198.51.100.7", "api.example.com"])
        #expect(analysis.textReport().contains("Servers by energy"))
        #expect(analysis.htmlReport().contains("<h2>Servers by energy</h2>"))
    }
}
