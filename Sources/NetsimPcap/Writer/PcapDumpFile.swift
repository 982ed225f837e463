import CPcap
import Foundation
import NetsimCore

/// Why a capture cannot be written.
public struct CaptureWriterError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var detail: String

    public var description: String { "cannot write the capture \(path): \(detail)" }
}

/// An Ethernet pcap file with nanosecond timestamps, written through libpcap.
///
/// Owned by one thread at a time: `CaptureWriter` creates it (so an unwritable path fails at
/// once, on the caller's thread) and then hands it to its writer thread, the only user after.
final class PcapDumpFile: @unchecked Sendable {
    let path: String
    private let deadHandle: OpaquePointer
    private let dumper: OpaquePointer
    private let snapshotLength: Int
    /// Seconds since 1970 of the run clock's zero, split so nanoseconds survive the addition.
    private let originSeconds: Int
    private let originNanoseconds: Int
    /// Bytes handed to libpcap so far (its file header, then each frame's record header and
    /// captured bytes): what the file holds if nothing was lost.
    private var bytesHandedOver = 24
    /// The system's reason for the first failed flush, if one failed.
    private var failure: String?

    init(path: String, snapshotLength: Int, wallClockOrigin: Double) throws(CaptureWriterError) {
        guard wallClockOrigin.isFinite, abs(wallClockOrigin) < 1e12 else {
            throw CaptureWriterError(path: path, detail: "the wall-clock origin \(wallClockOrigin) is not a time")
        }
        guard snapshotLength > 0 else {
            throw CaptureWriterError(path: path, detail: "the snapshot length must be positive, not \(snapshotLength)")
        }
        guard
            let deadHandle = pcap_open_dead_with_tstamp_precision(
                DLT_EN10MB, Int32(clamping: snapshotLength), UInt32(PCAP_TSTAMP_PRECISION_NANO))
        else { throw CaptureWriterError(path: path, detail: "libpcap cannot create a capture handle") }
        guard let dumper = pcap_dump_open(deadHandle, path) else {
            let message = String(cString: pcap_geterr(deadHandle))
            pcap_close(deadHandle)
            throw CaptureWriterError(path: path, detail: message)
        }
        self.path = path
        self.deadHandle = deadHandle
        self.dumper = dumper
        self.snapshotLength = snapshotLength
        let whole = wallClockOrigin.rounded(.down)
        self.originSeconds = Int(whole)
        self.originNanoseconds = Int(((wallClockOrigin - whole) * 1e9).rounded())
    }

    /// Writes a frame that crossed the link at `time` on the run's clock.
    func write(_ frame: [UInt8], at time: Double) {
        let whole = time.rounded(.down)
        var nanoseconds = originNanoseconds + Int(((time - whole) * 1e9).rounded())
        var seconds = originSeconds + Int(whole)
        seconds += nanoseconds / 1_000_000_000
        nanoseconds %= 1_000_000_000
        var header = pcap_pkthdr()
        header.ts.tv_sec = .init(seconds)
        header.ts.tv_usec = .init(nanoseconds)  // nanoseconds: the file is in nanosecond precision
        header.caplen = UInt32(min(frame.count, snapshotLength))
        bytesHandedOver += 16 + Int(header.caplen)
        header.len = UInt32(frame.count)
        frame.withUnsafeBufferPointer { bytes in
            pcap_dump(UnsafeMutablePointer<UInt8>(dumper), &header, bytes.baseAddress)
        }
    }

    /// Pushes buffered frames to the file; false if the system refused them (disk full).
    func flush() -> Bool {
        guard pcap_dump_flush(dumper) == 0 else {
            if failure == nil { failure = String(cString: strerror(errno)).lowercased() }
            return false
        }
        return true
    }

    /// Flushes and closes; false if anything failed to reach the file. A write that failed
    /// inside libpcap's stdio buffer (past `ulimit -f`, or a disk that filled) leaves the
    /// stream's error indicator set even when the flush after it had nothing left to write,
    /// and a regular file shorter than what was handed over lost the rest, whatever stdio said.
    func close() -> Bool {
        let flushed = flush()
        if ferror(pcap_dump_file(dumper)) != 0, failure == nil {
            failure = "a write failed: the disk is full or the file over its size limit"
        }
        pcap_dump_close(dumper)
        pcap_close(deadHandle)
        if let size = regularFileSize(), size < bytesHandedOver, failure == nil {
            failure = "the file holds fewer bytes than were written: the disk is full or the file over its size limit"
        }
        return flushed && failure == nil
    }

    /// The file's size on disk; nil for a target that is not a regular file (`/dev/full`).
    private func regularFileSize() -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)).flatMap { attributes in
            attributes[.type] as? FileAttributeType == .typeRegular ? (attributes[.size] as? NSNumber)?.intValue : nil
        }
    }

    /// How much of what was handed over is not in the file, in words, once it is closed: a
    /// full disk keeps what fitted. A target that is not a regular file (`/dev/full`) is taken
    /// to hold nothing.
    func lossDescription() -> String {
        let size = regularFileSize() ?? 0
        let lost = max(bytesHandedOver - size, 0)
        return "\(Quantity.formatDataSize(Double(lost))) of \(Quantity.formatDataSize(Double(bytesHandedOver))) did not reach the file "
            + "(\(failure ?? "a write failed"))"
    }
}
