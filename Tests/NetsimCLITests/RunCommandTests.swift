import ArgumentParser
import Foundation
import NetsimCore
import NetsimProxy
import NetsimTestSupport
import Testing

@testable import NetsimCLI

@Suite("netsim run: flags", .computes)
struct RunCommandTests {
    @Test("parses listen/upstream pairs and forward rules onto one device")
    func rules() throws {
        let run = try #require(
            try Netsim.parseAsRoot([
                "run", "--profile", "lte-tunnel", "--listen", ":8080", "--upstream", "api.internal:80",
                "--forward", "8443=[::1]:443", "--duration", "90s", "--seed", "7",
            ]) as? RunCommand)
        #expect(
            run.rules == [
                ForwardRule(listen: HostPort(host: "127.0.0.1", port: 8080), upstream: HostPort(host: "api.internal", port: 80)),
                ForwardRule(listen: HostPort(host: "127.0.0.1", port: 8443), upstream: HostPort(host: "::1", port: 443)),
            ])
        #expect(run.emulation.duration == 90)
        #expect(run.emulation.seed == 7)
    }

    @Test("a forward rule names its phone with @phone-K; each phone's report has its own file")
    func phones() throws {
        let run = try #require(
            try Netsim.parseAsRoot(["run", "--phones", "3", "--forward", ":8080=api:80@phone-3", "--forward", ":8081=api:80"])
                as? RunCommand)
        #expect(run.phones == 3 && run.timelinePhase == .together)
        let staggered = try #require(try Netsim.parseAsRoot(["run", "--forward", ":1=:2", "--timeline-phase", "staggered"]) as? RunCommand)
        #expect(staggered.timelinePhase == .staggered)
        #expect(run.rules.map(\.phone) == [3, nil])
        #expect(RunSummary.path("out/run.json", phone: 2) == "out/run.phone-2.json")
        #expect(RunSummary.path("run", phone: 12) == "run.phone-12")
        #expect(RunSummary.path("/tmp/a.b/run.json", phone: nil) == "/tmp/a.b/run.json")
    }

    /// `run --fail-if ... -- COMMAND` with no front end failed with "nothing to forward": a
    /// wrapped command's clients need a proxy, so it gets an HTTP proxy on an ephemeral
    /// loopback port.
    @Test func aWrappedCommandWithNoFrontEndGetsAnHTTPProxy() throws {
        let run = try #require(
            try Netsim.parseAsRoot(["run", "--fail-if", "radio.promotions > 3", "--", "curl", "https://example.com"]) as? RunCommand)
        #expect(run.httpProxy == HostPort(host: "127.0.0.1", port: 0) && run.socks5 == nil)
        #expect(try run.frontEnds().map(\.listen) == [HostPort(host: "127.0.0.1", port: 0)])
        let forwarding = try #require(try Netsim.parseAsRoot(["run", "--forward", ":80=:81", "--", "true"]) as? RunCommand)
        #expect(forwarding.httpProxy == nil)
    }

    @Test(
        "bad flags are usage errors that say what is wrong",
        arguments: [
            (["run"], "nothing to forward"),
            (["run", "--forward", ":80=:81", "--junit-in", "junit.xml"], "--junit-in reads what a wrapped command's test runner wrote"),
            (["run", "--listen", ":8080"], "--listen and --upstream go together"),
            (["run", "--listen", "nowhere", "--upstream", ":80"], "--listen <listen>': 'nowhere' is not HOST:PORT"),
            (["run", "--listen", ":8080", "--upstream", ":0"], "--upstream <upstream>': ':0' is not HOST:PORT"),
            (["run", "--forward", ":80"], "is not LISTEN=UPSTREAM"),
            (["run", "--forward", ":80=host:99999"], "is not LISTEN=UPSTREAM"),
            (["run", "--forward", ":80=:81", "--duration", "soon"], "'soon' is not a duration"),
            (["run", "--forward", ":80=:81", "--duration", "0s"], "above zero"),
            (["run", "--forward", ":80=:81", "--duration", "100000000000000000000s"], "at most 30 days"),
            (["run", "--forward", ":80=:81", "--duration", "1" + String(repeating: "0", count: 306) + "h"], "at most 30 days"),
            (["run", "--forward", ":80=:81", "--admin", "x"], "--admin <admin>': 'x' is not HOST:PORT"),
            (["run", "--forward", ":80=:81", "--buffer-limit", "lots"], "--buffer-limit"),
            (["run", "--forward", ":80=:81", "--buffer-limit", "-5MiB"], "must be a size from 1KiB to 1024MiB"),
            (["run", "--forward", ":80=:81", "--buffer-limit", "1TiB"], "must be a size from 1KiB to 1024MiB"),
            (["run", "--forward", ":80=:81", "--seed", "-1"], "must be 0 or more"),
            (["run", "--forward", ":80=:81", "--seed", "many"], "is not a whole number from 0"),
            (["run", "--forward", ":80=:81", "--duration", "-1s"], "the duration must be above zero, got '-1s'"),
            (["bench", "--seed", "-1"], "must be 0 or more"),
            (["bench", "--duration", "-1s"], "the duration must be above zero"),
            (["bench", "--phones", "-1"], "--phones must be from 1 to 1000, got -1"),
            (["bench", "--devices", "-1"], "--phones must be from 1 to 1000, got -1"),
            (["tune", "keepalive", "--seeds", "-1"], "--seeds must be from 1 to 10000, got -1"),
            (["tune", "keepalive", "--horizon", "-1s"], "the duration must be above zero"),
            (["run", "--socks5", "0.0.0.0:1080"], "0.0.0.0:1080 is not a loopback address"),
            (["run", "--forward", ":80=:81", "--admin", "0.0.0.0:8474"], "--admin 0.0.0.0:8474 is not a loopback address"),
            (["run", "--forward", ":80=:81", "--admin-token", "t"], "--admin-token goes with --admin"),
            (
                ["run", "--forward", ":80=:81", "--admin", "0.0.0.0:8474", "--admin-token", ""],
                "--admin-token is empty: an admin token needs at least 16 characters"
            ),
            (["run", "--forward", ":80=:81", "--admin", ":8474", "--admin-token", "s3cret"], "--admin-token has 6 characters"),
            (["run", "--http-proxy", "192.168.1.2:8888"], "Give --allow-from CIDR"),
            (["run", "--socks5", "nowhere"], "--socks5 <socks5>': 'nowhere' is not [HOST:]PORT"),
            (
                ["run", "--socks5", ":1080", "--allow-from", "10.0.0.0/33"],
                "--allow-from <allow-from>': '10.0.0.0/33' is not an address or CIDR block"
            ),
            (["run", "--socks5", ":1080", "--allow-to", "no such host"], "--allow-to <allow-to>': 'no such host' is not NAME"),
            (["run", "--socks5", ":1080", "--allow-to", "example.com:0"], "--allow-to <allow-to>': 'example.com:0' is not NAME"),
            (["run", "--forward", ":80=:81", "--socks5-user", "a:b"], "--socks5-user goes with --socks5"),
            (["run", "--socks5", ":1080", "--socks5-user", "nopassword"], "USER:PASS"),
            (["run", "--forward", ":80=:81", "--phones", "0"], "--phones must be 1 to 1000, not 0"),
            (["run", "--forward", ":80=:81", "--timeline-phase", "random"], "--timeline-phase"),
            (["run", "--forward", ":80=:81", "--phones", "1001"], "--phones must be 1 to 1000, not 1001"),
            (["run", "--forward", ":80=:81@phone-3", "--phones", "2"], "@phone-3: the run has 2 phones (--phones)"),
            (["run", "--forward", ":80=:81@phone-2"], "@phone-2: the run has 1 phone (--phones)"),
            (["run", "--forward", ":80=:81@phone-0"], "'phone-0' is not phone-K with K a phone's number from 1"),
            (["run", "--forward", ":80=:81@tablet"], "'tablet' is not phone-K"),
            (["run", "--forward", ":80=:81", "--phones", "2", "--pcap", "x.pcap"], "--pcap captures one phone"),
            (
                ["run", "--socks5", ":1080", "--socks5-user", "a:b", "--phones", "2"],
                "--socks5-user does not go with --phones 2: SOCKS5 clients choose their phone by username (phone-1 to phone-2)"
            ),
        ])
    func badFlags(arguments: [String], message: String) {
        do {
            _ = try Netsim.parseAsRoot(arguments)
            Issue.record("\(arguments) parsed")
        } catch {
            let text = Netsim.fullMessage(for: error)
            #expect(text.contains(message), "\(text)")
            #expect(Netsim.exitCode(for: error) == .validationFailure, "a usage error exits with status 64")
        }
    }

    @Test("front ends listen on loopback by default, elsewhere only with --allow-from, beside forward rules")
    func frontEnds() throws {
        let run = try #require(
            try Netsim.parseAsRoot([
                "run", "--socks5", "1080", "--socks5-user", "me:se:cret", "--http-proxy", "0.0.0.0:8888", "--allow-from", "192.168.0.0/16",
                "--allow-to", "*.example.com:443", "--forward", ":80=:81",
            ]) as? RunCommand)
        #expect(
            try run.frontEnds() == [
                FrontEndRule(
                    listen: HostPort(host: "127.0.0.1", port: 1080),
                    frontEnd: .socks5(credentials: SOCKSCredentials(username: "me", password: "se:cret"))),
                FrontEndRule(listen: HostPort(host: "0.0.0.0", port: 8888), frontEnd: .httpProxy),
            ])
        let access = run.accessPolicy
        #expect(access.allowFrom == [IPNetwork("192.168.0.0/16")!])
        #expect(access.allowTo == [DestinationPattern("*.example.com:443")!])
        #expect(run.rules.count == 1)
    }

    @Test("a report path that cannot be written is refused before the run, not after it")
    func unwritableReport() async throws {
        let directory = FileManager.default.temporaryDirectory.path
        #expect(unwritableReason(ofFile: directory) == "it is a directory")
        #expect(unwritableReason(ofFile: "/no/such/dir/r.json") == "no directory /no/such/dir")
        #expect(unwritableReason(ofFile: directory + "/netsim-report-\(UUID().uuidString).json") == nil)
        let run = try #require(
            try Netsim.parseAsRoot(["run", "--forward", ":0=:1", "--report", directory, "--duration", "1s"]) as? RunCommand)
        await #expect(throws: ExitCode(1)) { try await run.run() }
    }

    @Test("an unknown profile exits with status 2")
    func unknownProfile() async throws {
        let run = try #require(try Netsim.parseAsRoot(["run", "--profile", "lte-goood", "--forward", ":0=:1"]) as? RunCommand)
        await #expect(throws: ExitCode(2)) { try await run.run() }
    }
}

@Suite("netsim run: the printed summary", .computes)
struct RunSummaryTests {
    @Test("the summary lists the destinations that waited longest, escaped, and says where the rest are")
    func destinations() {
        let names = ["slow.example:443", "evil\u{1B}[2J.example:80"] + (0..<6).map { "quiet\($0).example:443" }
        let destinations = names.enumerated().map { index, name in
            DestinationFigures(
                destination: name, connections: 1, chunks: PerDirection(up: 2, down: 3), waitedChunks: index < 2 ? 1 : 0,
                waits: index == 0 ? [.promotion: WaitFigures(chunks: 1, seconds: 0.26, maxSeconds: 0.26)] : [:])
        }
        let report = RunReport(
            netsimVersion: "test", profile: "lte-good", seed: 1, durationSeconds: 10, connections: ConnectionCounters(opened: 8),
            bytes: PerDirection(up: 1, down: 1), segments: SegmentCounts(),
            radio: .noRadio(durationSeconds: 10, bytes: PerDirection(up: 1, down: 1)),
            radioLatency: RadioWaitTotals(), destinations: destinations, events: [], eventCounts: [:], eventsNotListed: 0)
        let lines = RunSummary.render(report, stoppedBy: "its duration").split(separator: "\n").map(String.init)
        #expect(lines.contains("what chunks waited for, per destination (seconds, and how many chunks):"))
        #expect(lines.contains("  slow.example:443: 1 of 5 chunk(s) waited; promotion 0.26 s (1)"))
        #expect(lines.contains { $0.hasPrefix("  evil\\u{1B}[2J.example:80: 1 of 5") })
        #expect(!lines.joined().contains("\u{1B}"), "no terminal escape reaches the screen")
        #expect(lines.contains("  ... and 3 more in the JSON report"))
    }

    static func report(radio: RadioReport, opened: Int = 1, datagrams: DatagramFigures? = nil) -> RunReport {
        RunReport(
            netsimVersion: "test", profile: "wifi-to-lte", seed: 1, durationSeconds: 60, connections: ConnectionCounters(opened: opened),
            bytes: PerDirection(up: 0, down: 0), segments: SegmentCounts(), radio: radio, radioLatency: RadioWaitTotals(), events: [],
            eventCounts: [:], eventsNotListed: 0, datagrams: datagrams)
    }

    static func radio(_ model: String, wake: Double, promotions: Int, joules: Double) -> RadioReport {
        RadioReport(
            model: model, durationSeconds: 30, wakeSeconds: wake, promotions: promotions, promotionsByOrigin: [:], energyJoules: joules,
            transferEnergyJoules: 0, secondsByState: [.idle: 30 - wake], energyJoulesByState: [:], bytes: PerDirection(up: 0, down: 0),
            timeline: nil)
    }

    /// A UDP-only run opened "connections: 0 opened, bytes delivered: 0 B": it says datagrams.
    @Test func aUDPOnlyRunSaysDatagramsNotZeroConnections() {
        var datagrams = DatagramFigures()
        datagrams.flows = 1
        datagrams.counts.up.sent = 10
        datagrams.counts.up.delivered = 10
        let lines = RunSummary.render(
            Self.report(radio: Self.radio("lte", wake: 5, promotions: 1, joules: 3), opened: 0, datagrams: datagrams),
            stoppedBy: "its duration")
        #expect(!lines.contains("connections: 0 opened") && !lines.contains("bytes delivered"), "\(lines)")
        #expect(lines.contains("UDP only: no TCP connections\nUDP datagrams: 1 flow(s)"), "\(lines)")
        let tcp = RunSummary.render(Self.report(radio: Self.radio("lte", wake: 5, promotions: 1, joules: 3)), stoppedBy: "its duration")
        #expect(tcp.contains("connections: 1 opened") && tcp.contains("bytes delivered: "))
    }

    /// A run over WiFi and LTE summed both radios in one figure ("wifi+lte, 22 promotions"): the
    /// summary splits them by network; and "waited" means one thing (any wait), the radio's part
    /// is "delayed by the radio".
    @Test func twoNetworksSplitTheRadioFigures() {
        let radio = RadioReport.sequential([
            Self.radio("wifi", wake: 4, promotions: 2, joules: 1.5), Self.radio("lte", wake: 12, promotions: 20, joules: 30),
            Self.radio("wifi", wake: 1, promotions: 1, joules: 0.5),
        ])
        #expect(radio.model == "wifi+lte" && radio.promotions == 23)
        let lines = RunSummary.render(Self.report(radio: radio), stoppedBy: "its duration").split(separator: "\n").map(String.init)
        #expect(
            lines.contains("  by network: wifi awake 5.0 s, 3 promotion(s), 2.00 J; lte awake 12.0 s, 20 promotion(s), 30.00 J"),
            "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  radio latency: 0 of 0 chunk(s) delayed by the radio;") }, "\(lines)")
        #expect(lines.filter { $0.contains("waited") }.isEmpty, "no destinations, so no wait of any kind: \(lines)")
        #expect(Self.radio("lte", wake: 1, promotions: 1, joules: 1).byRadio == nil)
    }

    /// The summary carries the run's gates: each with its threshold, what was measured and its
    /// verdict, and "N of M gates failed" last.
    @Test func theSummaryCarriesTheGates() {
        var report = Self.report(radio: Self.radio("lte", wake: 5, promotions: 4, joules: 3))
        report.gates = [
            GateOutcome(
                gate: "radio.promotions > 3", threshold: "fails if > 3", passed: false, measured: "radio.promotions = 4",
                failure: "threshold breached"),
            GateOutcome(
                gate: "command: make test", threshold: "fails on a non-zero exit status", passed: true, measured: "exit status 0",
                failure: nil),
        ]
        let lines = RunSummary.render(report, stoppedBy: "the command").split(separator: "\n").map(String.init)
        let start = lines.firstIndex(of: "gates:")
        #expect(start != nil, "\(lines)")
        if let start {
            #expect(
                Array(lines[start..<min(lines.count, start + 4)]) == [
                    "gates:", "  FAILED radio.promotions > 3 (fails if > 3): radio.promotions = 4",
                    "  held   command: make test (fails on a non-zero exit status): exit status 0", "1 of 2 gates failed",
                ])
        }
        let markdown = report.document.markdown
        #expect(
            markdown.contains("### Gates")
                && markdown.contains("| radio.promotions \\> 3 | fails if \\> 3 | radio.promotions = 4 | FAILED |"))
        #expect(markdown.contains("\n1 of 2 gates failed\n"))
        #expect(report.document.html.contains("<h2>Gates</h2>") && report.document.html.contains("<p>1 of 2 gates failed</p>"))
    }
}
