import CPcap

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// One packet as read from a capture. `bytes` points into libpcap's buffer and is valid only
/// during the callback that receives it: reading never copies a packet.
public struct CapturedPacket {
    /// 1-based, in file order.
    public var number: Int
    public var seconds: Int
    public var nanoseconds: Int
    /// The captured bytes, possibly fewer than `originalLength` (snapshot length).
    public var bytes: UnsafeRawBufferPointer
    public var originalLength: Int
}

/// Reads any capture libpcap reads (pcap in either byte order and precision, pcapng) through
/// libpcap, which owns the file formats; netsim decodes the link layer and above by hand
/// (`PacketDecoder`). Errors name the file and the record's packet number and byte offset.
public final class CaptureReader {
    public let name: String
    public let linkType: LinkType
    /// `pcap` or `pcapng`.
    public let format: String
    private let handle: OpaquePointer
    private let file: UnsafeMutablePointer<FILE>
    /// libpcap's stdio buffer: large reads instead of 4 KB ones.
    private let buffer: UnsafeMutableRawPointer
    private static let bufferSize = 1 << 20

    /// Opens the capture at `path`.
    public convenience init(path: String) throws(CaptureError) {
        guard let file = fopen(path, "rb") else {
            throw CaptureError(file: path, kind: .unreadable, detail: String(cString: strerror(errno)))
        }
        try self.init(file: file, name: path)
    }

    /// Reads a capture from an open stream (an in-memory one from `fmemopen`, for fuzzing); the
    /// reader closes it. `name` is what errors call it.
    public init(file: UnsafeMutablePointer<FILE>, name: String) throws(CaptureError) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 16)
        setvbuf(file, buffer.assumingMemoryBound(to: CChar.self), _IOFBF, Self.bufferSize)
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let handle = pcap_fopen_offline_with_tstamp_precision(file, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errorBuffer)
        else {
            let message = String(nulTerminated: errorBuffer)
            fclose(file)
            buffer.deallocate()
            throw CaptureError(file: name, kind: Self.classify(message), detail: message)
        }
        let dataLinkType = pcap_datalink(handle)
        guard let linkType = LinkType(dataLinkType: dataLinkType) else {
            let linkName = pcap_datalink_val_to_name(dataLinkType).map { String(cString: $0) } ?? "unknown"
            pcap_close(handle)
            buffer.deallocate()
            throw CaptureError(
                file: name, kind: .unsupportedLinkType,
                detail: "link type \(dataLinkType) (\(linkName)); netsim reads \(LinkType.supportedList) captures")
        }
        self.name = name
        self.linkType = linkType
        self.format = pcap_major_version(handle) == 1 ? "pcapng" : "pcap"
        self.handle = handle
        self.file = file
        self.buffer = buffer
    }

    deinit {
        pcap_close(handle)
        buffer.deallocate()
    }

    /// Calls `body` with every packet in file order; throws the first read error, after the
    /// packets before it were handed over.
    ///
    /// The error's byte offset is where the failing record starts in a pcap file, counted from
    /// the record lengths (asking the stream costs a system call per packet). In a pcapng file,
    /// whose block boundaries libpcap keeps to itself, it is where reading stopped.
    public func forEachPacket(_ body: (CapturedPacket) throws -> Void) throws {
        let pcapFileHeaderLength = 24
        let pcapRecordHeaderLength = 16
        var number = 0
        var recordOffset = pcapFileHeaderLength
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        while true {
            let status = pcap_next_ex(handle, &header, &data)
            switch status {
            case 1:
                guard let header, let data else { continue }
                number += 1
                let record = header.pointee
                recordOffset += pcapRecordHeaderLength + Int(record.caplen)
                try body(
                    CapturedPacket(
                        number: number, seconds: Int(record.ts.tv_sec), nanoseconds: Int(record.ts.tv_usec),
                        bytes: UnsafeRawBufferPointer(start: data, count: Int(record.caplen)),
                        originalLength: Int(record.len)))
            case PCAP_ERROR_BREAK:
                return
            default:
                let message = String(cString: pcap_geterr(handle))
                throw CaptureError(
                    file: name, kind: Self.classify(message), packetNumber: number + 1,
                    byteOffset: format == "pcap" ? recordOffset : ftell(file), detail: message)
            }
        }
    }

    /// libpcap reports every failure as a message; its wording tells the classes apart.
    private static func classify(_ message: String) -> CaptureError.Kind {
        if message.contains("unknown file format") { return .notACapture }
        if message.contains("truncated") { return .truncated }
        return .corrupt
    }
}
