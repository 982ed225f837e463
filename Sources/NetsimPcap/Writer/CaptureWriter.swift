import Dispatch
import Foundation
import NetsimCore
import Synchronization

/// Writes what crossed the emulated link as a pcap file: synthesized TCP conversations
/// (handshake, 1448-byte segments, acknowledgments, FIN or RST) and UDP datagrams, timestamped
/// when the bytes were on the emulated radio, so Wireshark dissects the real protocols and `netsim analyze` gives
/// the run's radio figures back.
///
/// The proxy calls it from its event loops; a call only copies the record into a bounded
/// queue under a lock. A dedicated thread turns records into frames and writes them through
/// libpcap. When the queue is full (the disk is slower than the link), records are dropped and
/// counted in `droppedRecords`, never waited for: the capture must not slow the data plane.
/// A dropped chunk leaves a gap in its stream, as a lossy real capture would.
///
/// Frames are written in time order: chunks reach the capture when the proxy reads them but
/// are on air later, and uplink and downlink overlap. The writer holds frames until the run's
/// clock (the `at` of the latest call) is `reorderWindow` past them.
///
/// A run's capture records where the run began and ended (`RunBoundary`): `netsim analyze`
/// then covers exactly the run. Frames the run never reached (bytes held at its end, to go on
/// air after it) are not written.
public final class CaptureWriter: Sendable {
    public struct Limits: Sendable {
        /// Records queued for the writer thread before new ones are dropped.
        public var maximumQueuedRecords = 16_384
        /// Payload bytes queued for the writer thread before new records are dropped.
        public var maximumQueuedBytes = 64 << 20
        /// How far behind the latest `at` frames are held for ordering. Event loops record
        /// concurrently, and an open's time (its SYN on air) may be a promotion ahead of the
        /// run's clock: 5 s covers UMTS's 2 s promotion after a 1.28 s paging wait.
        public var reorderWindow = 5.0
        /// Segments held for ordering beyond which the oldest are written regardless.
        public var maximumHeldSegments = 65_536

        public init() {}
    }

    public let path: String
    private let queue: CaptureQueue

    /// Opens `path` for writing (it fails here if it cannot) and starts the writer thread.
    ///
    /// - Parameters:
    ///   - wallClockOrigin: seconds since 1970 at the run clock's zero; frames carry
    ///     `wallClockOrigin + time`.
    ///   - snapshotLength: the most bytes kept of each frame (as `tcpdump -s`); the default
    ///     keeps whole frames.
    ///   - runStart: the run this is the capture of: it begins with a run-start record at time
    ///     zero saying what the run played (its end goes in with `endRun(at:)`); nil for none.
    public init(
        path: String, wallClockOrigin: Double, snapshotLength: Int = 65_535, limits: Limits = Limits(),
        runStart: RunStart? = nil
    ) throws(CaptureWriterError) {
        self.path = path
        let file = try PcapDumpFile(path: path, snapshotLength: snapshotLength, wallClockOrigin: wallClockOrigin)
        if let runStart { file.write(RunBoundary.start(runStart).frame, at: 0) }
        let queue = CaptureQueue(limits: limits)
        self.queue = queue
        // The thread holds the queue, not the writer, so dropping the writer finishes the file.
        let thread = Thread { queue.runWriterThread(file) }
        thread.name = "netsim-capture"
        thread.start()
    }

    deinit {
        queue.finishWriterThread()
    }

    /// A connection opened: its handshake, at `time` (when the SYN was on air, at most a few
    /// seconds ahead of the run's clock; see `Limits.reorderWindow`).
    public func open(_ connection: ConnectionID, _ endpoints: CaptureEndpoints, at time: Double) {
        queue.enqueue(at: time) { state in
            state.connections[connection] = (endpoints, 0, 0)
            return CaptureRecord(connection: connection, endpoints: endpoints, time: time, kind: .open)
        }
    }

    /// A chunk the proxy read at `time`, on the emulated radio from `onAirStart` to `onAirEnd`
    /// (the delivery's `onAir`). Chunks of a connection that was not opened are not captured.
    public func data(
        _ connection: ConnectionID, _ direction: Direction, _ bytes: [UInt8], onAirStart: Double, onAirEnd: Double,
        at time: Double
    ) {
        guard !bytes.isEmpty else { return }
        queue.enqueue(at: time, onAir: (onAirStart, onAirEnd), bytes: bytes.count) { state in
            guard var entry = state.connections[connection] else { return nil }
            let offset = direction == .up ? entry.bytesUp : entry.bytesDown
            if direction == .up { entry.bytesUp += bytes.count } else { entry.bytesDown += bytes.count }
            state.connections[connection] = entry
            return CaptureRecord(
                connection: connection, endpoints: entry.endpoints, time: time,
                kind: .data(direction, bytes, streamOffset: offset, onAirStart: onAirStart, onAirEnd: onAirEnd))
        }
    }

    /// A UDP datagram between `endpoints` the proxy read at `time`, on the emulated radio from
    /// `onAir`: one UDP packet (IP fragments are not synthesized).
    public func datagram(_ endpoints: CaptureEndpoints, _ direction: Direction, _ bytes: [UInt8], onAir: Double, at time: Double) {
        queue.enqueue(at: time, onAir: (onAir, onAir), bytes: bytes.count) { _ in
            CaptureRecord(connection: 0, endpoints: endpoints, time: time, kind: .datagram(direction, bytes, onAir: onAir))
        }
    }

    /// A connection closed at `time` (the run's clock): FIN exchange, or a RST from the
    /// server side (`reset`).
    public func close(_ connection: ConnectionID, reset: Bool, at time: Double) {
        queue.enqueue(at: time) { state in
            guard let entry = state.connections.removeValue(forKey: connection) else { return nil }
            return CaptureRecord(
                connection: connection, endpoints: entry.endpoints, time: time,
                kind: .close(reset: reset, bytesUp: entry.bytesUp, bytesDown: entry.bytesDown))
        }
    }

    /// Records dropped because the queue was full (or their times were not finite), for the
    /// run's report.
    public var droppedRecords: Int {
        queue.droppedRecords
    }

    /// The run ended at `time` on its clock: when the capture is finished, frames up to then
    /// are written, then a run-end record; later ones (bytes the run left on their way) are not.
    public func endRun(at time: Double) {
        queue.endRun(at: time)
    }

    /// Writes everything recorded (up to the run's end, if `endRun` said where), closes the
    /// file and stops the writer thread; later calls record nothing. Throws if frames could not
    /// be written (a full disk).
    public func finish() throws(CaptureWriterError) {
        queue.finishWriterThread()
        if let error = queue.writeError { throw error }
    }
}

/// The queue between the proxy's event loops and the writer thread, and that thread's loop.
private final class CaptureQueue: Sendable {
    struct State {
        var records: [CaptureRecord] = []
        var queuedBytes = 0
        /// Per open connection: its endpoints and how many bytes each direction has carried.
        var connections: [ConnectionID: (endpoints: CaptureEndpoints, bytesUp: Int, bytesDown: Int)] = [:]
        var latestTime = -Double.infinity
        var dropped = 0
        var writerThreadIsWaiting = false
        var isFinishing = false
        /// Where the run ended (`endRun`).
        var runEnd: Double?
    }

    private let limits: CaptureWriter.Limits
    private let state = Mutex(State())
    private let recordsAvailable = DispatchSemaphore(value: 0)
    private let writerThreadDone = DispatchSemaphore(value: 0)
    private let outcome = Mutex<(finished: Bool, error: CaptureWriterError?)>((false, nil))

    init(limits: CaptureWriter.Limits) {
        self.limits = limits
    }

    var droppedRecords: Int { state.withLock { $0.dropped } }
    var writeError: CaptureWriterError? { outcome.withLock { $0.error } }

    /// Adds the record `make` builds (nil: nothing to record) unless the queue is full or one of
    /// its times is not one a pcap can hold (not finite, or beyond 31 years); the stream offsets
    /// advance either way, so later records keep their true sequence numbers.
    func enqueue(
        at time: Double, onAir: (start: Double, end: Double)? = nil, bytes: Int = 0,
        _ make: (inout State) -> CaptureRecord?
    ) {
        func isPlausible(_ time: Double) -> Bool { time.isFinite && abs(time) < 1e9 }
        let plausible = isPlausible(time) && onAir.map { isPlausible($0.start) && isPlausible($0.end) } ?? true
        let wakeWriterThread = state.withLock { state -> Bool in
            guard !state.isFinishing, let record = make(&state) else { return false }
            guard plausible, state.records.count < limits.maximumQueuedRecords,
                state.queuedBytes + bytes <= limits.maximumQueuedBytes
            else {
                state.dropped += 1
                return false
            }
            state.latestTime = max(state.latestTime, time)
            state.records.append(record)
            state.queuedBytes += bytes
            guard state.writerThreadIsWaiting else { return false }
            state.writerThreadIsWaiting = false
            return true
        }
        if wakeWriterThread { recordsAvailable.signal() }
    }

    func endRun(at time: Double) {
        state.withLock { state in
            guard !state.isFinishing, time.isFinite else { return }
            state.runEnd = time
        }
    }

    func finishWriterThread() {
        let shouldWait = outcome.withLock { outcome -> Bool in
            defer { outcome.finished = true }
            return !outcome.finished
        }
        guard shouldWait else { return }
        let wakeWriterThread = state.withLock { state -> Bool in
            state.isFinishing = true
            defer { state.writerThreadIsWaiting = false }
            return state.writerThreadIsWaiting
        }
        if wakeWriterThread { recordsAvailable.signal() }
        writerThreadDone.wait()
    }

    // MARK: Writer thread

    func runWriterThread(_ file: PcapDumpFile) {
        var synthesizer = TCPConversationSynthesizer()
        var writeFailed = false
        while true {
            let (records, latestTime, isFinishing, runEnd) = state.withLock { state in
                let taken = state.records
                state.records.removeAll(keepingCapacity: true)
                state.queuedBytes = 0
                if taken.isEmpty, !state.isFinishing { state.writerThreadIsWaiting = true }
                return (taken, state.latestTime, state.isFinishing, state.runEnd)
            }
            for record in records { synthesizer.plan(record) }
            let writeThrough = isFinishing ? runEnd ?? .infinity : latestTime - limits.reorderWindow
            synthesizer.write(through: writeThrough, maximumPlanned: limits.maximumHeldSegments) { frame, time in
                file.write(frame, at: time)
            }
            if isFinishing {
                if let runEnd { file.write(RunBoundary.end.frame, at: runEnd) }
                break
            }
            if records.isEmpty {
                // Idle: make what is written so far readable (a user may open the file mid-run).
                if !file.flush() { writeFailed = true }
                recordsAvailable.wait()
            }
        }
        if !file.close() || writeFailed {
            let detail = "incomplete, \(file.lossDescription())"
            outcome.withLock { $0.error = CaptureWriterError(path: file.path, detail: detail) }
        }
        writerThreadDone.signal()
    }
}
