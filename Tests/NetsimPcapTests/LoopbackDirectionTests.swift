import Foundation
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimPcap

/// A loopback capture beside a local proxy (127.0.0.1 to 127.0.0.1) analyzed 211 KB
/// down as 211 KB up: the lower port, the listener's, was taken as the device. The device is the
/// ephemeral end, or the port it is given.
@Suite(.computes) struct LoopbackDirectionTests {
    static let loopback = IPAddress("127.0.0.1")!

    /// A client on `clientPort` asks 100 bytes of a server on `serverPort` and gets 20 segments
    /// of 1000 bytes back.
    static func capture(clientPort: UInt16, serverPort: UInt16, at directory: TemporaryDirectory) throws -> String {
        var file = PcapBytes(linkType: 1)
        file.add(
            Frames.tcp(
                from: loopback, to: loopback, sourcePort: clientPort, destinationPort: serverPort,
                payload: [UInt8](repeating: 1, count: 100)),
            seconds: 1)
        for index in 0..<20 {
            file.add(
                Frames.tcp(
                    from: loopback, to: loopback, sourcePort: serverPort, destinationPort: clientPort, sequence: UInt32(index * 1000),
                    payload: [UInt8](repeating: 2, count: 1000), fromDevice: false),
                seconds: 1, fraction: UInt32(100_000_000 + index * 1_000_000))
        }
        let path = directory.file("lo-\(clientPort)-\(serverPort).pcap")
        try file.bytes.write(to: path)
        return path
    }

    static func analyze(_ path: String, ports: Set<UInt16> = []) throws -> CaptureAnalysis {
        var options = CaptureAnalysisOptions(radio: RadioStages(.defaults(for: .lte))!)
        options.devicePorts = ports
        return try CaptureAnalysis.analyze(file: path, options: options)
    }

    @Test func theEphemeralEndIsTheDevice() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let analysis = try Self.analyze(try Self.capture(clientPort: 54_321, serverPort: 8080, at: directory))
        #expect(analysis.capture.deviceAddresses == ["127.0.0.1"])
        #expect(analysis.radio.bytes.down == 20_000 && analysis.radio.bytes.up == 100)
        #expect(analysis.flows.first?.device == "127.0.0.1:54321" && analysis.flows.first?.remote == "127.0.0.1:8080")
        #expect(analysis.capture.deviceEndGuesses == 0)
    }

    @Test func aGivenPortNamesTheDeviceAndAGuessIsCounted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Both ends ephemeral: the higher port is taken, and the analysis says it guessed.
        let both = try Self.capture(clientPort: 40_000, serverPort: 50_000, at: directory)
        let guessed = try Self.analyze(both)
        #expect(guessed.capture.deviceEndGuesses == 1 && guessed.radio.bytes.up == 20_000)
        #expect(guessed.textReport().contains("the higher port was taken as the device's"))
        let named = try Self.analyze(both, ports: [40_000])
        #expect(named.capture.deviceEndGuesses == 0 && named.radio.bytes.down == 20_000 && named.radio.bytes.up == 100)
    }

    @Test func sameAddressFlowsBySide() {
        #expect(DeviceSide.ofSameAddressFlow(aPort: 8080, bPort: 54_321, devicePorts: []) == (false, false))
        #expect(DeviceSide.ofSameAddressFlow(aPort: 60_000, bPort: 443, devicePorts: []) == (true, false))
        #expect(DeviceSide.ofSameAddressFlow(aPort: 80, bPort: 443, devicePorts: []) == (false, true))
        #expect(DeviceSide.ofSameAddressFlow(aPort: 80, bPort: 443, devicePorts: [80]) == (true, false))
        #expect(DeviceSide.ofSameAddressFlow(aPort: 80, bPort: 443, devicePorts: [22]) == (nil, false))
    }
}
