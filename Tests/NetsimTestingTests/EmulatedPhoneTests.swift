import NetsimCore
import NetsimProxy
import NetsimReport
import NetsimTestSupport
import NetsimTesting
import Testing

/// What `EmulatedPhone` refuses, with the profile's rules and messages.
@Suite(.playsLive) struct EmulatedPhoneTests {
    @Test("a bad profile, upstream or change is an error that says what is wrong")
    func refusals() async throws {
        await #expect(throws: (any Error).self) {
            try await EmulatedPhone.start(profile: "lte-tunel", upstream: "127.0.0.1:1")
        }
        let badUpstream = await #expect(throws: EmulatedPhoneError.self) {
            try await EmulatedPhone.start(profile: "lte-good", upstream: "localhost")
        }
        #expect(badUpstream?.description.contains("HOST:PORT") == true)

        let phone = try await EmulatedPhone.start(profile: "lte-handover", upstream: "127.0.0.1:1")
        let unknownNetwork = await #expect(throws: LiveChangeError.self) { try await phone.handover(to: "5g") }
        #expect(unknownNetwork?.description.contains("no network named '5g'") == true)
        await #expect(throws: LiveChangeError.self) { try await phone.outage(.zero) }
        let badChange = await #expect(throws: (any Error).self) { try await phone.set("link: {delai: 1ms}") }
        #expect("\(badChange!)".contains("did you mean 'delay'"))

        let moved = try await phone.set("link: {delay: 100ms}")
        #expect(moved?.kind == .set)
        #expect(try await phone.report().eventCounts[.set] == 1)

        // The run's gates, as a test asserts them.
        #expect(try await phone.breaches("eventCounts.set > 0", "eventCounts.outage > 0") == ["eventCounts.set = 1, which is > 0"])
        #expect(try await phone.breaches("eventCounts.set > 1", "connections.reset > 0").isEmpty)
        await #expect(throws: Threshold.ParseError.self) { try await phone.breaches("radio.promotion > 1") }
        let final = try await phone.stop()
        #expect(try await phone.stop() == final, "stopping again returns the same report")
    }

    struct Failure: Error {}

    @Test("withEmulatedPhone stops the phone when its body throws, and passes the body's error on")
    func scopedPhoneStopsOnThrow() async throws {
        var thrownOut: EmulatedPhone?
        await #expect(throws: Failure.self) {
            try await withEmulatedPhone(profile: "lte-good", upstream: "127.0.0.1:1") { phone in
                thrownOut = phone
                #expect(!phone.isStopped)
                throw Failure()
            }
        }
        #expect(thrownOut?.isStopped == true)
        var returnedFrom: EmulatedPhone?
        let promotions = try await withEmulatedPhone(profile: "lte-good", upstream: "127.0.0.1:1") { phone in
            returnedFrom = phone
            return try await phone.report().radio.promotions
        }
        #expect(promotions == 0)
        #expect(returnedFrom?.isStopped == true)
    }
}
