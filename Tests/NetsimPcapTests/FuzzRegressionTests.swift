import Foundation
import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimPcap

/// Inputs that once broke the reader (Fixtures/) and the fuzzer's seeds (scripts/fuzz/seeds):
/// each must analyze cleanly or fail with a `CaptureError`, never crash or hang.
@Suite(.computes) struct FuzzRegressionTests {
    static let seeds = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/fuzz/seeds")

    static func files(in directory: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0 != "README.md" }.sorted().map { directory.appendingPathComponent($0).path }
    }

    @Test(arguments: files(in: Fixtures.directory) + files(in: seeds))
    func analyzesOrReportsAnError(path: String) {
        let options = CaptureAnalysisOptions(radio: RadioStages(.defaults(for: .lte))!)
        do {
            _ = try CaptureAnalysis.analyze(file: path, options: options)
        } catch let error as CaptureError {
            #expect(error.description.hasPrefix(path + ": "))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func theSeedsAreAllReadableCaptures() throws {
        let seeds = Self.files(in: Self.seeds).filter { !$0.hasSuffix("packet-ipv4.seed") }
        #expect(seeds.count >= 7)
        for seed in seeds {
            let analysis = try CaptureAnalysis.analyze(
                file: seed, options: CaptureAnalysisOptions(radio: RadioStages(.defaults(for: .lte))!))
            #expect(analysis.capture.devicePackets > 0 && analysis.capture.undecodablePackets == 0, "\(seed)")
        }
    }
}
