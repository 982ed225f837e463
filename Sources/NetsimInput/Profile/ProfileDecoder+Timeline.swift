import NetsimCore

extension ProfileDecoder {
    /// A list of events, or `{repeat: PERIOD, events: [...]}`. Events are sorted by time;
    /// events at the same time keep their profile order.
    func timeline(_ node: YAMLNode, networkNames: [String]) throws(InputFileError) -> Timeline {
        let eventList: YAMLNode
        let repeatNode: YAMLNode?
        if case .mapping = node.node {
            let mapping = try node.mapping(keys: ["repeat", "events"])
            eventList = try mapping.required("events").named("the timeline's events")
            repeatNode = mapping.value("repeat")
        } else {
            eventList = node
            repeatNode = nil
        }
        var located: [(event: TimelineEvent, node: YAMLNode)] = []
        for (index, item) in try eventList.sequence().enumerated() {
            let eventNode = item.named("timeline event \(index + 1)")
            located.append((try event(eventNode, networkNames: networkNames), eventNode))
        }
        located = located.enumerated()
            .sorted { ($0.element.event.at, $0.offset) < ($1.element.event.at, $1.offset) }
            .map(\.element)
        try requireSeparateGaps(located)
        let repeatPeriod = try repeatNode.map(repeatPeriod)
        if let repeatPeriod, let repeatNode { try requireFits(located, in: repeatPeriod, repeatNode: repeatNode) }
        return Timeline(events: located.map(\.event), repeatPeriod: repeatPeriod)
    }

    /// A repetition period of at least `Timeline.minimumRepeatPeriod`.
    private func repeatPeriod(_ node: YAMLNode) throws(InputFileError) -> Double {
        let period = try duration(node)
        guard period >= Timeline.minimumRepeatPeriod else {
            throw node.error(
                "\(node.place) must be at least \(Quantity.formatDuration(Timeline.minimumRepeatPeriod)),"
                    + " not '\(try node.string())'")
        }
        return period
    }

    private func event(_ node: YAMLNode, networkNames: [String]) throws(InputFileError) -> TimelineEvent {
        let kinds = ["outage", "handover", "set", "signal"]
        let mapping = try node.mapping(keys: ["at"] + kinds)
        let at = try duration(mapping.required("at"))
        let given = mapping.entries.filter { kinds.contains($0.key) }
        guard given.count == 1, let entry = given.first else {
            let problem = given.isEmpty ? "has none" : "has \(given.map { "'\($0.key)'" }.joined(separator: " and "))"
            throw node.error("\(node.place) needs exactly one of 'outage', 'handover', 'set' or 'signal'; it \(problem)")
        }
        let kindNode = entry.value.named("the \(entry.key) of \(node.place)")
        switch entry.key {
        case "outage":
            let outage = try outage(kindNode)
            return TimelineEvent(at: at, kind: .outage(duration: outage.duration, mode: outage.mode))
        case "handover": return TimelineEvent(at: at, kind: try handover(kindNode, networkNames: networkNames))
        case "signal": return TimelineEvent(at: at, kind: .signal(rsrp: try kindNode.quantity(Quantity.signalStrength, unitExample: "dBm")))
        default: return TimelineEvent(at: at, kind: try linkSet(kindNode, owner: node.place, networkNames: networkNames))
        }
    }

    /// An outage's `duration` and `mode` (default `stall`), in a timeline or an impairments file.
    func outage(_ node: YAMLNode) throws(InputFileError) -> (duration: Double, mode: OutageMode) {
        let mapping = try node.mapping(keys: ["duration", "mode"])
        return (
            duration: try positiveDuration(mapping.required("duration")),
            mode: try mapping.value("mode")?.choice(OutageMode.self) ?? .stall
        )
    }

    private func handover(_ node: YAMLNode, networkNames: [String]) throws(InputFileError) -> TimelineEvent.Kind {
        let mapping = try node.mapping(keys: ["to", "mode", "gap"])
        return .handover(
            to: try networkName(mapping.required("to"), among: networkNames),
            mode: try mapping.value("mode")?.choice(HandoverMode.self) ?? .reset,
            gap: try mapping.value("gap").map(duration) ?? 0)
    }

    /// A `set` event's change: `network` (default: the current one) and the `link` fields it
    /// changes. Also the admin API's `POST /set` body (`ProfileLoader.setChange`).
    func linkSet(
        _ node: YAMLNode, owner: String, networkNames: [String]
    ) throws(InputFileError) -> TimelineEvent.Kind {
        let mapping = try node.mapping(keys: ["network", "link"])
        let network = try mapping.value("network").map { node throws(InputFileError) in
            try networkName(node, among: networkNames)
        }
        let link = try linkChanges(mapping.required("link"), owner: owner)
        guard !link.up.isEmpty || !link.down.isEmpty else {
            throw node.error("\(node.place) changes nothing: give at least one link field")
        }
        return .set(network: network, up: link.up, down: link.down)
    }

    /// Two outages or handover gaps that overlap have no clear meaning (which one ends the
    /// other?); a `set` or a `signal` during a gap is fine.
    private func requireSeparateGaps(_ events: [(event: TimelineEvent, node: YAMLNode)]) throws(InputFileError) {
        var previousGap: (event: TimelineEvent, end: Double)?
        for (event, node) in events {
            switch event.kind {
            case .set, .signal: continue
            case .outage, .handover: break
            }
            if let previousGap, event.at < previousGap.end {
                throw node.error(
                    "\(node.place) (\(event.kindName) at \(Quantity.formatDuration(event.at))) starts during the"
                        + " \(previousGap.event.kindName) from \(Quantity.formatDuration(previousGap.event.at))"
                        + " to \(Quantity.formatDuration(previousGap.end))")
            }
            previousGap = (event, event.at + event.connectivityGap)
        }
    }

    /// A repeating timeline's period must hold every event and its gap, or one repetition
    /// would still be running when the next begins.
    private func requireFits(
        _ events: [(event: TimelineEvent, node: YAMLNode)], in period: Double, repeatNode: YAMLNode
    ) throws(InputFileError) {
        guard let last = events.max(by: { $0.event.at + $0.event.connectivityGap < $1.event.at + $1.event.connectivityGap })
        else { return }
        let end = last.event.at + last.event.connectivityGap
        guard end > period else { return }
        throw repeatNode.error(
            "'repeat' (\(Quantity.formatDuration(period))) is shorter than the timeline: \(last.node.place)"
                + " (\(last.event.kindName) at \(Quantity.formatDuration(last.event.at))) lasts until"
                + " \(Quantity.formatDuration(end))")
    }
}

extension ProfileLoader {
    /// A `set` step on its own, as the admin API's `POST /set` takes it: what a timeline
    /// event's `set` holds (`network`, `link`), in YAML or JSON (which is YAML), checked by the
    /// same rules and with the same messages. A `trace` is refused: a request has no profile
    /// directory to read it from, and the admin API reads no files for its clients.
    public static func setChange(yaml: String, source: String, networkNames: [String]) throws(InputFileError) -> TimelineEvent.Kind {
        guard let root = try YAMLNode.compose(yaml: yaml, file: source, describedAs: "the change") else {
            throw InputFileError(
                file: source, line: 1, column: 1,
                message: #"the change is empty: give a set step, e.g. {"link": {"delay": "200ms"}}"#)
        }
        let decoder = ProfileDecoder { _ in throw TraceNotAllowed() }
        return try decoder.linkSet(root, owner: "the change", networkNames: networkNames)
    }

    private struct TraceNotAllowed: Error, CustomStringConvertible {
        var description: String { "traces can only be set in a profile file, not in a live change; give a 'rate'" }
    }
}
