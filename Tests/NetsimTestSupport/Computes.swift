import Synchronization
import Testing

/// The trait of a suite whose tests only compute (models, parsers, reports, the model engine,
/// proxies on virtual time): no socket and no wall clock in any verdict. Its tests run on
/// `TestThreads.computing`, at the lowest priority, so that `swift test` can run them in
/// parallel beside the live tests (`.playsLive`) without taking the CPU those time their round
/// trips with.
///
/// The live tests also wait while any computing test runs (`ComputingTests.running.quiet()`):
/// beside computing tests in one process, the live ones missed the ends of connections by
/// seconds, though the computing ones ran at the lowest priority (why was not found). The
/// computing tests never wait, so most of them run first, in about 40 s (as many at once as
/// the test runner starts), and the live ones after them.
///
/// Every suite carries one of the two; one that carries neither runs on Swift's cooperative
/// pool, where a long synchronous test delays the live tests' awaits.
public struct Computes: TestCaseScope {
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        ComputingTests.running.enter()
        defer { ComputingTests.running.leave() }
        try await withTaskExecutorPreference(TestThreads.computing) {
            try await ComputingTests.$inScope.withValue(true) { try await function() }
        }
    }
}

extension Trait where Self == Computes {
    /// The suite only computes: see `Computes`.
    public static var computes: Self { Computes() }
}

/// How many computing tests run, and the live tests waiting until none does.
final class ComputingTests: Sendable {
    static let running = ComputingTests()

    /// Whether the current task runs a computing test.
    @TaskLocal static var inScope = false

    private struct State {
        var count = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func enter() { state.withLock { $0.count += 1 } }

    func leave() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count -= 1
            guard state.count == 0 else { return [] }
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Returns once no computing test runs.
    func quiet() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                guard state.count > 0 else { return true }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
