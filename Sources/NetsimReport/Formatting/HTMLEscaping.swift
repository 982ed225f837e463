import NetsimCore

extension String {
    /// The text safe inside HTML and SVG, in element content and quoted attributes alike: the
    /// one escaper of every report (bench, analyze, tune).
    public var htmlEscaped: String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for character in self {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }

    /// Text from a peer, a profile or a user, for HTML: its control and format characters made
    /// visible (`escapingControlCharacters`), then escaped.
    public var htmlText: String { escapingControlCharacters.htmlEscaped }
}
