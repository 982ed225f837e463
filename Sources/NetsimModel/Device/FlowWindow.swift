import DequeModule
import NetsimCore

/// The transport's flow control between the server and an app that pulls (`AppInbox` in pull
/// mode), on the server's side: the server may have at most `capacity` bytes of events on the
/// connection that the app has not read; the rest wait in the server's queue, in order, until
/// reads open the window again. This is what holds a burst back at the server when the app is
/// slower than the network.
///
/// The model hands a read's bytes back to the server when the app reads, not a one-way delay
/// later (the WINDOW_UPDATE or TCP ACK that carries them is not modelled): with a backlog the
/// app's pace, not that delay, sets when events arrive.
struct FlowWindow: Sendable {
    /// HTTP/2's default initial stream window (RFC 9113 section 6.9.2): 65,535 bytes of DATA
    /// payload. The live bench's pulling gRPC client keeps it (grpc-swift's default, 8 MiB,
    /// would let the connection read 8 MiB ahead of the app; docs/strategies.md section 5).
    static let http2InitialWindowBytes = 65_535
    /// A WebSocket has only TCP's flow control: the unread bytes the socket buffers between the
    /// server and the app take before the server's writes wait. Linux's default `tcp_rmem`
    /// maximum, 6 MiB, which the receiver autotunes up to (the live machine's is 32 MiB, and
    /// phones autotune too); the sender's buffer would add to it. Either way it takes the whole
    /// 600 KB burst of `workloads/server-burst.yaml`, as live, where the server's queue stayed
    /// near empty.
    static let socketBufferBytes = 6 * 1024 * 1024

    struct Held: Sendable, Equatable {
        var sequence: UInt64
        var bytes: Int
    }

    let capacity: Int
    /// The connection the window is on: a new one (a new session) starts with an open window.
    private(set) var connection: ConnectionID?
    /// Bytes sent on `connection` and not yet read by the app.
    private(set) var unread = 0
    /// Events the server created for the connection and holds back, oldest first.
    private var held = Deque<Held>()

    init(capacity: Int) {
        self.capacity = capacity
    }

    var heldCount: Int { held.count }

    /// The server writes event `sequence` (`bytes` under flow control) on `id`: true when it
    /// goes now, false when the window holds it back (it goes from `read`, in order).
    mutating func offer(_ sequence: UInt64, bytes: Int, on id: ConnectionID) -> Bool {
        if id != connection {
            connection = id
            unread = 0
            held.removeAll(keepingCapacity: true)
        }
        guard held.isEmpty, unread + bytes <= capacity else {
            held.append(Held(sequence: sequence, bytes: bytes))
            return false
        }
        unread += bytes
        return true
    }

    /// The app read `bytes` off `id`: the events the window lets go now, oldest first.
    mutating func read(_ bytes: Int, on id: ConnectionID) -> [UInt64] {
        guard id == connection else { return [] }
        unread = max(0, unread - bytes)
        var released: [UInt64] = []
        while let first = held.first, unread + first.bytes <= capacity {
            unread += first.bytes
            released.append(first.sequence)
            held.removeFirst()
        }
        return released
    }

    /// The connection is gone: what it held back is no longer the server's to send on it (a new
    /// session pushes from where the app resumes).
    mutating func connectionEnded(_ id: ConnectionID) {
        guard id == connection else { return }
        connection = nil
        unread = 0
        held.removeAll(keepingCapacity: true)
    }
}
