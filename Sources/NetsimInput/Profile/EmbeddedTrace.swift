import NetsimCore

/// The compact encoding the built-in trace files are compiled in with (written by
/// scripts/embed-profiles.py): a mahimahi trace is one millisecond timestamp per line, rising,
/// so it is stored as the gaps between them, one character each (`0`-`9`, `a`-`z`, `A`-`Z` for
/// 0 to 61 ms; a longer gap in decimal in parentheses, `(250)`). Newlines are for the source's
/// sake and are skipped.
enum EmbeddedTrace {
    private static let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)

    /// The gap each alphabet byte stands for, by byte.
    private static let gapByByte: [UInt8: Int] = Dictionary(uniqueKeysWithValues: alphabet.enumerated().map { ($1, $0) })

    /// The trace file's text, exactly as it was embedded.
    static func decode(_ encoded: String) -> String {
        var text = ""
        var time = 0
        var number: Int?
        for byte in encoded.utf8 {
            let gap: Int
            switch byte {
            case UInt8(ascii: "\n"):
                continue
            case UInt8(ascii: "("):
                number = 0
                continue
            case UInt8(ascii: ")"):
                gap = number ?? 0
                number = nil
            case UInt8(ascii: "0")...UInt8(ascii: "9") where number != nil:
                number = number! * 10 + Int(byte - UInt8(ascii: "0"))
                continue
            default:
                // The generator writes only alphabet bytes here; the embedded-files test checks
                // every trace decodes to its file.
                gap = gapByByte[byte] ?? 0
            }
            time += gap
            text += String(time)
            text += "\n"
        }
        return text
    }
}
