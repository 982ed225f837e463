// libFuzzer entry point for `netsim analyze`'s input path: built by
// scripts/fuzz-capture-reader.sh with `swiftc -sanitize=fuzzer,address` from NetsimPcap's
// reader, analysis and report sources (and the radio model's NetsimCore sources), never by
// `swift build`.

import Foundation
import NetsimCore

/// Every input goes two ways: as a whole capture file through the analyzer (libpcap, the
/// decoder, flows, name sniffing, the radio model, periodic detection, and the text, HTML and
/// JSON reports), and as one packet of each link type straight into the hand-written parsers,
/// which libFuzzer's coverage sees best: libpcap itself is not instrumented.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCaptureReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    analyzeAsCapture(input)
    for linkType in [LinkType.ethernet, .linuxCooked, .linuxCookedV2, .rawIP, .loopback] {
        if case .ip(let packet) = PacketDecoder.decode(input, originalLength: size, linkType: linkType) {
            _ = PacketDecoder.checksumsAreValid(packet, in: input)
        }
    }
    _ = ServerNameSniffer.sniff(input)
    return 0
}

private let radios = RadioTechnology.allCases.compactMap { RadioStages(.defaults(for: $0)) }

private func analyzeAsCapture(_ input: UnsafeRawBufferPointer) {
    guard input.count > 0,
        // fmemopen reads the buffer in place; the reader closes the stream.
        let file = fmemopen(UnsafeMutableRawPointer(mutating: input.baseAddress), input.count, "rb"),
        let reader = try? CaptureReader(file: file, name: "fuzz-input")
    else { return }
    var analyzer = CaptureAnalyzer(options: CaptureAnalysisOptions(radio: radios[input.count % radios.count]))
    try? reader.forEachPacket { analyzer.add($0, linkType: reader.linkType) }
    let analysis = analyzer.finish(file: reader.name, format: reader.format, linkType: reader.linkType)
    _ = analysis.textReport()
    _ = analysis.htmlReport()
    // Every figure must be finite: JSON cannot hold anything else, so `analyze --format json`
    // would fail on it.
    do {
        _ = try JSONEncoder().encode(analysis)
    } catch {
        fatalError("the analysis of a capture cannot be encoded: \(error)")
    }
}
