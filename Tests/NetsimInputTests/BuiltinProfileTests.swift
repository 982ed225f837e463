import Foundation
import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@Suite("Built-in profiles", .computes)
struct BuiltinProfileTests {
    @Test("the expected built-ins exist")
    func names() {
        let required = [
            "lte-good", "lte-tunnel", "lte-handover", "umts-3g", "edge-2g", "nr-nsa", "nr-sa", "wifi-good", "subway",
            "very-bad-network", "lte-trace", "slow-3g", "slow-4g", "fast-4g", "nat-timeout",
        ]
        #expect(Set(required).isSubset(of: ProfileCatalog.builtinNames))
    }

    @Test("every built-in loads and is named as its file", arguments: ProfileCatalog.builtinNames)
    func loads(name: String) throws {
        let profile = try ProfileCatalog.builtin(named: name)
        #expect(profile.name == name)
        #expect(profile.description.count > 80, "the description should cite the figures' sources")
    }

    @Test("the embedded files match profiles/ (run scripts/embed-profiles.py if not)")
    func embeddedFilesInSync() throws {
        let directory = packageRoot + "/profiles"
        let fileManager = FileManager.default
        var onDisk: [String: String] = [:]
        for file in try fileManager.contentsOfDirectory(atPath: directory) where file.hasSuffix(".yaml") {
            onDisk[file] = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
        }
        for file in try fileManager.contentsOfDirectory(atPath: directory + "/radios") where file.hasSuffix(".yaml") {
            onDisk["radios/" + file] = try String(contentsOfFile: directory + "/radios/" + file, encoding: .utf8)
        }
        for file in try fileManager.contentsOfDirectory(atPath: directory + "/traces") {
            onDisk["traces/" + file] = try String(contentsOfFile: directory + "/traces/" + file, encoding: .utf8)
        }
        #expect(Set(ProfileCatalog.embeddedFiles.keys) == Set(onDisk.keys))
        for (path, text) in onDisk {
            #expect(ProfileCatalog.embeddedFiles[path] == text, "profiles/\(path) changed since it was embedded")
        }
    }

    /// The built-ins come from the compiled-in copies (the traces from their compact encoding):
    /// each must be the profile its file under profiles/ loads to, trace values included.
    @Test("every built-in equals its file under profiles/, traces included", arguments: ProfileCatalog.builtinNames)
    func builtinEqualsItsFile(name: String) throws {
        let fromFile = try ProfileLoader.load(path: packageRoot + "/profiles/\(name).yaml")
        #expect(try ProfileCatalog.builtin(named: name) == fromFile)
    }

    @Test("radio models are the cited defaults, or the measured phones' named radios")
    func radios() throws {
        func named(_ name: String) throws -> RadioParameters { try #require(try RadioCatalog.builtin(named: name)).parameters }
        let expected: [String: RadioParameters] = [
            "lte-good": try named("verizon-lte"), "lte-tunnel": try named("verizon-lte-walking"),
            "subway": try named("verizon-lte-walking"),
            "lte-trace": try named("verizon-lte-walking"), "nat-timeout": try named("verizon-lte"), "umts-3g": .defaults(for: .umts),
            "edge-2g": .defaults(for: .umts), "very-bad-network": .defaults(for: .umts),
            "nr-nsa": try named("verizon-nsa-low"), "nr-sa": try named("tmobile-sa"), "wifi-good": .wifi(WiFiRadioParameters()),
            "slow-3g": .none, "slow-4g": .none, "fast-4g": .none,
        ]
        for (name, radio) in expected {
            #expect(try ProfileCatalog.builtin(named: name).networks.map(\.radio) == [radio], "\(name)")
        }
    }

    /// (down rate, up rate, one-way delay) of the first network.
    private func figures(_ name: String) throws -> (down: LinkCapacity, up: LinkCapacity, delay: Double) {
        let network = try ProfileCatalog.builtin(named: name).networks[0]
        #expect(network.up.delay == network.down.delay)
        return (network.down.capacity, network.up.capacity, network.down.delay)
    }

    @Test(
        "published presets keep their figures",
        arguments: [
            // Chrome DevTools (latency is a round trip: half each way).
            ("slow-3g", 400e3, 400e3, 1.0), ("slow-4g", 1.44e6, 675e3, 0.28125), ("fast-4g", 8.1e6, 1.35e6, 0.0825),
            // Network Link Conditioner.
            ("umts-3g", 780e3, 330e3, 0.1), ("edge-2g", 240e3, 200e3, 0.4), ("wifi-good", 40e6, 33e6, 0.001),
        ])
    func presets(name: String, down: Double, up: Double, delay: Double) throws {
        let actual = try figures(name)
        #expect(actual.down == .rate(bitsPerSecond: down))
        #expect(actual.up == .rate(bitsPerSecond: up))
        #expect(abs(actual.delay - delay) < 1e-12)
    }

    @Test("lte-tunnel: a stalling outage of 20-40 s about a minute in, over within two minutes")
    func tunnel() throws {
        let timeline = try ProfileCatalog.builtin(named: "lte-tunnel").timeline
        let outages = timeline.events.compactMap { event -> (at: Double, duration: Double)? in
            guard case .outage(let duration, .stall) = event.kind else { return nil }
            return (event.at, duration)
        }
        let outage = try #require(outages.first)
        #expect(outages.count == 1)
        #expect((20...40).contains(outage.duration))
        #expect((30...90).contains(outage.at))
        #expect(timeline.events.allSatisfy { $0.at + $0.connectivityGap <= 120 })
    }

    @Test("lte-handover: WiFi to LTE and back")
    func handover() throws {
        let profile = try ProfileCatalog.builtin(named: "lte-handover")
        #expect(profile.start == "wifi")
        let targets = profile.timeline.events.compactMap { event -> String? in
            guard case .handover(let to, _, _) = event.kind else { return nil }
            return to
        }
        #expect(targets == ["lte", "wifi"])
    }

    @Test("subway repeats its outage; nat-timeout has a short silent NAT")
    func repeatsAndNAT() throws {
        let subway = try ProfileCatalog.builtin(named: "subway").timeline
        #expect(subway.repeatPeriod != nil)
        #expect(subway.events.contains { $0.kindName == "outage" })
        #expect(try ProfileCatalog.builtin(named: "nat-timeout").nat == NATPolicy(idleTimeout: 30, mode: .silent, udpIdleTimeout: 30))
    }

    @Test("lte-trace: synthetic traces near 4 Mbit/s down and 1 Mbit/s up, repeating every 30 s")
    func traces() throws {
        let network = try ProfileCatalog.builtin(named: "lte-trace").networks[0]
        guard case .trace(let down) = network.down.capacity, case .trace(let up) = network.up.capacity else {
            Issue.record("lte-trace should be trace-driven both ways")
            return
        }
        #expect(down.source == "traces/synthetic-lte-drive.down")
        #expect(down.period == 30 && up.period == 30)
        #expect((3e6...5e6).contains(down.meanBitsPerSecond))
        #expect((0.8e6...1.5e6).contains(up.meanBitsPerSecond))
    }

    @Test("very-bad-network: bursty loss around 5 % and heavy-tailed jitter")
    func veryBad() throws {
        let link = try ProfileCatalog.builtin(named: "very-bad-network").networks[0].down
        guard case .gilbertElliott(let enterBad, let leaveBad, let lossInBad, _) = link.loss else {
            Issue.record("expected Gilbert-Elliott loss")
            return
        }
        let meanLoss = enterBad / (enterBad + leaveBad) * lossInBad
        #expect((0.03...0.07).contains(meanLoss))
        #expect(link.jitter?.distribution == .pareto)
    }
}

@Suite("Profile resolution", .computes)
struct ProfileCatalogTests {
    /// A scratch working directory, removed when the test ends.
    private func withWorkingDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netsim-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/profiles", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    private let localProfile = """
        name: lte-good
        description: my own lte-good
        networks:
          wired:
            radio: none
            link: {down: {trace: ../traces/t.down}}
        """

    @Test("a name is ./profiles/NAME.yaml first, then the built-in")
    func nameResolution() throws {
        try withWorkingDirectory { directory in
            #expect(try ProfileCatalog.resolve("lte-good", workingDirectory: directory).description != "my own lte-good")
            try localProfile.write(toFile: directory + "/profiles/lte-good.yaml", atomically: true, encoding: .utf8)
            try FileManager.default.createDirectory(atPath: directory + "/traces", withIntermediateDirectories: true)
            try "5\n".write(toFile: directory + "/traces/t.down", atomically: true, encoding: .utf8)
            let local = try ProfileCatalog.resolve("lte-good", workingDirectory: directory)
            #expect(local.description == "my own lte-good")
            #expect(local.networks[0].down.capacity == .trace(DeliveryTrace(opportunitiesMs: [5], source: "../traces/t.down")))
            #expect(ProfileCatalog.localNames(workingDirectory: directory) == ["lte-good"])
        }
    }

    @Test("a path is read relative to the working directory, and its errors name it as given")
    func pathResolution() throws {
        try withWorkingDirectory { directory in
            try localProfile.write(toFile: directory + "/mine.yml", atomically: true, encoding: .utf8)
            let error = try #require(throws: InputFileError.self) {
                try ProfileCatalog.resolve("mine.yml", workingDirectory: directory)
            }
            #expect(
                error.description.hasPrefix(
                    "mine.yml:6:26: 'trace' in link 'down' of network 'wired': cannot read trace file '../traces/t.down': "))
            #expect(error.description.hasSuffix("/../traces/t.down: no such file"))
            #expect(throws: ProfileLookupError.unreadable(path: "./nothing.yaml", reason: "no such file")) {
                try ProfileCatalog.resolve("./nothing.yaml", workingDirectory: directory)
            }
        }
    }

    /// A trace that was `/dev/zero` or a FIFO hung the loader, a directory gave a
    /// raw error, an empty file "empty line". Each is named for what it is, at once.
    @Test("a trace that is a device, a FIFO, a directory or empty is named for what it is")
    func traceFileKinds() throws {
        try withWorkingDirectory { directory in
            let fifo = directory + "/fifo.down"
            #expect(mkfifo(fifo, 0o600) == 0)
            try "".write(toFile: directory + "/empty.down", atomically: true, encoding: .utf8)
            let cases = [
                ("/dev/zero", "/dev/zero: is a character device, not a file"),
                (fifo, "fifo.down: is a FIFO (named pipe), not a file"),
                (directory + "/profiles", "profiles: is a directory, not a file"),
                ("empty.down", "trace file 'empty.down', line 1: the trace is empty"),
            ]
            for (trace, message) in cases {
                try localProfile.replacingOccurrences(of: "../traces/t.down", with: trace)
                    .write(toFile: directory + "/mine.yaml", atomically: true, encoding: .utf8)
                let error = try #require(throws: InputFileError.self) {
                    try ProfileCatalog.resolve(directory + "/mine.yaml", workingDirectory: directory)
                }
                #expect(error.description.hasSuffix(message), "\(error)")
            }
        }
    }

    @Test("an unknown name lists the built-ins and suggests the nearest")
    func unknownName() throws {
        try withWorkingDirectory { directory in
            #expect(
                throws: ProfileLookupError.unknownName(
                    "lte-god", suggestion: "lte-good", builtinNames: ProfileCatalog.builtinNames)
            ) {
                try ProfileCatalog.resolve("lte-god", workingDirectory: directory)
            }
            let error = ProfileLookupError.unknownName("x", suggestion: nil, builtinNames: ["a", "b"])
            #expect(
                error.description
                    == "no profile named 'x': no profiles/x.yaml here and no built-in of that name (built-in profiles: a, b)")
        }
    }

    @Test(
        "what counts as a path",
        arguments: [
            ("lte-good", false), ("profiles/x", true), ("x.yaml", true), ("x.yml", true), ("/abs/x", true),
        ])
    func paths(argument: String, isPath: Bool) {
        #expect(ProfileCatalog.isPath(argument) == isPath)
    }

    /// A profile naming a trace by an absolute path outside profiles/: the shipped synthetic
    /// drive, and the AT&T recording where ../shared/traces is here.
    @Test(
        "a profile pointing at a trace elsewhere loads",
        arguments: [TestPaths.syntheticTrace] + (TestPaths.tracesArePresent ? [TestPaths.traces + "/ATT-LTE-driving-2016"] : []))
    func traceElsewhere(trace: String) throws {
        try withWorkingDirectory { directory in
            let yaml = ProfileCatalog.builtinSource(named: "lte-trace")!
                .replacingOccurrences(of: "traces/synthetic-lte-drive", with: trace)
            try yaml.write(toFile: directory + "/elsewhere.yaml", atomically: true, encoding: .utf8)
            let down = try ProfileLoader.load(path: directory + "/elsewhere.yaml").networks[0].down
            guard case .trace(let loaded) = down.capacity else {
                Issue.record("expected a trace")
                return
            }
            #expect(loaded.source == trace + ".down")
            #expect((4e6...5.2e6).contains(loaded.meanBitsPerSecond))
        }
    }
}
