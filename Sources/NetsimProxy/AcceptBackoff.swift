import Logging
import NIOCore
import NIOPosix
import Synchronization

/// Accepting when the process is out of file descriptors fails at once, every time the
/// listening socket polls readable: retried straight away, that spins a core and starves the
/// event loop (the admin API with it). Accepts pause instead, and the first time says why.
package enum AcceptBackoff {
    /// How long accepts pause after running out of descriptors (or kernel memory).
    static let pause = TimeAmount.milliseconds(250)
    private static let warned = Atomic(false)

    package static func handler(logger: Logger) -> AcceptBackoffHandler {
        AcceptBackoffHandler(shouldForwardIOErrorCaught: false) { error in
            guard [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode) else { return nil }
            if !warned.exchange(true, ordering: .relaxed) {
                let message =
                    "cannot accept connections: \(error) (open file limit \(openFileLimit)); retrying every"
                    + " \(pause.nanoseconds / 1_000_000) ms until some close. Raise the limit with ulimit -n."
                logger.warning("\(message)")
            }
            return pause
        }
    }

    private static var openFileLimit: String { OpenFiles.limit.map { "\($0)" } ?? "unlimited" }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
