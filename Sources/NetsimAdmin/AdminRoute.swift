import Hummingbird

/// The admin API's endpoints, each with the one method it answers and the query parameters it
/// takes (any other is a 400, so that a typo is not silently a default). The table is what the
/// `Router` serves and what a 404's or a 405's message lists.
enum AdminRoute: String, CaseIterable, Sendable {
    case dashboard = "/"
    case dashboardScript = "/dashboard.js"
    case dashboardStyle = "/dashboard.css"
    case status = "/status"
    /// Every phone in a line (`PhoneSummary`): the dashboard's strips in a run of several.
    case phones = "/phones"
    case report = "/report"
    case metrics = "/metrics"
    case events = "/events"
    case outage = "/outage"
    case outageEnd = "/outage/end"
    case set = "/set"
    case undoSet = "/set/undo"
    case timelinePause = "/timeline/pause"
    case timelineResume = "/timeline/resume"
    case network = "/network"

    var method: HTTPRequest.Method {
        switch self {
        case .dashboard, .dashboardScript, .dashboardStyle, .status, .phones, .report, .metrics, .events: .get
        case .outage, .outageEnd, .set, .undoSet, .network, .timelinePause, .timelineResume: .post
        }
    }

    /// The query parameters. `phone` picks one phone of a run of several (phone 1 if absent);
    /// `GET /events` without it follows every phone.
    var parameters: [String] {
        switch self {
        case .dashboard, .dashboardScript, .dashboardStyle, .metrics, .phones: []
        case .status, .events, .outageEnd, .set, .undoSet, .timelinePause, .timelineResume: ["phone"]
        case .report: ["format", "phone"]
        case .outage: ["duration", "mode", "phone"]
        case .network: ["to", "mode", "gap", "phone"]
        }
    }

    /// Whether the endpoint tells or changes something: all but the dashboard's files, which
    /// are the same for everyone. What a token guards.
    var holdsData: Bool {
        switch self {
        case .dashboard, .dashboardScript, .dashboardStyle: false
        case .status, .phones, .report, .metrics, .events, .outage, .outageEnd, .set, .undoSet, .network, .timelinePause, .timelineResume:
            true
        }
    }

    /// The route a request target names (its path, without the query), if any.
    init?(target: String) {
        self.init(rawValue: String(target.prefix { $0 != "?" && $0 != "#" }))
    }
}
