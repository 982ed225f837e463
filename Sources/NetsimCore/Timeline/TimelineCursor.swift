/// Walks a timeline's occurrences in time order, repeating it when it repeats.
struct TimelineCursor: Sendable {
    struct Occurrence: Sendable, Equatable {
        var time: Double
        var event: TimelineEvent
    }

    private let timeline: Timeline
    private let origin: Double
    private var cycle = 0
    private var index = 0

    init(_ timeline: Timeline, start: Double) {
        self.timeline = timeline
        self.origin = start
    }

    /// The next occurrence not yet taken, if any.
    var next: Occurrence? {
        guard let time = nextTime else { return nil }
        return Occurrence(time: time, event: timeline.events[index])
    }

    /// When the next occurrence not yet taken happens, if ever: without copying its event (the
    /// model engine asks before every chunk it sends).
    var nextTime: Double? {
        guard index < timeline.events.count else { return nil }
        return origin + Double(cycle) * (timeline.repeatPeriod ?? 0) + timeline.events[index].at
    }

    /// Takes the occurrences at or before `time`, in order, at most `limit` of them (the rest
    /// stay for the next call).
    mutating func take(through time: Double, limit: Int = .max) -> [Occurrence] {
        var taken: [Occurrence] = []
        while taken.count < limit, let occurrence = next, occurrence.time <= time {
            taken.append(occurrence)
            index += 1
            if index == timeline.events.count, let period = timeline.repeatPeriod, period > 0 {
                index = 0
                cycle += 1
            }
        }
        return taken
    }
}

extension Timeline {
    /// The windows without connectivity (outages and handover gaps) within one period.
    var connectivityGaps: [ConnectivityGaps.Gap] {
        events.filter { $0.connectivityGap > 0 }.map {
            .init(start: $0.at, end: $0.at + $0.connectivityGap, holdsDatagrams: $0.kind.holdsDatagrams)
        }
    }
}
