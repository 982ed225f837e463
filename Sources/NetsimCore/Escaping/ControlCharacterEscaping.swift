extension String {
    /// The text with every character that could act on a terminal or forge a log line written
    /// as a visible escape: control characters (newlines, ANSI escape sequences, NUL), Unicode
    /// format characters (bidirectional overrides, zero-width characters) and line or paragraph
    /// separators become `\u{1B}`-style escapes, and a backslash becomes `\\`, so that an escape
    /// in the output always means an escaped character. The one escaper for what a peer sends
    /// (a name, a request target, a header) on its way to a log line, the status line or a
    /// report: a client cannot start a new log line or recolour the terminal.
    public var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: Self.needsEscape) else { return self }
        var result = ""
        result.reserveCapacity(utf8.count + 8)
        for scalar in unicodeScalars {
            if scalar == "\\" {
                result += "\\\\"
            } else if Self.needsEscape(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate, .privateUse: true
        default: scalar == "\\"
        }
    }
}
