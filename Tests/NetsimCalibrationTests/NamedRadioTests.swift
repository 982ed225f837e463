import NetsimCalibration
import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@Suite(.computes) struct NamedRadioTests {
    static func profile(radio: String) -> String {
        """
        name: p
        description: d
        networks:
          cell:
            radio: \(radio)
        """
    }

    static func load(_ yaml: String) throws -> Profile {
        try ProfileLoader.load(yaml: yaml, source: "p.yaml") { _ in "" }
    }

    /// The NR parameters `profile`'s first network got, and tmobile-sa's as fitted.
    static func overriddenAndFittedTMobileSA(_ profile: Profile) throws -> (NRRadioParameters, NRRadioParameters) {
        guard case .nr(let nr) = profile.networks[0].radio, case .nr(let fitted) = try RadioCatalog.builtin(named: "tmobile-sa")?.parameters
        else { throw NotNR() }
        return (nr, fitted)
    }

    struct NotNR: Error {}

    @Test func everyBuiltinNamedRadioLoads() throws {
        #expect(RadioCatalog.builtinNames.contains("verizon-lte"))
        #expect(RadioCatalog.builtinNames.contains("huang2012-lte"))
        for name in RadioCatalog.builtinNames {
            let radio = try #require(try RadioCatalog.builtin(named: name))
            #expect(radio.name == name)
            #expect(RadioStages(radio.parameters) != nil)
        }
    }

    @Test func aProfileNamesARadioAsItNamesATechnology() throws {
        let profile = try Self.load(Self.profile(radio: "verizon-lte"))
        #expect(profile.networks[0].radio == (try RadioCatalog.builtin(named: "verizon-lte"))?.parameters)
    }

    @Test func aNamedRadioIsAModelToOverride() throws {
        let profile = try Self.load(Self.profile(radio: "{model: tmobile-sa, resumeTime: 50ms}"))
        let (nr, fitted) = try Self.overriddenAndFittedTMobileSA(profile)
        #expect(nr.resumeTime == 0.05)
        #expect(nr.beta == fitted.beta)
        #expect(nr.standalone)
    }

    @Test func aPhonesSignalMovesItsConnectedPowerBySlopePerDecibel() throws {
        // tmobile-sa's fitted slope, at -100 dBm: 10 dB below the reference, so beta + 10 x slope
        // while CONNECTED, and the same paging power as at the reference.
        let profile = try Self.load(Self.profile(radio: "{model: tmobile-sa, rsrp: -100dBm}"))
        let (nr, fitted) = try Self.overriddenAndFittedTMobileSA(profile)
        #expect(fitted.rsrpSlope > 0)
        #expect(nr.rsrp == -100)
        let weak = try #require(RadioStages(profile.networks[0].radio))
        let reference = try #require(RadioStages(.nr(fitted)))
        #expect(abs(weak.stages[0].power - (fitted.beta + 10 * fitted.rsrpSlope)) < 1e-12)
        #expect(weak.stages.last?.power == reference.stages.last?.power)
        // A signal change in the run prices from the change on: back at -90 dBm it is beta.
        #expect(abs(weak.connectedPower(atSignal: -90) - fitted.beta) < 1e-12)
    }

    @Test func aTimelineMovesTheSignal() throws {
        let yaml = Self.profile(radio: "tmobile-sa") + "\ntimeline:\n  - at: 30s\n    signal: -110dBm\n"
        let profile = try Self.load(yaml)
        #expect(profile.timeline.events == [TimelineEvent(at: 30, kind: .signal(rsrp: -110))])
        #expect(profile.timeline.events[0].summary == "signal -110dBm")
        let error = #expect(throws: InputFileError.self) {
            try Self.load(Self.profile(radio: "tmobile-sa") + "\ntimeline:\n  - at: 30s\n    signal: -110\n")
        }
        #expect(error?.message.contains("add a unit, e.g. -110dBm") == true)
        #expect(error?.line == 8)
    }

    @Test func aSignalOutsideWhatPhonesReportIsAnError() {
        let error = #expect(throws: InputFileError.self) { try Self.load(Self.profile(radio: "{model: tmobile-sa, rsrp: -20dBm}")) }
        #expect(error?.message.contains("-156dBm to -31dBm") == true)
        #expect(throws: InputFileError.self) { try Self.load(Self.profile(radio: "{model: tmobile-sa, rsrp: 100dBm}")) }
    }

    @Test func huang2012IsTheLTEModelAsPublished() throws {
        // As written in its file, every figure the published default (compared as printed: 51.97
        // mW read from the file is not bit for bit the literal 0.05197 W).
        let fields = try #require(try RadioCatalog.builtin(named: "huang2012-lte")).parameters.formattedFields
        #expect(fields.map(\.key) == RadioParameters.lte(LTERadioParameters()).formattedFields.map(\.key))
        #expect(fields.map(\.value) == RadioParameters.lte(LTERadioParameters()).formattedFields.map(\.value))
    }

    @Test func aMisspeltRadioIsAnErrorWithTheNearestName() {
        let error = #expect(throws: InputFileError.self) { try Self.load(Self.profile(radio: "verizon-lt")) }
        #expect(error?.message.contains("unknown radio 'verizon-lt'") == true)
        #expect(error?.message.contains("did you mean 'verizon-lte'") == true)
        #expect(error?.line == 5)
    }

    @Test func aRadioFileCannotNameAnotherNamedRadio() {
        let yaml = """
            name: loop
            description: d
            radio: verizon-lte
            """
        let error = #expect(throws: InputFileError.self) { try RadioCatalog.load(yaml: yaml, source: "loop.yaml") }
        #expect(error?.message.contains("unknown radio 'verizon-lte'") == true)
    }

    @Test func theFittedYAMLReadsBackToTheSameParameters() throws {
        for name in RadioCatalog.builtinNames {
            let radio = try #require(try RadioCatalog.builtin(named: name))
            let yaml = RadioFit.yaml(name: name, description: radio.description, parameters: radio.parameters, comments: ["c"])
            #expect(try RadioCatalog.load(yaml: yaml, source: "x.yaml").parameters == radio.parameters)
        }
    }
}
