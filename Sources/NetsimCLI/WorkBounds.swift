import ArgumentParser
import NetsimModel

/// Says what a model-engine run is about to do and, before any of it, refuses one beyond a
/// bound (`WorkEstimate`; exit 64, a usage error) unless `force`: a slip of a unit or a grid
/// should cost a message, not hours of CPU and the machine's memory.
func checkWorkBounds(_ estimate: WorkEstimate, force: Bool, command: String) throws {
    printError("\(command): \(estimate.summary)")
    let excesses = estimate.excesses
    guard !excesses.isEmpty else { return }
    let reasons = excesses.joined(separator: "; ")
    if force {
        printError("\(command): beyond the bounds (--force): \(reasons)")
        return
    }
    printError("\(command): refused before any work: \(reasons) (docs/model-engine.md, Bounds); --force runs it anyway")
    throw ExitCode.validationFailure
}
