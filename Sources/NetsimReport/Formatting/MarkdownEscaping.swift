import Foundation
import NetsimCore

extension String {
    /// Text from a peer, a profile, a report or a user, for Markdown, which shows it as it is:
    /// control characters escaped (a backslash doubled, which Markdown shows as one), and the
    /// characters that would start markup (HTML tags, emphasis, links, table cells)
    /// backslashed. An underscore is left alone: GitHub's Markdown does not emphasize inside a
    /// word, and state names such as LONG_DRX stay readable in the raw text. The one escaper of
    /// every Markdown report (`ReportDocument`, the bench's, `report compare`).
    public var markdownText: String {
        var result = ""
        for character in escapingControlCharacters {
            if "`*[]<>|".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// The text as a Markdown code span, also inside a table cell: a backslash does not escape
    /// inside a span, so the span is fenced with one backtick more than the longest run of them
    /// in the text (CommonMark), and a `|` is written `\|` (GitHub's tables read that inside a
    /// span as the character). Control characters are escaped first.
    public var markdownCode: String {
        let text = escapingControlCharacters.replacingOccurrences(of: "|", with: "\\|")
        var longest = 0
        var run = 0
        for character in text {
            run = character == "`" ? run + 1 : 0
            longest = Swift.max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        // A span that starts or ends with a backtick needs a space inside its fence.
        let padding = text.hasPrefix("`") || text.hasSuffix("`") ? " " : ""
        return fence + padding + text + padding + fence
    }
}
