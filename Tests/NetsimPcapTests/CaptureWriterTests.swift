import Foundation
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimPcap

@Suite(.computes) struct CaptureWriterTests {
    static let origin = 1_700_000_000.25
    static let endpoints = CaptureEndpoints(clientPort: 51_000, server: Frames.server, serverPort: 8080)

    /// A connection with a request, a 10 kB response over 2 s on air, and a FIN exchange.
    static func writeExchange(to path: String, endpoints: CaptureEndpoints = endpoints) throws -> (request: [UInt8], response: [UInt8]) {
        let request = Array("GET /data HTTP/1.1\r\nHost: example.com\r\n\r\n".utf8)
        let response = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let writer = try CaptureWriter(path: path, wallClockOrigin: origin)
        writer.open(1, endpoints, at: 1.0)
        writer.data(1, .up, request, onAirStart: 1.0, onAirEnd: 1.001, at: 1.0)
        writer.data(1, .down, Array(response[..<4000]), onAirStart: 1.1, onAirEnd: 2.1, at: 1.05)
        writer.data(1, .down, Array(response[4000...]), onAirStart: 2.1, onAirEnd: 3.1, at: 1.06)
        writer.close(1, reset: false, at: 4.0)
        try writer.finish()
        return (request, response)
    }

    /// Under `ulimit -f` a capture was cut at the limit and the run said nothing:
    /// stdio's flush after the failed write had nothing left to write. A regular file shorter
    /// than what was written is incomplete, whatever the stream said.
    @Test func aFileShorterThanWhatWasWrittenIsIncomplete() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-cut-\(UUID().uuidString).pcap").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try PcapDumpFile(path: path, snapshotLength: 65_535, wallClockOrigin: Self.origin)
        for index in 0..<10 { file.write([UInt8](repeating: UInt8(index), count: 1000), at: Double(index)) }
        #expect(file.flush())
        // What a file-size limit does to the file: the bytes past it never reach the disk.
        #expect(truncate(path, 4096) == 0)
        #expect(file.close() == false)
        #expect(
            file.lossDescription().hasPrefix("6.1 KB of 10.2 KB did not reach the file (the file holds fewer bytes"),
            "\(file.lossDescription())")
    }

    @Test func roundTripKeepsBytesSequenceNumbersAndChecksums() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("exchange.pcap")
        let (request, response) = try Self.writeExchange(to: path)
        let (reader, packets) = try readAll(path)
        #expect(reader.linkType == .ethernet)
        #expect(reader.format == "pcap")

        let client = CaptureEndpoints.deviceIPv4
        let up = packets.filter { $0.decoded.source == client }
        let down = packets.filter { $0.decoded.source == Frames.server }
        #expect(up.flatMap(\.payload) == request)
        #expect(down.flatMap(\.payload) == response)
        #expect(packets.allSatisfy { $0.checksums.ip == true && $0.checksums.transport == true })
        #expect(packets.allSatisfy { $0.payload.count <= 1448 })
        #expect(down.filter { !$0.payload.isEmpty }.count == 3 + 5)  // 4000 B and 6000 B at 1448 B

        // Handshake, then sequence numbers follow the stream and acknowledgments what the
        // other side had sent by then.
        let flags = packets.map { $0.decoded.tcp!.flags }
        #expect(Array(flags.prefix(3)) == [.syn, [.syn, .ack], .ack])
        let clientInitial = packets[0].decoded.tcp!.sequence
        let serverInitial = packets[1].decoded.tcp!.sequence
        #expect(packets[1].decoded.tcp!.acknowledgment == clientInitial &+ 1)
        var sentBy = [client: 1, Frames.server: 1]
        for packet in packets.dropFirst(2) {
            let tcp = packet.decoded.tcp!
            let sender = packet.decoded.source
            let receiver = packet.decoded.destination
            let initial = sender == client ? clientInitial : serverInitial
            let peerInitial = sender == client ? serverInitial : clientInitial
            #expect(tcp.sequence == initial &+ UInt32(sentBy[sender]!))
            #expect(tcp.acknowledgment == peerInitial &+ UInt32(sentBy[receiver]!))
            sentBy[sender]! += packet.payload.count + (tcp.flags.contains(.fin) ? 1 : 0)
        }
        #expect(flags.suffix(3) == [[.fin, .ack], [.fin, .ack], .ack])
    }

    @Test func segmentTimesSpreadOverTheChunksTimeOnAirAndCarryTheWallClock() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("exchange.pcap")
        _ = try Self.writeExchange(to: path)
        let packets = try readAll(path).packets
        let times = packets.map { $0.time - Self.origin }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 + 1e-9 })
        let responseTimes = packets.filter { $0.decoded.source == Frames.server && !$0.payload.isEmpty }.map { $0.time - Self.origin }
        let firstChunk: [Double] = (0..<3).map { 1.1 + Double($0) * 0.5 }
        let secondChunk: [Double] = (0..<5).map { 2.1 + Double($0) * 0.25 }
        let expected = firstChunk + secondChunk
        #expect(zip(responseTimes, expected).allSatisfy { abs($0 - $1) < 1e-6 })
        // The lone request segment is acknowledged when the request finished crossing the link.
        let requestAcknowledgment = packets.first {
            $0.decoded.source == Frames.server && $0.payload.isEmpty && $0.time - Self.origin > 1.0005
        }
        #expect(abs((requestAcknowledgment?.time ?? 0) - Self.origin - 1.001) < 1e-6)
        #expect(abs((packets.last?.time ?? 0) - Self.origin - 4.0) < 1e-6)
    }

    @Test func chunksRecordedBeforeEarlierOnesAreWrittenInTimeOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("overlap.pcap")
        let writer = try CaptureWriter(path: path, wallClockOrigin: 0)
        writer.open(1, Self.endpoints, at: 0)
        // A long download recorded first, then an upload that goes on air in its middle.
        writer.data(1, .down, [UInt8](repeating: 1, count: 14_480), onAirStart: 0.1, onAirEnd: 1.0, at: 0.05)
        writer.data(1, .up, [UInt8](repeating: 2, count: 100), onAirStart: 0.5, onAirEnd: 0.5, at: 0.5)
        writer.close(1, reset: true, at: 2)
        try writer.finish()
        let packets = try readAll(path).packets
        #expect(zip(packets, packets.dropFirst()).allSatisfy { $0.time <= $1.time })
        let upload = try #require(packets.first { $0.payload.first == 2 })
        let downloadedBefore = packets.filter { $0.payload.first == 1 && $0.time <= upload.time }.map(\.payload.count).reduce(0, +)
        // It acknowledges only what had arrived by then, not the whole download.
        let serverInitial = packets[1].decoded.tcp!.sequence
        #expect(upload.decoded.tcp!.acknowledgment == serverInitial &+ 1 &+ UInt32(downloadedBefore))
        #expect(downloadedBefore < 14_480)
        let reset = try #require(packets.last?.decoded.tcp)
        #expect(reset.flags == [.rst, .ack])
        #expect(reset.sequence == serverInitial &+ 1 &+ 14_480)
    }

    @Test func aFullQueueDropsAndCountsRecordsButKeepsLaterSequenceNumbersTrue() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("dropped.pcap")
        var limits = CaptureWriter.Limits()
        limits.maximumQueuedBytes = 1000
        let writer = try CaptureWriter(path: path, wallClockOrigin: 0, limits: limits)
        writer.open(1, Self.endpoints, at: 0)
        // Each chunk alone fits the budget; recorded faster than a thread drains, some must drop.
        for index in 0..<2000 {
            writer.data(
                1, .down, [UInt8](repeating: UInt8(index % 251), count: 600), onAirStart: Double(index), onAirEnd: Double(index),
                at: Double(index))
        }
        let dropped = writer.droppedRecords
        try writer.finish()
        #expect(dropped > 0)
        let packets = try readAll(path).packets
        let data = packets.filter { !$0.payload.isEmpty }
        #expect(data.count == 2000 - dropped)
        let serverInitial = packets[1].decoded.tcp!.sequence
        for packet in data {
            let index = Int(packet.time.rounded())
            #expect(packet.decoded.tcp!.sequence == serverInitial &+ 1 &+ UInt32(index * 600))
            #expect(packet.payload.first == UInt8(index % 251))
        }
    }

    @Test func ipv6ServersGetIPv6FramesAndTheSnapshotLengthCutsFrames() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("ipv6.pcap")
        let writer = try CaptureWriter(path: path, wallClockOrigin: 0, snapshotLength: 96)
        let endpoints = CaptureEndpoints(
            client: CaptureEndpoints.deviceIPv4, clientPort: 40_000, server: Frames.serverIPv6, serverPort: 443)
        #expect(endpoints.client == CaptureEndpoints.deviceIPv6)
        writer.open(1, endpoints, at: 0)
        writer.data(1, .up, [UInt8](repeating: 9, count: 3000), onAirStart: 0, onAirEnd: 0.1, at: 0)
        try writer.finish()
        let packets = try readAll(path).packets
        #expect(packets.allSatisfy { !$0.decoded.isIPv4 })
        let data = packets.filter { $0.decoded.payloadLength > 0 }
        #expect(data.map(\.decoded.payloadLength) == [1448, 1448, 104])
        // 14 + 40 + 32 header bytes leave 10 payload bytes of each segment in a 96-byte snapshot.
        #expect(data.allSatisfy { $0.payload.count == 10 })
    }

    @Test func timesAPcapCannotHoldAreDroppedAndCounted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("times.pcap")
        let writer = try CaptureWriter(path: path, wallClockOrigin: 0)
        writer.open(1, Self.endpoints, at: 0)
        writer.data(1, .up, [1, 2, 3], onAirStart: .nan, onAirEnd: 1, at: 1)
        writer.data(1, .up, [4, 5], onAirStart: 2, onAirEnd: .infinity, at: 2)
        writer.data(1, .up, [6], onAirStart: 3, onAirEnd: 3, at: 3)
        writer.close(1, reset: false, at: 1e300)
        try writer.finish()
        #expect(writer.droppedRecords == 3)
        let packets = try readAll(path).packets
        let last = try #require(packets.last { !$0.payload.isEmpty })
        #expect(last.payload == [6] && last.decoded.tcp!.sequence == packets[0].decoded.tcp!.sequence &+ 1 &+ 5)
        #expect(throws: CaptureWriterError.self) { _ = try CaptureWriter(path: path, wallClockOrigin: .nan) }
        #expect(throws: CaptureWriterError.self) { _ = try CaptureWriter(path: path, wallClockOrigin: 0, snapshotLength: 0) }
    }

    @Test func anUnwritablePathFailsAtOnce() {
        #expect(throws: CaptureWriterError.self) {
            _ = try CaptureWriter(path: "/nonexistent-directory/capture.pcap", wallClockOrigin: 0)
        }
    }
}
