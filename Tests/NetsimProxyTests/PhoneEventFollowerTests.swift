import NetsimCore
import NetsimTestSupport
import Testing

@testable import NetsimProxy

/// The phone's event stream from the device model alone: no sockets, no clock.
@Suite(.computes) struct PhoneEventFollowerTests {
    static let profile = Profile(
        name: "followed", description: "",
        networks: [
            Network(name: "lte", radio: .lte(LTERadioParameters()), up: LinkParameters(), down: LinkParameters()),
            Network(name: "wifi", radio: .wifi(WiFiRadioParameters()), up: LinkParameters(), down: LinkParameters()),
        ],
        start: "lte")

    func names(_ events: [PhoneEvent]) -> [String] { events.map(\.name) }

    @Test("outages that overlap end once, when the last is over, with the radio's changes in time order around it")
    func overlappingOutagesEndOnce() {
        var model = DeviceModel(profile: Self.profile, seed: 1)
        var follower = PhoneEventFollower(radioState: model.radioState(at: 0))
        _ = model.trigger(.outage(duration: 5, mode: .stall), at: 10)
        #expect(names(follower.look(at: model, recorded: model.takeRecentEvents(), through: 10)) == ["outage"])
        #expect(follower.nextLook(at: model) == 15)
        _ = model.trigger(.outage(duration: 10, mode: .stall), at: 12)
        #expect(names(follower.look(at: model, recorded: model.takeRecentEvents(), through: 12)) == ["outage"])

        // At 15 the first is over but the second holds until 22: nothing yet.
        #expect(follower.look(at: model, recorded: [], through: 15).isEmpty)
        #expect(follower.nextLook(at: model) == 22)
        let ended = follower.look(at: model, recorded: [], through: 22)
        #expect(ended == [.outageEnded(at: 22, startedAt: 10)])
        #expect(follower.nextLook(at: model) == nil, "an idle radio and connectivity: nothing more to say")
    }

    @Test("a look long after the return still says when connectivity came back, before later radio changes")
    func aLateLookKeepsTheOrder() throws {
        var model = DeviceModel(profile: Self.profile, seed: 1)
        var follower = PhoneEventFollower(radioState: model.radioState(at: 0))
        _ = model.trigger(.outage(duration: 2, mode: .stall), at: 1)
        _ = follower.look(at: model, recorded: model.takeRecentEvents(), through: 1)
        // Bytes at 5 wake the radio; the follower looks only at 6.
        let connection = model.openConnection(at: 5)
        _ = model.send(100, .up, on: connection, at: 5)
        let published = follower.look(at: model, recorded: model.takeRecentEvents(), through: 6)
        #expect(published.first == .outageEnded(at: 3, startedAt: 1))
        let radio = published.dropFirst().compactMap { event -> Double? in
            if case .radioState(let at, _, _) = event { return at }
            return nil
        }
        #expect(!radio.isEmpty && radio.allSatisfy { $0 >= 5 } && radio == radio.sorted())
    }

    @Test("a handover comes before the fresh radio's state it causes, at the same time")
    func handoverBeforeItsRadio() throws {
        var model = DeviceModel(profile: Self.profile, seed: 1)
        var follower = PhoneEventFollower(radioState: model.radioState(at: 0))
        let connection = model.openConnection(at: 1)
        _ = model.send(100, .up, on: connection, at: 1)
        _ = follower.look(at: model, recorded: model.takeRecentEvents(), through: 2)
        _ = model.trigger(.handover(to: "wifi", mode: .keep, gap: 0), at: 3)
        let published = follower.look(at: model, recorded: model.takeRecentEvents(), through: 3)
        #expect(names(published).suffix(2) == ["handover", "radio-state"])
        guard case .radioState(let at, let state, _) = try #require(published.last) else { return }
        #expect(at == 3 && state == model.radioState(at: 3))
    }
}
