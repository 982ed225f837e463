import NetsimCore
import NetsimReport

/// The live dashboard the admin API serves at `/`: one page, its script and its style sheet,
/// written by hand in `dashboard.html`, `dashboard.js` and `dashboard.css` beside this file and
/// compiled into the binary (`PackageResources`, Package.swift's `.embedInCode`), with nothing
/// fetched from elsewhere (it works offline and passes a Content-Security-Policy that allows
/// only the admin API itself). Being real files, node checks and tests the script
/// (scripts/js-test.sh).
///
/// It reads what any client of the API reads (`GET /status` each second, the `GET /events`
/// stream, `GET /report` once to draw the radio's past) and its controls make the POSTs the
/// API documents, each showing the request it makes. Text a peer chose (a destination's name)
/// only ever reaches the page as text nodes, never as markup.
enum DashboardPage {
    /// The policy every admin answer carries: the page may load only its own script and style
    /// sheet and talk only to the API it came from; nothing may frame it.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static let html = String(decoding: PackageResources.dashboard_html, as: UTF8.self)

    static let css = String(decoding: PackageResources.dashboard_css, as: UTF8.self)

    /// The page's script, with the state and event colours every report uses, then its logic
    /// (`dashboard-logic.js`, which node tests alone) and its wiring; composed once.
    static let script: String = {
        let stateColors = RadioState.allCases.map { "\"\($0.rawValue)\": \"\($0.chartColor)\"" }.joined(separator: ", ")
        let eventColors = RadioTimelineChart.eventColors.sorted { $0.key.rawValue < $1.key.rawValue }
            .map { "\"\($0.key.rawValue)\": \"\($0.value)\"" }.joined(separator: ", ")
        return "\"use strict\";\nconst STATE_COLORS = {\(stateColors)};\nconst EVENT_COLORS = {\(eventColors)};\n"
            + String(decoding: PackageResources.dashboard_logic_js, as: UTF8.self)
            + String(decoding: PackageResources.dashboard_js, as: UTF8.self)
    }()
}
