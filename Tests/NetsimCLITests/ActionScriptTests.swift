import Foundation
import NetsimTestSupport
import Testing

/// scripts/action.sh, the GitHub Action's one step, run as a workflow runs it with the built
/// `netsim`.
@Suite("the CI Action's script", .playsLive)
struct ActionScriptTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/action.sh").path

    /// The test command's output belongs in the CI log: the script sent it to netsim-run.txt
    /// alone, so a failing job's log showed no test output. Now it is on the script's standard
    /// output, and netsim-run.txt keeps a copy.
    @Test func theTestCommandsOutputGoesToTheLog() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-action-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (status, text) = try ChildProcess.run(
            "/bin/bash", [Self.script],
            environment: [
                "GITHUB_STEP_SUMMARY": nil, "INPUT_NETSIM": OutputFileTests.netsim.path, "INPUT_PROFILE": "lte-good",
                "INPUT_COMMAND": "echo 'test 1 of 1 passed: the wrapped tests said this'", "INPUT_OUT": out,
            ])
        #expect(status == 0, "\(text)")
        #expect(text.contains("test 1 of 1 passed: the wrapped tests said this"), "\(text)")
        let copy = try String(contentsOfFile: out + "/netsim-run.txt", encoding: .utf8)
        #expect(copy.contains("test 1 of 1 passed: the wrapped tests said this"))
    }
}
