#if os(Linux)
import Glibc
import Synchronization

/// The signals the supervisor received (bit N for signal N), set by its signal handler.
private let supervisorSignals = Atomic<Int>(0)

/// The process between netsim and a wrapped command on Linux, so that nothing the command
/// starts outlives the run, however the run ends. netsim starts itself with `marker` as its
/// first argument; that process (this code, before any argument parsing) starts the command in
/// a process group of its own and stays its parent until the command and everything it started
/// are gone:
///
/// - It is the child subreaper of the command's tree (`PR_SET_CHILD_SUBREAPER`): a background
///   child the command leaves behind (`sh -c 'sleep 600 & exit 0'`) becomes its child, so it
///   knows when the last one has ended.
/// - When the command exits, or netsim asks it to stop (SIGTERM), it sends SIGTERM to the
///   command's process group; whatever is left `grace` later gets SIGKILL. Then it exits with
///   the command's status (128 + the signal for a command killed by one, as a shell says it).
/// - When netsim dies, even by SIGKILL, it sends SIGKILL to the command's group. The parent-death
///   signal (`PR_SET_PDEATHSIG`) says so at once; since the kernel sends it when the *thread*
///   that started this process ends, and netsim's task threads come and go, the signal only
///   wakes it to check its parent, which it also checks four times a second.
enum CommandSupervisor {
    /// The first argument that makes netsim a supervisor: `netsim MARKER PARENT GRACE_MS PATH ARGV...`.
    static let marker = "--netsim-supervise-command"

    /// The arguments that start `path` (its `argv` `arguments`) under a supervisor that is a
    /// child of this process, for `/proc/self/exe`.
    static func arguments(path: String, arguments: [String], gracePeriod: Duration) -> [String] {
        let milliseconds = gracePeriod.components.seconds * 1000 + gracePeriod.components.attoseconds / 1_000_000_000_000_000
        return [marker, String(getpid()), String(milliseconds), path] + arguments
    }

    /// Supervises the command and exits, if this process was started as a supervisor; else returns.
    static func runIfAsked() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 6, arguments[1] == marker, let parent = pid_t(arguments[2]), let grace = Int(arguments[3]), grace >= 0
        else { return }
        exit(supervise(parent: parent, graceMilliseconds: grace, path: arguments[4], arguments: Array(arguments[5...])))
    }

    /// The signals it is told things by: a stop (SIGTERM; SIGINT and SIGHUP, which stop netsim
    /// too), the command's end (SIGCHLD) and netsim's death (SIGUSR1, the parent-death signal).
    private static let watched: [Int32] = [SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGUSR1]

    private static func supervise(parent: pid_t, graceMilliseconds: Int, path: String, arguments: [String]) -> Int32 {
        // A handler, not a blocked signal and sigwait: the Swift runtime's threads run with
        // these signals unblocked, and any of them may be the one a signal is delivered to.
        for signal in watched {
            Glibc.signal(signal) { number in _ = supervisorSignals.bitwiseOr(1 << Int(number), ordering: .relaxed) }
        }
        prctl(childSubreaper, 1)
        prctl(parentDeathSignal, UInt(SIGUSR1))
        guard getppid() == parent else { return 128 + SIGKILL }
        let command: pid_t
        switch spawn(path, arguments) {
        case .success(let pid): command = pid
        case .failure(let error):
            let message = "netsim: cannot run \(arguments[0]): \(String(cString: strerror(error.code)))\n"
            _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            return error.code == ENOENT ? 127 : 126
        }
        let stops = 1 << Int(SIGTERM) | 1 << Int(SIGINT) | 1 << Int(SIGHUP)
        var status: Int32?
        var killAt: timespec?
        while true {
            // Woken early by a signal delivered to this thread; else a tenth of a second.
            var pause = timespec(tv_sec: 0, tv_nsec: 100_000_000)
            nanosleep(&pause, nil)
            let received = supervisorSignals.exchange(0, ordering: .relaxed)
            if getppid() != parent {
                // netsim is gone: nothing is left to report to.
                kill(-command, SIGKILL)
                return 128 + SIGKILL
            }
            var ended: Int32 = 0
            var child = waitpid(-1, &ended, WNOHANG)
            while child > 0 {
                if child == command { status = exitStatus(ended) }
                child = waitpid(-1, &ended, WNOHANG)
            }
            if let status, child < 0, errno == ECHILD { return status }
            if killAt == nil, status != nil || received & stops != 0 {
                kill(-command, SIGTERM)
                killAt = now(plusMilliseconds: graceMilliseconds)
            }
            if let deadline = killAt, isPast(deadline) {
                kill(-command, SIGKILL)
                if let status { return status }
            }
        }
    }

    /// A shell's status: the exit code, or 128 + the signal that killed it.
    private static func exitStatus(_ waitStatus: Int32) -> Int32 {
        waitStatus & 0x7F == 0 ? (waitStatus >> 8) & 0xFF : 128 + (waitStatus & 0x7F)
    }

    /// Starts the command in a process group of its own, with every signal at its default and
    /// none blocked, and this process's standard input, output, error and environment.
    private static func spawn(_ path: String, _ arguments: [String]) -> Result<pid_t, SpawnError> {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in 1..<32 where signal != SIGKILL && signal != SIGSTOP { sigaddset(&defaults, Int32(signal)) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, nil, &attributes, argv, environ)
        return result == 0 ? .success(pid) : .failure(SpawnError(code: result))
    }

    struct SpawnError: Error { let code: Int32 }

    /// `PR_SET_CHILD_SUBREAPER` and `PR_SET_PDEATHSIG` of <linux/prctl.h>.
    private static let childSubreaper: Int32 = 36
    private static let parentDeathSignal: Int32 = 1

    /// prctl(2), which Swift cannot call directly (C variadic functions are not imported): found
    /// by name and called with its integer arguments, as the Linux calling conventions allow.
    private static func prctl(_ option: Int32, _ argument: UInt) {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let symbol = dlsym(nil, "prctl") else { return }
        _ = unsafeBitCast(symbol, to: Prctl.self)(option, argument, 0, 0, 0)
    }

    private static func now(plusMilliseconds milliseconds: Int) -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        let nanoseconds = Int(time.tv_nsec) + (milliseconds % 1000) * 1_000_000
        time.tv_sec += milliseconds / 1000 + nanoseconds / 1_000_000_000
        time.tv_nsec = nanoseconds % 1_000_000_000
        return time
    }

    private static func isPast(_ deadline: timespec) -> Bool {
        let current = now(plusMilliseconds: 0)
        return (current.tv_sec, current.tv_nsec) >= (deadline.tv_sec, deadline.tv_nsec)
    }
}
#endif
