import Foundation
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimPcap

private let tsharkPath = ["/usr/bin/tshark", "/usr/local/bin/tshark", "/opt/homebrew/bin/tshark"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

/// Wireshark must dissect the synthesized captures as the real protocols. These run `tshark`
/// and skip, saying so, where it is not installed (`apt-get install tshark`).
@Suite(.enabled(if: tsharkPath != nil, "tshark is not installed: apt-get install tshark"), .computes)
struct WiresharkDissectionTests {

    /// tshark's fields for the packets `filter` selects, one line per packet.
    static func tsharkFields(_ path: String, filter: String, fields: [String], extra: [String] = []) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(tsharkPath))
        process.arguments = ["-r", path] + extra + ["-Y", filter, "-T", "fields"] + fields.flatMap { ["-e", $0] }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Writes one connection: each exchange is (direction, bytes), on air 10 ms apart.
    static func writeConversation(_ exchanges: [(Direction, [UInt8])], serverPort: UInt16, to path: String) throws {
        let writer = try CaptureWriter(path: path, wallClockOrigin: 1_700_000_000)
        writer.open(1, CaptureEndpoints(clientPort: 52_000, server: Frames.server, serverPort: serverPort), at: 0)
        for (index, exchange) in exchanges.enumerated() {
            let time = 0.01 * Double(index + 1)
            writer.data(1, exchange.0, exchange.1, onAirStart: time, onAirEnd: time + 0.005, at: time)
        }
        writer.close(1, reset: false, at: 1)
        try writer.finish()
    }

    @Test func http1ExchangeIsDissectedAsHTTP() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("http1.pcap")
        let body = String(repeating: "x", count: 5000)
        try Self.writeConversation(
            [
                (.up, Array("GET /index.html HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n".utf8)),
                (.down, Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(body.count)\r\n\r\n\(body)".utf8)),
            ], serverPort: 80, to: path)
        let requests = try Self.tsharkFields(path, filter: "http.request", fields: ["http.request.method", "http.host"])
        #expect(requests == ["GET\texample.com"])
        let responses = try Self.tsharkFields(path, filter: "http.response", fields: ["http.response.code", "http.content_length"])
        #expect(responses == ["200\t5000"])
        // Reassembled across four segments without complaint.
        let problems = try Self.tsharkFields(path, filter: "tcp.analysis.flags && !tcp.analysis.window_update", fields: ["frame.number"])
        #expect(problems.isEmpty)
    }

    @Test func webSocketUpgradeAndFramesAreDissected() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("websocket.pcap")
        let upgrade =
            "GET /chat HTTP/1.1\r\nHost: example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        let switching =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"
        // A masked client text frame "ping", then the server's unmasked text frame "pong".
        let mask: [UInt8] = [1, 2, 3, 4]
        let clientFrame = [0x81, 0x84] + mask + Array("ping".utf8).enumerated().map { $1 ^ mask[$0 % 4] }
        let serverFrame: [UInt8] = [0x81, 0x04] + Array("pong".utf8)
        try Self.writeConversation(
            [(.up, Array(upgrade.utf8)), (.down, Array(switching.utf8)), (.up, clientFrame), (.down, serverFrame)],
            serverPort: 8080, to: path)
        let frames = try Self.tsharkFields(path, filter: "websocket", fields: ["websocket.opcode", "websocket.mask", "text"])
        #expect(frames.count == 2)
        #expect(frames.first?.hasPrefix("1\t1\t") == true && frames.first?.hasSuffix("ping") == true)
        #expect(frames.last?.hasPrefix("1\t0\t") == true && frames.last?.hasSuffix("pong") == true)
    }

    @Test func cleartextHTTP2CarryingGRPCIsDissected() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("grpc.pcap")
        try Self.writeConversation(GRPCExchange.frames, serverPort: 50_051, to: path)
        // Prior knowledge: the port has to be named, as for any h2c capture in Wireshark.
        let decodeAs = ["-d", "tcp.port==50051,http2"]
        let methods = try Self.tsharkFields(path, filter: "grpc", fields: ["grpc.message_length"], extra: decodeAs)
        #expect(methods == ["3", "5"])
        let headers = try Self.tsharkFields(path, filter: "http2.type == 1", fields: ["http2.header.value"], extra: decodeAs)
        #expect(headers.first?.contains("/helloworld.Greeter/SayHello") == true)
        #expect(headers.first?.contains("api.example.com") == true)
    }
}

/// A gRPC unary call over cleartext HTTP/2 (prior knowledge), its HPACK fields written as
/// literals without indexing, as the first request of a connection may be.
enum GRPCExchange {
    static let authority = "api.example.com"

    static func frame(type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        var bytes: [UInt8] = [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags]
        withUnsafeBytes(of: stream.bigEndian) { bytes += $0 }
        return bytes + payload
    }

    /// A literal field without indexing; `index` names a static-table name (below 15).
    static func literal(index: UInt8, _ value: String) -> [UInt8] {
        [index, UInt8(value.utf8.count)] + Array(value.utf8)
    }

    static func literal(name: String, _ value: String) -> [UInt8] {
        [0, UInt8(name.utf8.count)] + Array(name.utf8) + [UInt8(value.utf8.count)] + Array(value.utf8)
    }

    static let requestHeaders: [UInt8] =
        literal(index: 2, "POST") + literal(index: 6, "http") + literal(index: 4, "/helloworld.Greeter/SayHello")
        + literal(index: 1, authority) + literal(name: "content-type", "application/grpc") + literal(name: "te", "trailers")

    static var frames: [(Direction, [UInt8])] {
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        let settings = frame(type: 4, flags: 0, stream: 0, [])
        let settingsAck = frame(type: 4, flags: 1, stream: 0, [])
        let request = frame(type: 1, flags: 4, stream: 1, requestHeaders)
        let requestMessage = frame(type: 0, flags: 1, stream: 1, [0, 0, 0, 0, 3, 0x0A, 0x01, 0x41])
        let responseHeaders = frame(
            type: 1, flags: 4, stream: 1, [0x88] + literal(name: "content-type", "application/grpc"))
        let responseMessage = frame(type: 0, flags: 0, stream: 1, [0, 0, 0, 0, 5, 0x0A, 0x03, 0x48, 0x69, 0x21])
        let trailers = frame(type: 1, flags: 5, stream: 1, literal(name: "grpc-status", "0"))
        return [
            (.up, preface + settings + request + requestMessage),
            (.down, settings + settingsAck),
            (.up, settingsAck),
            (.down, responseHeaders + responseMessage + trailers),
        ]
    }
}
