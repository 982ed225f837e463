import Benchmark
import Foundation
import NetsimCore
import NetsimPcap

/// `netsim analyze`'s throughput on a large capture: read (libpcap), decode, flow lookup, name
/// sniffing and the radio model, per packet. The target is over a million packets per second;
/// scripts/bench-analyze.sh measures the command itself side by side with tcpdump.
///
/// Run: `NETSIM_BENCHMARKS=1 swift package benchmark --target AnalyzeBenchmarks`.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(20),
        maxIterations: 10)

    /// The capture's packets: 256 connections taking turns, each a burst of 1448-byte segments
    /// and acknowledgments every few seconds, with silences long enough for the radio to sleep.
    let packetCount = 1 << 20
    let path = NSTemporaryDirectory() + "netsim-analyze-benchmark.pcap"

    Benchmark(
        "analyze a 1M-packet capture (LTE)",
        configuration: .init(
            setup: {
                let writer = try CaptureWriter(path: path, wallClockOrigin: 1_700_000_000, snapshotLength: 96)
                var random = SeededRandom(seed: 1)
                var time = 0.0
                var packets = 0
                var connection: ConnectionID = 0
                while packets < packetCount {
                    connection += 1
                    let endpoints = CaptureEndpoints(
                        clientPort: UInt16(truncatingIfNeeded: 20_000 + connection % 256),
                        server: IPAddress(ipv4: 0x5DB8_0000 | UInt32(connection % 256)), serverPort: 443)
                    time += random.unitInterval() < 0.1 ? 12 + random.unitInterval() * 20 : random.unitInterval()
                    writer.open(connection, endpoints, at: time)
                    let bytes = 1448 * (8 + Int(random.unitInterval() * 200))
                    writer.data(connection, .up, [UInt8](repeating: 0x16, count: 300), onAirStart: time, onAirEnd: time, at: time)
                    writer.data(connection, .down, [UInt8](repeating: 0x17, count: bytes), onAirStart: time + 0.05, onAirEnd: time + 0.05 + Double(bytes) * 8 / 20e6, at: time)
                    time += 0.05 + Double(bytes) * 8 / 20e6
                    writer.close(connection, reset: false, at: time)
                    // Handshake, request and its ACK, segments and an ACK per two, FIN exchange.
                    packets += 3 + 2 + bytes / 1448 * 3 / 2 + 3
                }
                try writer.finish()
            },
            teardown: { try? FileManager.default.removeItem(atPath: path) })
    ) { benchmark in
        let options = CaptureAnalysisOptions(radio: RadioStages(.defaults(for: .lte))!)
        for _ in benchmark.scaledIterations {
            blackHole(try CaptureAnalysis.analyze(file: path, options: options))
        }
    }
}
