import NetsimCore
import NetsimTestSupport
import Testing

/// Profiles written to break netsim: values whose arithmetic would overflow, timelines that
/// would fire without end, YAML that would expand without end. Each is a located error.
@Suite("Profile loader: hostile values", .computes)
struct HostileProfileTests {
    /// The error for `yaml`, which must exist.
    private func message(_ yaml: String) throws -> String {
        let error = try #require(profileError(yaml))
        return "\(error.line):\(error.column): \(error.message)"
    }

    @Test(
        "a duration beyond 30 days is refused wherever it is, even one that overflows to infinity through its unit",
        arguments: [
            ("    link: {delay: 10000000000s}", "6:19: 'delay' in the link of network 'lte': '10000000000s'"),
            ("timeline:\n  - at: 1s\n    outage: {duration: 9300000000s}", "8:24: 'duration' in the outage of timeline event 1"),
            ("timeline:\n  - at: 100000000000000000000s\n    outage: {duration: 1s}", "7:9: 'at' in timeline event 1"),
            (
                "timeline:\n  - at: 1" + String(repeating: "0", count: 306) + "h\n    outage: {duration: 1s}",
                "7:9: 'at' in timeline event 1"
            ),
        ])
    func durationsBeyondTheRange(snippet: String, located: String) throws {
        let text = try message(profileHeader + snippet)
        #expect(text.hasPrefix(located), "\(text)")
        #expect(text.hasSuffix("is not a duration of at most 30 days (720h)"), "\(text)")
    }

    @Test("a radio parameter beyond 30 days is refused")
    func radioDuration() throws {
        let text = try message(
            profileHeader.replacingOccurrences(of: "radio: lte", with: "radio: {model: lte, promotionTime: 9300000000s}"))
        #expect(text == "5:40: 'promotionTime' in the radio of network 'lte': '9300000000s' is not a duration of at most 30 days (720h)")
    }

    @Test("a rate below 1 kbit/s or above 1 Tbit/s is refused, the floor named")
    func ratesBeyondTheRange() throws {
        #expect(
            try message(profileHeader + "    link: {rate: 0.0000001bps}")
                == "6:18: 'rate' in the link of network 'lte': '0.0000001bps' is not a rate from 1kbps (the floor: a 1500-byte packet takes 12 s there) to 1000gbps"
        )
        #expect(
            try message(profileHeader + "    link: {rate: 80bps}")
                == "6:18: 'rate' in the link of network 'lte': '80bps' is not a rate from 1kbps (the floor: a 1500-byte packet takes 12 s there) to 1000gbps"
        )
        #expect(
            try message(profileHeader + "    link: {rate: 2000gbps}")
                == "6:18: 'rate' in the link of network 'lte': '2000gbps' is not a rate from 1kbps (the floor: a 1500-byte packet takes 12 s there) to 1000gbps"
        )
    }

    @Test("30 days is still accepted")
    func theLongestDuration() throws {
        let profile = try loadProfile(profileHeader + "timeline:\n  - at: 720h\n    outage: {duration: 1s}")
        #expect(profile.timeline.events.first?.at == Quantity.maximumDuration)
    }

    @Test("a timeline may not repeat faster than once a second")
    func repeatBelowTheMinimum() throws {
        #expect(
            try message(profileHeader + "timeline:\n  repeat: 0.000001ms\n  events:\n    - at: 0s\n      outage: {duration: 0.0000001ms}")
                == "7:11: 'repeat' in the timeline must be at least 1s, not '0.000001ms'")
        #expect(
            try message(profileHeader + "timeline:\n  repeat: 0s\n  events: []")
                == "7:11: 'repeat' in the timeline must be at least 1s, not '0s'")
        let atTheMinimum = try loadProfile(profileHeader + "timeline:\n  repeat: 1s\n  events: []")
        #expect(atTheMinimum.timeline.repeatPeriod == 1)
    }

    /// A link of `levels` nested merges, each level `{<<: [LEVEL BELOW, *LEVEL BELOW]}`: each
    /// level doubles the merges of the one below, in a file that grows by a line.
    private func mergeBomb(levels: Int) -> String {
        var link = "&l0 {delay: 1ms}"
        for level in 1...levels {
            link = "&l\(level) {<<: [\(link), *l\(level - 1)]}"
        }
        return profileHeader + "    link: \(link)"
    }

    /// It takes milliseconds alone; the limit only stops an expansion that would never end.
    /// In the pure lane, at nice 19 beside the live lanes and hundreds of computing tests, it
    /// once took 80 s from its start to its end: three minutes, not one.
    @Test("a YAML merge-key bomb is refused at once, not expanded", .timeLimit(.minutes(3)))
    func mergeBomb() throws {
        let text = try message(mergeBomb(levels: 40))
        #expect(text.contains("merge keys ('<<') in this profile expand more than 1000 mappings"), "\(text)")
    }

    @Test("merge keys within the budget still merge")
    func modestMerges() throws {
        let profile = try loadProfile(mergeBomb(levels: 8))
        #expect(profile.networks[0].up.delay == 0.001)
    }
}
