/// What a profile may be called. A profile's name becomes part of file names
/// (`bench-NAME.md`, `bench-NAME.shard-0-of-4.json`) and is read back from files from
/// elsewhere (a profile, a bench's part), so it is one plain path component: 1 to 64 ASCII
/// letters, digits, `-`, `_` and `.`, not starting with `.` or `-` (no `/`, no `..`, no hidden
/// file, nothing an option parser or a shell reads as more). The profile reader and the merge
/// of a bench's parts both check it here.
public enum ProfileName {
    public static let longest = 64

    /// What is wrong with `name` as a profile's name; nil when it is one.
    public static func problem(with name: String) -> String? {
        let bytes = Array(name.utf8)
        guard (1...longest).contains(bytes.count) else {
            return "a profile's name is 1 to \(longest) characters, not \(bytes.count)"
        }
        guard bytes.allSatisfy(isNameByte), bytes[0] != UInt8(ascii: "."), bytes[0] != UInt8(ascii: "-") else {
            return
                "'\(name.escapingControlCharacters)' is not a profile's name: it becomes part of file names, so it is ASCII letters, digits, '-', '_' and '.', not starting with '.' or '-'"
        }
        return nil
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }
}
