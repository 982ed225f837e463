import NetsimCore

/// A report written once as headings, paragraphs, lists and tables, and rendered as Markdown
/// (a CI job summary, a pull-request comment) or as one self-contained HTML page. Every cell and
/// line is text: the renderer escapes it for its format, control characters included, so a
/// profile's or a peer's words reach neither format raw.
public struct ReportDocument: Sendable, Equatable {
    public enum Block: Sendable, Equatable {
        case heading(String)
        case paragraph(String)
        case list([String])
        /// Columns after the first are numbers: right-aligned. The rows at `failing` (a failed
        /// gate) stand out in HTML: a reader scanning a page of held gates finds the one that
        /// failed by colour, not by reading every verdict.
        case table(header: [String], rows: [[String]], failing: Set<Int> = [])
        /// A chart: drawn in HTML, its caption alone in Markdown.
        case figure(SVGFigure)
    }

    public var title: String
    public var blocks: [Block]

    public init(title: String, blocks: [Block] = []) {
        self.title = title
        self.blocks = blocks
    }

    public var markdown: String {
        (["## " + title.markdownText, ""] + Self.markdown(blocks)).joined(separator: "\n")
    }

    /// `blocks` as Markdown lines, for a section inside another report.
    public static func markdown(_ blocks: [Block]) -> [String] {
        var lines: [String] = []
        for block in blocks {
            switch block {
            case .heading(let text): lines += ["### " + text.markdownText, ""]
            case .paragraph(let text): lines += [text.markdownText, ""]
            case .list(let items): lines += items.map { "- " + $0.markdownText } + [""]
            case .table(let header, let rows, _): lines += Self.markdownTable(header: header, rows: rows) + [""]
            case .figure(let figure): lines += [(figure.caption + " (a chart in the HTML report)").markdownText, ""]
            }
        }
        return lines
    }

    /// The document's tables alone, in Markdown, one after another.
    public var markdownTable: String {
        blocks.compactMap { block -> String? in
            guard case .table(let header, let rows, _) = block else { return nil }
            return Self.markdownTable(header: header, rows: rows).joined(separator: "\n") + "\n"
        }.joined(separator: "\n")
    }

    private static func markdownTable(header: [String], rows: [[String]]) -> [String] {
        [
            "| " + header.map(\.markdownText).joined(separator: " | ") + " |",
            "|---|" + String(repeating: "---:|", count: max(0, header.count - 1)),
        ]
            + rows.map { "| " + $0.map(\.markdownText).joined(separator: " | ") + " |" }
    }

    public var html: String {
        let escape: (String) -> String = \.htmlText
        let body = ["<h1>\(escape(title))</h1>"] + Self.html(blocks)
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
            <style>
            body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px; color: #222; max-width: 960px; }
            table { border-collapse: collapse; margin: 12px 0; }
            th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; font-size: 14px; }
            th:first-child { text-align: left; }
            figure { margin: 12px 0; } figcaption { font-size: 13px; color: #444; }
            .key { margin-right: 12px; font-size: 13px; } .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
            </style></head>
            <body>
            \(body.joined(separator: "\n"))
            </body></html>

            """
    }

    /// `blocks` as HTML elements, every text escaped, for a section inside another page.
    public static func html(_ blocks: [Block]) -> [String] {
        let escape: (String) -> String = \.htmlText
        var body: [String] = []
        for block in blocks {
            switch block {
            case .heading(let text): body.append("<h2>\(escape(text))</h2>")
            case .paragraph(let text): body.append("<p>\(escape(text))</p>")
            case .list(let items): body.append("<ul>" + items.map { "<li>\(escape($0))</li>" }.joined() + "</ul>")
            case .table(let header, let rows, let failing):
                body.append("<table><tr>" + header.map { "<th>\(escape($0))</th>" }.joined() + "</tr>")
                for (index, row) in rows.enumerated() {
                    // Styled inline: the pages that carry a table each have their own stylesheet.
                    let opening =
                        failing.contains(index) ? #"<tr class="failing" style="background:#fde2e1;color:#8a1111;font-weight:600">"# : "<tr>"
                    body.append(
                        opening + row.enumerated().map { $0 == 0 ? "<th>\(escape($1))</th>" : "<td>\(escape($1))</td>" }.joined() + "</tr>")
                }
                body.append("</table>")
            case .figure(let figure):
                body.append("<figure>\(figure.svg)<figcaption>\(escape(figure.caption))</figcaption></figure>")
            }
        }
        return body
    }
}

/// An SVG chart drawn by netsim's own renderers (`RadioTimelineChart`), whose texts are escaped
/// as they are drawn: only they make one, so a report's HTML holds no markup from elsewhere.
public struct SVGFigure: Sendable, Equatable {
    let svg: String
    public let caption: String

    init(svg: String, caption: String) {
        self.svg = svg
        self.caption = caption
    }
}
