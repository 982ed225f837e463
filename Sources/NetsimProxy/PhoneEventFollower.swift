import NetsimCore

/// Turns what the device model did into the phone's event stream (`GET /events`): the timeline
/// events it recorded, every radio state change at the time the model makes it (an event
/// before the radio change it causes at the same time, as a handover's fresh radio), and
/// `outage-ended` when connectivity is back. A value with no clock and no timers: the device
/// shows it the model after every change (`look`) and wakes it when it says (`nextLook`).
struct PhoneEventFollower {
    /// The most radio state changes one look publishes; more (a look long overdue, with a
    /// chain of short stages) wait for the next look, which `nextLook` then says is due.
    static let radioChangesPerLook = 16

    /// The radio state last published.
    private var radioState: RadioState?
    /// The time the radio was looked at last.
    private var radioLookedAt = 0.0
    /// While the phone has no connectivity: since when, and when the model last said it is back.
    private var disconnectedSince: Double?
    private var reconnectsAt: Double?

    init(radioState: RadioState?) {
        self.radioState = radioState
    }

    /// What to publish, in time order, for the events the model recorded since the last look
    /// and for what its radio and connectivity did until `time`.
    mutating func look(at model: DeviceModel, recorded: [DeviceEvent], through time: Double) -> [PhoneEvent] {
        var published: [PhoneEvent] = []
        for event in recorded {
            followConnectivity(model, through: event.at, including: false, into: &published)
            followRadio(model, through: event.at, includingEnd: false, into: &published)
            published.append(.timeline(event))
            if disconnectedSince == nil, let back = model.connectivityReturns(after: event.at) {
                disconnectedSince = event.at
                reconnectsAt = back
            }
        }
        followConnectivity(model, through: time, including: true, into: &published)
        followRadio(model, through: time, includingEnd: true, into: &published)
        return published
    }

    /// Connectivity may be back sooner than the model said when the outage began (it was
    /// ended early): the next look publishes `outage-ended` when the model now says.
    mutating func connectivityMayReturnSooner(_ model: DeviceModel, at time: Double) {
        guard disconnectedSince != nil else { return }
        reconnectsAt = model.connectivityReturns(after: time) ?? time
    }

    /// When there is next something to publish if nothing else happens: the radio's next
    /// change, or connectivity coming back.
    func nextLook(at model: DeviceModel) -> Double? {
        [model.nextRadioStateChange(after: radioLookedAt), reconnectsAt].compactMap { $0 }.min()
    }

    /// Publishes `outage-ended` if connectivity came back by `time` (or before it): an outage
    /// that began before then and lasts longer moves the return later.
    private mutating func followConnectivity(
        _ model: DeviceModel, through time: Double, including: Bool, into published: inout [PhoneEvent]
    ) {
        while let since = disconnectedSince, let back = reconnectsAt, back < time || (including && back == time) {
            if let later = model.connectivityReturns(after: back) {
                reconnectsAt = later
                continue
            }
            followRadio(model, through: back, includingEnd: false, into: &published)
            published.append(.outageEnded(at: back, startedAt: since))
            disconnectedSince = nil
            reconnectsAt = nil
        }
    }

    /// Publishes the radio's changes since the last look up to `time` (before it, or through
    /// it with `includingEnd`).
    private mutating func followRadio(
        _ model: DeviceModel, through time: Double, includingEnd: Bool, into published: inout [PhoneEvent]
    ) {
        var changes = 0
        while changes < Self.radioChangesPerLook, let change = model.nextRadioStateChange(after: radioLookedAt),
            change < time || (includingEnd && change == time)
        {
            publishRadioState(model, at: change, into: &published)
            radioLookedAt = change
            changes += 1
        }
        if includingEnd, changes < Self.radioChangesPerLook {
            publishRadioState(model, at: time, into: &published)
            radioLookedAt = max(radioLookedAt, time)
        }
    }

    private mutating func publishRadioState(_ model: DeviceModel, at time: Double, into published: inout [PhoneEvent]) {
        let state = model.radioState(at: time)
        guard state != radioState else { return }
        published.append(.radioState(at: time, state: state, previous: radioState))
        radioState = state
    }
}
