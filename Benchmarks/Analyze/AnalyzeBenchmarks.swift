import Benchmark
import Foundation
import NetsimCore
import NetsimPcap

/// `netsim analyze`'s throughput on a large capture: read (libpcap), decode, flow lookup, name
/// sniffing and the radio model, per packet. The target is over a million packets per second;
/// scripts/bench-analyze.sh measures the command itself side by side with tcpdump, on a capture
/// from the same generator as this one.
///
/// Run: `NETSIM_BENCHMARKS=1 swift package benchmark --target AnalyzeBenchmarks`.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(20),
        maxIterations: 10)

    let packets = 1 << 20
    let path = NSTemporaryDirectory() + "netsim-analyze-benchmark.pcap"
    let generator = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/make-bench-capture.py").path

    Benchmark(
        "analyze a 1,048,576-packet capture (LTE); packets/s = 1,048,576 x throughput",
        configuration: .init(
            setup: {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = ["python3", generator, "\(packets)", path]
                try process.run()
                process.waitUntilExit()
            },
            teardown: { try? FileManager.default.removeItem(atPath: path) })
    ) { benchmark in
        let options = CaptureAnalysisOptions(radio: RadioStages(.defaults(for: .lte))!)
        for _ in benchmark.scaledIterations {
            let analysis = try CaptureAnalysis.analyze(file: path, options: options)
            precondition(analysis.capture.packets == packets, "the generated capture has \(analysis.capture.packets) packets")
            blackHole(analysis)
        }
    }
}
