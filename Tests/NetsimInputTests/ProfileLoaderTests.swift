import Foundation
import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@Suite("Profile loader: what a valid profile means", .computes)
struct ProfileLoaderTests {
    @Test("the README's full example reads into the expected profile")
    func fullExample() throws {
        let profile = try loadProfile(
            """
            name: commute
            description: A test of every field.
            start: lte
            networks:
              wifi:
                radio: wifi
              lte:
                radio: {model: lte, promotionTime: 400ms, longDRXTime: 11.456s}
                link:
                  delay: 20ms
                  up: {rate: 5mbps, delay: 25ms, jitter: 5ms, loss: 0.5%, queue: 256KiB}
                  down:
                    trace: traces/x.down
                    jitter: {amount: 10ms, distribution: pareto, reorder: false}
                    loss: {model: gilbert-elliott, enterBad: 1%, leaveBad: 30%, lossInBad: 100%, lossInGood: 0%}
                    queue: 100packets
            nat: {idleTimeout: 5m, mode: reset}
            timeline:
              repeat: 10m
              events:
                - at: 3m
                  set: {network: lte, link: {down: {rate: 1mbps}}}
                - at: 60s
                  outage: {duration: 20s, mode: stall}
                - at: 2m
                  handover: {to: wifi, mode: keep, gap: 2s}
            """,
            traces: ["traces/x.down": "1\n2\n2\n10\n"])

        var lteRadio = LTERadioParameters()
        lteRadio.promotionTime = 0.4
        lteRadio.longDRXTime = 11.456
        let expected = Profile(
            name: "commute", description: "A test of every field.",
            networks: [
                Network(name: "wifi", radio: .wifi(WiFiRadioParameters()), up: LinkParameters(), down: LinkParameters()),
                Network(
                    name: "lte", radio: .lte(lteRadio),
                    up: LinkParameters(
                        capacity: .rate(bitsPerSecond: 5e6), delay: 0.025, jitter: Jitter(amount: 0.005),
                        loss: .independent(probability: 0.005), queueLimit: 262_144),
                    down: LinkParameters(
                        capacity: .trace(DeliveryTrace(opportunitiesMs: [1, 2, 2, 10], source: "traces/x.down")),
                        delay: 0.02, jitter: Jitter(amount: 0.01, distribution: .pareto, reordersDatagrams: false),
                        loss: .gilbertElliott(enterBad: 0.01, leaveBad: 0.3, lossInBad: 1, lossInGood: 0),
                        queueLimit: 150_000)),
            ],
            start: "lte", nat: NATPolicy(idleTimeout: 300, mode: .reset),
            timeline: Timeline(
                events: [
                    TimelineEvent(at: 60, kind: .outage(duration: 20, mode: .stall)),
                    TimelineEvent(at: 120, kind: .handover(to: "wifi", mode: .keep, gap: 2)),
                    TimelineEvent(
                        at: 180,
                        kind: .set(network: "lte", up: LinkChange(), down: LinkChange(capacity: .rate(bitsPerSecond: 1e6)))),
                ],
                repeatPeriod: 600))
        #expect(profile == expected)
    }

    @Test("defaults: the first network starts, no NAT, no events, unshaped links")
    func defaults() throws {
        let profile = try loadProfile(profileHeader)
        #expect(profile.start == "lte")
        #expect(profile.nat == nil)
        #expect(profile.timeline == Timeline())
        #expect(profile.networks == [Network(name: "lte", radio: .lte(LTERadioParameters()), up: LinkParameters(), down: LinkParameters())])
    }

    @Test("a plain timeline list; events at the same time keep their order; handover defaults to reset, no gap")
    func timelineList() throws {
        let profile = try loadProfile(
            profileHeader + """
                timeline:
                  - at: 2m
                    set: {link: {delay: 5ms}}
                  - at: 1m
                    handover: {to: lte}
                  - at: 1m
                    outage: {duration: 1s, mode: blackhole}
                """)
        #expect(profile.timeline.repeatPeriod == nil)
        #expect(
            profile.timeline.events == [
                TimelineEvent(at: 60, kind: .handover(to: "lte", mode: .reset, gap: 0)),
                TimelineEvent(at: 60, kind: .outage(duration: 1, mode: .blackhole)),
                TimelineEvent(at: 120, kind: .set(network: nil, up: LinkChange(delay: 0.005), down: LinkChange(delay: 0.005))),
            ])
    }

    @Test("a set event changes only the fields it gives; 0ms jitter and unlimited remove a limit")
    func setEvent() throws {
        let profile = try loadProfile(
            profileHeader + """
                timeline:
                  - at: 1s
                    set: {link: {jitter: 0ms, queue: unlimited, up: {rate: unlimited, loss: 0%}}}
                """)
        let expectedDown = LinkChange(jitter: .some(nil), queueLimit: .some(nil))
        let expectedUp = LinkChange(capacity: .unlimited, jitter: .some(nil), loss: LossModel.none, queueLimit: .some(nil))
        #expect(profile.timeline.events == [TimelineEvent(at: 1, kind: .set(network: nil, up: expectedUp, down: expectedDown))])
    }

    @Test("radio overrides for every model keep the other defaults", arguments: RadioTechnology.allCases)
    func radioModels(technology: RadioTechnology) throws {
        let profile = try loadProfile(
            """
            name: test
            description: radio \(technology.rawValue)
            networks:
              n:
                radio: {model: \(technology.rawValue)}
            """)
        #expect(profile.networks[0].radio == RadioParameters.defaults(for: technology))
    }

    @Test("anchors, aliases and merge keys share settings; explicit keys win over merged ones")
    func anchorsAndMerges() throws {
        let profile = try loadProfile(
            """
            name: test
            description: d
            networks:
              a:
                radio: lte
                link: &shared {delay: 25ms, down: {rate: 12mbps}}
              b:
                radio: lte
                link: *shared
              c:
                radio: lte
                link: {<<: *shared, delay: 40ms}
            """)
        #expect(profile.networks[0].down == profile.networks[1].down)
        #expect(profile.networks[2].down == LinkParameters(capacity: .rate(bitsPerSecond: 12e6), delay: 0.04))
        #expect(profile.networks[2].up == LinkParameters(delay: 0.04))
    }

    @Test("independent loss given as a mapping equals the plain percentage")
    func independentLoss() throws {
        let mapping = try loadProfile(profileHeader + "    link: {loss: {model: independent, probability: 2%}}")
        let plain = try loadProfile(profileHeader + "    link: {loss: 2%}")
        #expect(mapping.networks[0].up.loss == .independent(probability: 0.02))
        #expect(mapping == plain)
    }
}

@Suite("Profile loader: errors point at the node and say what is wrong", .computes)
struct ProfileErrorTests {
    private func expectError(
        _ yaml: String, traces: [String: String] = [:], line: Int, column: Int, _ message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            profileError(yaml, traces: traces)
                == InputFileError(file: "test.yaml", line: line, column: column, message: message),
            sourceLocation: sourceLocation)
    }

    @Test("the description is FILE:LINE:COLUMN: MESSAGE")
    func description() {
        let error = InputFileError(file: "a.yaml", line: 3, column: 7, message: "oops")
        #expect(error.description == "a.yaml:3:7: oops")
    }

    @Test("an unknown key names where it was, the nearest valid key and all of them")
    func unknownKey() {
        expectError(
            profileHeader + """
                    link:
                      up: {rate: 5mbps, delai: 20ms}
                """, line: 7, column: 25,
            "unknown key 'delai' in link 'up' of network 'lte'; did you mean 'delay'?"
                + " (valid keys: rate, trace, delay, jitter, loss, queue)")
        expectError(
            profileHeader + "timelime: []", line: 6, column: 1,
            "unknown key 'timelime' in the profile; did you mean 'timeline'?"
                + " (valid keys: name, description, start, networks, nat, timeline)")
        expectError(
            profileHeader + "color: blue", line: 6, column: 1,
            "unknown key 'color' in the profile (valid keys: name, description, start, networks, nat, timeline)")
    }

    @Test("an unknown radio parameter suggests the nearest one of that model")
    func unknownRadioParameter() throws {
        let error = try #require(
            profileError(
                """
                name: test
                description: d
                networks:
                  lte:
                    radio: {model: lte, promotionTme: 400ms}
                """))
        #expect((error.line, error.column) == (5, 25))
        #expect(
            error.message.hasPrefix(
                "unknown key 'promotionTme' in the radio of network 'lte'; did you mean 'promotionTime'?"
                    + " (valid keys: model, promotionTime, "))
        let inactiveOnNSA = try #require(
            profileError("name: t\ndescription: d\nnetworks:\n  nr:\n    radio: {model: nr-nsa, inactiveTail: 1s}"))
        #expect((inactiveOnNSA.line, inactiveOnNSA.column) == (5, 28))
        #expect(inactiveOnNSA.message.hasPrefix("unknown key 'inactiveTail' in the radio of network 'nr' (valid keys: "))
    }

    @Test("a merged key that is not valid is reported where it was written")
    func badMergedKey() {
        expectError(
            profileHeader.replacingOccurrences(of: "radio: lte", with: "radio: &r {model: lte}")
                + "  b:\n    radio: lte\n    link: {<<: *r}",
            line: 5, column: 16,
            "unknown key 'model' in the link of network 'b' (valid keys: rate, trace, delay, jitter, loss, queue, up, down)")
        expectError(
            profileHeader + "    link: {<<: 5ms}", line: 6, column: 16,
            "'<<' in the link of network 'lte' must be a mapping to merge, not '5ms'")
        expectError(
            profileHeader + "    link: {'': 5ms}", line: 6, column: 12, "a key in the link of network 'lte' must be a name, not ''")
    }

    @Test("a value of the wrong type says what was expected and what was found")
    func wrongType() {
        expectError(
            profileHeader.replacingOccurrences(of: "    radio: lte\n", with: "    radio: lte\n    link: 5mbps\n"),
            line: 6, column: 11, "the link of network 'lte' must be a mapping, not '5mbps'")
        expectError(
            "name: [a, b]\ndescription: d\nnetworks: {lte: {radio: lte}}", line: 1, column: 7,
            "'name' in the profile must be a text, not a list")
        expectError("- a\n- b", line: 1, column: 1, "the profile must be a mapping, not a list")
        expectError(
            profileHeader + "timeline: 5", line: 6, column: 11, "the timeline must be a list, not '5'")
    }

    @Test("a bare number asks for a unit")
    func missingUnit() {
        expectError(
            profileHeader + "    link: {delay: 20}", line: 6, column: 19,
            "'delay' in the link of network 'lte': '20' has no unit; add a unit, e.g. 20ms")
        expectError(
            profileHeader + "    link: {up: {rate: 5}}", line: 6, column: 23,
            "'rate' in link 'up' of network 'lte': '5' has no unit; add a unit, e.g. 5kbps")
    }

    @Test("a bad unit repeats Quantity's explanation")
    func badUnit() {
        expectError(
            profileHeader + "    link: {delay: 20sec}", line: 6, column: 19,
            "'delay' in the link of network 'lte': '20sec' is not a duration such as 250ms, 1.5s or 2m")
        expectError(
            profileHeader + "    link: {loss: 150%}", line: 6, column: 18,
            "'loss' in the link of network 'lte': '150%' is not a percentage from 0% to 100%")
        expectError(
            profileHeader + "    link: {queue: 0B}", line: 6, column: 19,
            "'queue' in the link of network 'lte': '0B' is not a size from 1 byte to under 1 TB")
    }

    @Test("a missing key is reported at the mapping that lacks it")
    func missingKey() {
        expectError(
            "name: test\ndescription: d\nnetworks:\n  lte:\n    link: {delay: 1ms}", line: 5, column: 5,
            "network 'lte' needs 'radio'")
        expectError("name: test\ndescription: d", line: 1, column: 1, "the profile needs 'networks'")
        expectError(
            profileHeader + "timeline:\n  - outage: {duration: 1s}", line: 7, column: 5, "timeline event 1 needs 'at'")
        expectError(
            profileHeader + "nat: {mode: reset}", line: 6, column: 6,
            "'nat' needs 'idleTimeout' (TCP mappings), 'udpIdleTimeout' (UDP mappings) or both")
    }

    @Test("a NAT may forget UDP mappings only, or both kinds on their own timeouts")
    func udpNAT() throws {
        #expect(try loadProfile(profileHeader + "nat: {udpIdleTimeout: 30s}").nat == NATPolicy(idleTimeout: nil, udpIdleTimeout: 30))
        #expect(
            try loadProfile(profileHeader + "nat: {idleTimeout: 5m, udpIdleTimeout: 45s, mode: reset}").nat
                == NATPolicy(idleTimeout: 300, mode: .reset, udpIdleTimeout: 45))
        expectError(
            profileHeader + "nat: {udpIdleTimeout: 0s}", line: 6, column: 23, "'udpIdleTimeout' in 'nat' must be longer than zero")
    }

    @Test("an unknown radio model or enumeration value suggests the nearest")
    func unknownValues() {
        expectError(
            profileHeader.replacingOccurrences(of: "radio: lte", with: "radio: lt"), line: 5, column: 12,
            "the radio of network 'lte': unknown radio 'lt'; did you mean 'lte'?"
                + " (expected one of: lte, umts, nr-nsa, nr-sa, wifi, none, \(RadioCatalog.builtinNames.joined(separator: ", ")))")
        expectError(
            profileHeader + "timeline:\n  - at: 1s\n    outage: {duration: 1s, mode: stal}", line: 8, column: 34,
            "'mode' in the outage of timeline event 1: unknown value 'stal'; did you mean 'stall'?"
                + " (expected one of: stall, blackhole, reset)")
        expectError(
            profileHeader + "    link: {jitter: {amount: 1ms, distribution: gauss}}", line: 6, column: 48,
            "'distribution' in 'jitter' in the link of network 'lte': unknown value 'gauss'"
                + " (expected one of: uniform, normal, pareto)")
        expectError(
            profileHeader + "    link: {jitter: {amount: 1ms, reorder: sometimes}}", line: 6, column: 43,
            "'reorder' in 'jitter' in the link of network 'lte' must be true or false, not 'sometimes'")
    }

    /// Two networks, so that names can be nearly right: lines 1-7.
    private let twoNetworks = """
        name: test
        description: d
        networks:
          lte:
            radio: lte
          wifi:
            radio: wifi

        """

    @Test("start, a handover's to and a set's network must name a network")
    func unknownNetwork() {
        expectError(
            "start: lte\n" + twoNetworks.replacingOccurrences(of: "  lte:\n    radio: lte\n", with: ""),
            line: 1, column: 8, "'start' in the profile: no network named 'lte' (networks: wifi)")
        expectError(
            twoNetworks + "timeline:\n  - at: 1s\n    handover: {to: wfi}", line: 10, column: 20,
            "'to' in the handover of timeline event 1: no network named 'wfi'; did you mean 'wifi'? (networks: lte, wifi)")
        expectError(
            twoNetworks + "timeline:\n  - at: 1s\n    set: {network: LTE, link: {delay: 1ms}}", line: 10, column: 20,
            "'network' in the set of timeline event 1: no network named 'LTE'; did you mean 'lte'? (networks: lte, wifi)")
    }

    @Test("a network name given twice is a duplicate key")
    func duplicateNetwork() {
        expectError(
            twoNetworks + "  lte:\n    radio: umts", line: 4, column: 3,
            "duplicate key 'lte': each key may appear only once in a mapping")
    }

    @Test("rate and trace exclude each other")
    func rateAndTrace() {
        expectError(
            profileHeader + "    link: {rate: 1mbps, trace: x.down}", line: 6, column: 32,
            "the link of network 'lte' gives both 'rate' and 'trace'; give one (the trace sets the rate)")
    }

    @Test("a trace that cannot be read, or is malformed, is reported at its key with the trace's own line")
    func badTraces() {
        expectError(
            profileHeader + "    link: {down: {trace: missing.down}}", line: 6, column: 26,
            "'trace' in link 'down' of network 'lte': cannot read trace file 'missing.down': no such file")
        expectError(
            profileHeader + "    link: {down: {trace: bad.down}}", traces: ["bad.down": "10\n5\n"], line: 6, column: 26,
            "'trace' in link 'down' of network 'lte': trace file 'bad.down', line 2: 5 is less than the line before (10):"
                + " values must not decrease")
    }

    @Test("repeat must hold the last event and its duration")
    func repeatTooShort() {
        expectError(
            profileHeader + "timeline:\n  repeat: 1m\n  events:\n    - at: 50s\n      outage: {duration: 20s}",
            line: 7, column: 11,
            "'repeat' (60s) is shorter than the timeline: timeline event 1 (outage at 50s) lasts until 70s")
    }

    @Test("durations that must be positive")
    func zeroDurations() {
        expectError(
            profileHeader + "timeline:\n  - at: 1s\n    outage: {duration: 0s}", line: 8, column: 24,
            "'duration' in the outage of timeline event 1 must be longer than zero")
        expectError(
            profileHeader + "nat: {idleTimeout: 0m}", line: 6, column: 20, "'idleTimeout' in 'nat' must be longer than zero")
        expectError(
            profileHeader.replacingOccurrences(of: "radio: lte", with: "radio: {model: lte, pagingCycle: 0s}"),
            line: 5, column: 38, "'pagingCycle' in the radio of network 'lte' must be longer than zero")
    }

    @Test("an event has exactly one kind, and outages do not overlap")
    func eventShape() {
        expectError(
            profileHeader + "timeline:\n  - at: 1s", line: 7, column: 5,
            "timeline event 1 needs exactly one of 'outage', 'handover', 'set' or 'signal'; it has none")
        expectError(
            profileHeader + "timeline:\n  - {at: 1s, outage: {duration: 1s}, handover: {to: lte}}", line: 7, column: 5,
            "timeline event 1 needs exactly one of 'outage', 'handover', 'set' or 'signal'; it has 'outage' and 'handover'")
        expectError(
            profileHeader + "timeline:\n  - at: 10s\n    outage: {duration: 30s}\n  - at: 20s\n    handover: {to: lte}",
            line: 9, column: 5,
            "timeline event 2 (handover at 20s) starts during the outage from 10s to 40s")
        expectError(
            profileHeader + "timeline:\n  - at: 1s\n    set: {link: {}}", line: 8, column: 10,
            "the set of timeline event 1 changes nothing: give at least one link field")
    }

    @Test("YAML syntax errors keep libyaml's position")
    func syntaxErrors() throws {
        let unclosed = try #require(profileError("name: test\ndescription: [unclosed\nnetworks: {}"))
        #expect(unclosed.file == "test.yaml")
        #expect(unclosed.message.hasPrefix("YAML syntax error: "))
        #expect((unclosed.line, unclosed.column) == (3, 9))
        let badIndent = try #require(profileError("name: test\n  description: d"))
        #expect((badIndent.line, badIndent.column) == (2, 14))
        expectError("", line: 1, column: 1, "the profile is empty")
        expectError("# only a comment\n", line: 1, column: 1, "the profile is empty")
    }

    @Test("a trace file over the bound is refused before it is read, naming the file and the bound")
    func aTraceFileOverTheBound() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Sparse: the size is claimed, not written.
        #expect(FileManager.default.createFile(atPath: directory + "/huge.trace", contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: directory + "/huge.trace"))
        try handle.truncate(atOffset: UInt64(DeliveryTrace.maximumFileBytes + 1))
        try handle.close()
        let profile = "name: t\ndescription: t\nnetworks:\n  lte:\n    radio: none\n    link: {down: {trace: huge.trace}}\n"
        #expect(FileManager.default.createFile(atPath: directory + "/t.yaml", contents: Data(profile.utf8)))
        let error = #expect(throws: (any Error).self) { try ProfileLoader.load(path: directory + "/t.yaml") }
        let message = "\(error.map { "\($0)" } ?? "")"
        #expect(message.contains("huge.trace"), "\(message)")
        #expect(message.contains("over the \(DeliveryTrace.maximumFileBytes)-byte bound"), "\(message)")
    }
}
