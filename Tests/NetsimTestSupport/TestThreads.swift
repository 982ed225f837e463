import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A task executor on threads of its own, outside Swift's cooperative pool, so that the tests
/// that compute and the tests that play live time do not share threads (`.computes`,
/// `.playsLive`).
///
/// Swift's cooperative pool has one thread a core. Run together on it, a synchronous model test
/// holds a thread for seconds while a live test's awaits (a sleep that ends, an answer that
/// arrives) wait behind it, which a timed check reads as a slow network. On threads of their
/// own, with the computing ones at a lower priority, the live tests get the CPU first, as they
/// did when scripts/test.sh ran the computing tests in a process of their own under `nice`.
public final class TestThreads: TaskExecutor, @unchecked Sendable {
    /// The live tests' threads: more than the live tests that run at once, so that a test
    /// blocking its thread on a child process (FrontEndPeers.run waits with waitpid) leaves the
    /// others theirs.
    public static let live = TestThreads(name: "live-test", count: 8, nice: 0)
    /// The computing tests' threads: one a core, at the lowest priority (nice 19 on Linux), so
    /// they take only the CPU the live tests leave.
    public static let computing = TestThreads(
        name: "computing-test", count: ProcessInfo.processInfo.activeProcessorCount, nice: 19)

    /// Guards `jobs`, and is signalled when one is added. (`@unchecked Sendable`: `jobs` is only
    /// touched with `condition` locked.)
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    init(name: String, count: Int, nice: Int32) {
        for index in 0..<count {
            let thread = Thread { [self] in
                #if canImport(Glibc)
                // On Linux a nice value is a thread's own, and `who` 0 is the calling thread;
                // raising it needs no privilege.
                if nice > 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) }
                #endif
                work()
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs jobs in the order they came, for as long as the test process lives.
    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
