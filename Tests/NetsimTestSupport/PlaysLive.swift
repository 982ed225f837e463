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
/// - **Company.** Most live tests hold the emulator to a few milliseconds or a few percent of
///   real time; two of those at once, and latencies rise and time-scaled outages are missed.
///   So live tests run in lanes, one test at a time in each lane and the lanes beside each
///   other, as scripts/test.sh's processes did: the `.main` lane for the timed checks (the
///   default), and side lanes for the long live runs and the command-line runs whose checks
///   are counts, bytes, energy, orders and exit statuses, which mostly wait. A test waits for
///   its lane without holding a thread.
///
/// `.serialized` still orders a suite's own tests; this orders all live tests together.
///
/// `timeLimit` counts from the test's turn, not from its start: Swift Testing's `.timeLimit`
/// would count the wait for a turn too, which depends on what else runs.
public struct PlaysLive: TestCaseScope {
    /// A lane of live tests: one at a time in it.
    public struct Lane: Sendable, Hashable {
        let name: String

        /// Round trips, delays and deadlines to the millisecond: the timed checks.
        public static let main = Lane(name: "main")
        /// The engines' agreement: minutes of live benches, three at once, alone in their lane
        /// because they set the lanes' floor.
        public static let agreement = Lane(name: "agreement")
        /// The live benches whose checks are counts, orders and loose bounds: the end-to-end
        /// bench, the live shard merge and the reports' renderings.
        public static let benches = Lane(name: "benches")
        /// The client strategies played live (reconnection, deadlines, watching the network,
        /// the strategies' end-to-end runs): counts and orders, as in `.benches`.
        public static let strategies = Lane(name: "strategies")
        /// The UDP, QUIC and gRPC C-core peers (aioquic, grpcio).
        public static let peers = Lane(name: "peers")
        /// The QUIC model against a live aioquic client: a minute of time-scaled runs, apart
        /// from the other peers so that neither waits for the other.
        public static let quic = Lane(name: "quic")
        /// The built `netsim` run as a user runs it, around real programs: `run -- COMMAND`,
        /// the keepalive replay, shards, the files it writes and the dashboard in a browser.
        /// Their checks are in seconds, exit statuses and files, not milliseconds.
        public static let commands = Lane(name: "commands")
    }

    public let lane: Lane
    public let timeLimit: Duration

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A test that already has its turn (a `.playsLive` test inside a `.playsLive` suite)
        // does not wait for a second one, which it could wait on forever.
        guard !LiveTurns.hasTurn else { return try await function() }
        // Inside a `.computes` scope it would wait for the computing tests, itself among them.
        guard !ComputingTests.inScope else {
            Issue.record("\(test.name): a .playsLive test inside a .computes suite would wait for itself: give the suite .playsLive")
            return
        }
        let turns = LiveTurns.of(lane)
        await turns.take()
        defer { turns.give() }
        await ComputingTests.running.quiet()
        // The group awaits both children before it returns, so `function` never outlives this call.
        try await withoutActuallyEscaping(function) { function in
            try await withTaskExecutorPreference(TestThreads.live) {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        try await LiveTurns.$hasTurn.withValue(true) { try await function() }
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
    /// The suite plays real seconds on loopback, in `lane`, each test within `timeLimit` of its
    /// turn: see `PlaysLive`. Ten minutes unless given: no live test takes half of that on a
    /// busy 2-core machine, and a hung one still fails long before CI's own limit.
    public static func playsLive(_ lane: PlaysLive.Lane = .main, timeLimit: Duration = .seconds(600)) -> Self {
        PlaysLive(lane: lane, timeLimit: timeLimit)
    }

    /// `playsLive(.main)`, with ten minutes.
    public static var playsLive: Self { playsLive() }
}

/// The turn of one lane of live tests, process-wide: whether a test has it, and the ones
/// waiting, first come first served.
final class LiveTurns: Sendable {
    private static let lanes = Mutex<[PlaysLive.Lane: LiveTurns]>([:])

    static func of(_ lane: PlaysLive.Lane) -> LiveTurns {
        lanes.withLock { lanes in
            if let turns = lanes[lane] { return turns }
            let turns = LiveTurns()
            lanes[lane] = turns
            return turns
        }
    }

    /// Whether this task runs a live test that has its turn.
    @TaskLocal static var hasTurn = false

    private struct State {
        var taken = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func take() async {
        await withCheckedContinuation { continuation in
            let granted = state.withLock { state in
                guard state.taken else {
                    state.taken = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    /// Hands the turn to the test that has waited longest, or frees it.
    func give() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.taken = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
