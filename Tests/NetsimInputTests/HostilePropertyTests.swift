import NetsimTestSupport
import PropertyBased
import Testing

@testable import NetsimCore

/// Values as a hostile profile, flag or request writes them: from one digit to 400, maybe with a
/// decimal point anywhere, in any unit of their kind.
enum HostileValues {
    static var number: Generator<String, some Sequence & SendableMetatype> {
        zip(Gen.number.string(of: 1...400), Gen.int(in: 0...400)).map { digits, point -> String in
            guard point < digits.count else { return digits }
            return String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
        }
    }

    static func quantity(units: [String]) -> Generator<String, some Sequence & SendableMetatype> {
        zip(number, Gen.int(in: 0...(units.count - 1))).map { number, unit in number + units[unit] }
    }

    static var duration: Generator<String, some Sequence & SendableMetatype> { quantity(units: ["ms", "s", "m", "h"]) }
    static var rate: Generator<String, some Sequence & SendableMetatype> { quantity(units: ["bps", "kbps", "mbps", "gbps"]) }
}

@Suite("Hostile values, generated", .computes)
struct HostilePropertyTests {
    @Test("any duration or rate text parses into its range or is refused")
    func quantities() async {
        await propertyCheck(count: 300, input: HostileValues.duration, HostileValues.rate) { duration, rate in
            if let seconds = try? Quantity.duration(duration) {
                #expect((0...Quantity.maximumDuration).contains(seconds), "\(duration)")
            }
            if let bitsPerSecond = try? Quantity.bitRate(rate) {
                #expect(Quantity.bitRateRange.contains(bitsPerSecond), "\(rate)")
            }
        }
    }

    @Test("a profile of extreme values is refused with a located error, or runs a model that never traps or stalls")
    func profiles() async {
        await propertyCheck(
            count: 200, input: zip(HostileValues.duration, HostileValues.rate), zip(HostileValues.duration, HostileValues.duration),
            HostileValues.duration
        ) { link, timeline, period in
            let yaml =
                profileHeader + """
                        link: {delay: \(link.0), rate: \(link.1)}
                    timeline:
                      repeat: \(period)
                      events:
                        - at: \(timeline.0)
                          outage: {duration: \(timeline.1)}
                    """
            guard let profile = try? loadProfile(yaml) else {
                let error = profileError(yaml)
                #expect(error.map { (6...11).contains($0.line) } == true, "\(String(describing: error))")
                return
            }
            #expect((profile.timeline.repeatPeriod ?? 1) >= Timeline.minimumRepeatPeriod)
            var device = DeviceModel(profile: profile, seed: 1)
            let connection = device.openConnection(at: 0)
            for time in [0, 1, 3600, Quantity.maximumDuration] {
                _ = device.advance(to: time, limit: 64)
                for direction in Direction.allCases {
                    if case .deliver(let delivery) = device.send(1500, direction, on: connection, at: time) {
                        #expect(delivery.at.isFinite && delivery.at >= time, "\(yaml)")
                    }
                }
            }
        }
    }
}
