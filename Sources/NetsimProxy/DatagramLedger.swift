import NetsimCore

/// The phone's UDP datagrams as the proxy carries them: the report's figures, and the bytes
/// read and not yet delivered per direction, bounded as a socket's buffer is (past the limit a
/// datagram is dropped, `DatagramDrop.overflow`). A value with no I/O: the device asks it
/// whether a datagram fits, and tells it when one waits and what became of it.
struct DatagramLedger {
    /// `RunReport.datagrams`: nil until the phone's first flow.
    private(set) var figures: DatagramFigures?
    /// Datagram bytes waiting for their delivery time, per direction.
    private(set) var bytesInFlight = PerDirection(up: 0, down: 0)
    /// The most bytes that may wait in one direction (`ProxyOptions.bufferLimit`).
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Each direction's counts, zero before the first flow (for `/metrics`).
    var counts: PerDirection<DatagramCounts> {
        figures?.counts ?? PerDirection(up: DatagramCounts(), down: DatagramCounts())
    }

    mutating func flowOpened() {
        figures = figures ?? DatagramFigures()
        figures?.flows += 1
    }

    /// A flow's datagram left on a new NAT mapping: the server sees a new source port.
    mutating func flowRemapped() {
        figures?.remappings += 1
    }

    /// Whether a datagram of `bytes` may wait beside those already waiting.
    func fits(_ bytes: Int, _ direction: Direction) -> Bool {
        bytesInFlight[direction] + bytes <= limit
    }

    /// A datagram starts waiting for its delivery time.
    mutating func wait(_ bytes: Int, _ direction: Direction) {
        bytesInFlight[direction] += bytes
    }

    /// A waiting datagram's time came (or the run stopped): its bytes no longer wait.
    mutating func stopWaiting(_ bytes: Int, _ direction: Direction) {
        bytesInFlight[direction] -= bytes
    }

    /// Counts one datagram's fate: delivered (`drop` nil) or dropped and why.
    mutating func count(_ bytes: Int, _ direction: Direction, droppedBy drop: DatagramDrop?) {
        figures?.count(bytes, direction, droppedBy: drop)
    }
}
