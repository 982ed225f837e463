import Synchronization
import Testing

/// The trait of a suite whose tests play real seconds on loopback (proxies, benches, peers,
/// child processes), so that `swift test` can run the whole suite in parallel, as Swift Testing
/// does by default.
///
/// Two things break such a test beside hundreds of others in one process, and this trait
/// answers both:
/// - **Threads.** Each test runs with `TestThreads.live` as its task executor preference, so
///   its task and every child task it starts resume on threads of their own, never behind a
///   computing test (`.computes`).
/// - **Numbers.** Live tests mostly wait, but they time round trips to a few milliseconds and
///   each runs a proxy, servers and clients. At most `LivePermits.count` run at once; the
///   others wait their turn without holding a thread.
///
/// `.serialized` still orders a suite's own tests; this bounds all live tests together.
///
/// `timeLimit` counts from the test's turn, not from its start: Swift Testing's `.timeLimit`
/// would count the wait for a turn too, which depends on what else runs.
public struct PlaysLive: SuiteTrait, TestTrait, TestScoping {
    public let timeLimit: Duration

    public var isRecursive: Bool { true }

    /// A scope for each test case: a parameterized test's cases take a turn each.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A test that already holds a turn (a `.playsLive` test inside a `.playsLive` suite)
        // does not wait for a second one, which four such tests could wait on forever.
        guard !LivePermits.holdsTurn else { return try await function() }
        await LivePermits.shared.acquire()
        defer { LivePermits.shared.release() }
        // The group awaits both children before it returns, so `function` never outlives this call.
        try await withoutActuallyEscaping(function) { function in
            try await withTaskExecutorPreference(TestThreads.live) {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        try await LivePermits.$holdsTurn.withValue(true) { try await function() }
                        return true
                    }
                    group.addTask { [timeLimit] in
                        try? await Task.sleep(for: timeLimit)
                        return false
                    }
                    if try await group.next() == false {
                        Issue.record("Time limit was exceeded: \(timeLimit) after the test's turn came")
                    }
                    group.cancelAll()
                    try await group.waitForAll()
                }
            }
        }
    }
}

extension Trait where Self == PlaysLive {
    /// The suite plays real seconds on loopback, each test within `timeLimit` of its turn: see
    /// `PlaysLive`. Ten minutes unless given: no live test takes half of that on a busy 2-core
    /// machine, and a hung one still fails long before CI's own limit.
    public static func playsLive(timeLimit: Duration = .seconds(600)) -> Self { PlaysLive(timeLimit: timeLimit) }

    /// `playsLive(timeLimit:)` with ten minutes.
    public static var playsLive: Self { playsLive() }
}

/// How many live tests run at once, process-wide, and the ones waiting for a turn, first come
/// first served.
final class LivePermits: Sendable {
    /// Four: scripts/test.sh ran four serial lanes of live tests beside each other on two cores
    /// (and the computing tests beside them under `nice`), and every timed check held.
    static let count = 4
    static let shared = LivePermits(count: count)

    /// Whether this task runs a live test that has its turn.
    @TaskLocal static var holdsTurn = false

    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(count: Int) { state = Mutex(State(free: count)) }

    func acquire() async {
        await withCheckedContinuation { continuation in
            let granted = state.withLock { state in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    /// Hands the permit to the test that has waited longest, or frees it.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
