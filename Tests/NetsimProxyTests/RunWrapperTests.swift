import Foundation
import NIOCore
import NetsimTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `netsim run -- COMMAND` as a CI job uses it: the built `netsim` binary wraps a real curl that
/// reaches a server through the SOCKS5 front end it finds in ALL_PROXY, and the run's gates
/// decide the exit status, said with the measured value, and written as JUnit XML.
@Suite(.serialized, .playsLive(.commands, timeLimit: .seconds(120))) struct RunWrapperTests {
    static let netsim: String? = FileManager.default.isExecutableFile(atPath: TestPaths.builtNetsim) ? TestPaths.builtNetsim : nil

    static let canRun = netsim != nil && FrontEndPeers.curlAndOpenSSL

    /// A phone whose LTE radio falls asleep 0.6 s after its last byte, so that two requests
    /// 2 s apart each pay a promotion.
    static func shortTailProfile() throws -> String {
        let path = FrontEndPeers.scratchFile() + ".yaml"
        try """
        name: short-tail
        description: LTE with a 0.5 s long-DRX tail
        networks:
          lte:
            radio: {model: lte, longDRXTime: 0.5s}
            link: {delay: 10ms}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(.enabled(if: canRun, "needs the netsim binary (swift build), curl and python3"))
    func aWrappedCurlPassesOrFailsOnTheRadiosPromotions() throws {
        let http = try FrontEndPeers.Server("http")
        defer { http.stop() }
        let profile = try Self.shortTailProfile()
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let url = "http://localhost:\(http.port)/payload?size=1000"
        // Two requests 2 s apart, through whatever proxy the environment names.
        let client = "curl -sS --fail -o /dev/null \(url) && sleep 2 && curl -sS --fail -o /dev/null \(url) && test -n \"$NETSIM_SOCKS5\""

        let junit = FrontEndPeers.scratchFile() + ".xml"
        let report = FrontEndPeers.scratchFile() + ".json"
        let failing = try FrontEndPeers.run(
            [
                Self.netsim!, "run", "--quiet", "--profile", profile, "--socks5", ":0", "--fail-if", "radio.promotions > 1", "--fail-if",
                "connections.reset > 0", "--fail-if", "chunkDelays.down.added.p95Seconds > 0.005", "--junit", junit, "--report", report,
                "--", "sh", "-c", client,
            ], timeout: .seconds(60))
        #expect(failing.status == 3, "\(failing.output)")
        #expect(failing.output.contains("threshold breached: radio.promotions = 2, which is > 1"), "\(failing.output)")
        let written = try #require(FileManager.default.contents(atPath: report))
        let json = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
        #expect((json["connections"] as? [String: Any])?["opened"] as? Int == 2, "both requests went through the phone")
        // The handshakes paid the promotions; the requests' chunks waited on the 10 ms link only,
        // and the replies at least as long.
        let delays = try #require(json["chunkDelays"] as? [String: [String: Any]])
        let up = try #require(delays["up"]?["linkWait"] as? [String: Double])
        let down = try #require(delays["down"]?["added"] as? [String: Double])
        #expect(abs(up["p50Seconds"]! - 0.01) < 0.0002 && abs(up["maxSeconds"]! - 0.01) < 1e-9, "\(delays)")
        #expect(down["maxSeconds"]! >= 0.01, "\(delays)")
        #expect(failing.output.contains("threshold breached: chunkDelays.down.added.p95Seconds = 0.0"), "\(failing.output)")

        let xml = String(decoding: FrontEndPeers.contents(junit), as: UTF8.self)
        #expect(xml.contains(#"tests="4" failures="2""#), "\(xml)")
        #expect(xml.contains(#"message="threshold breached: radio.promotions = 2, which is &gt; 1""#), "\(xml)")
        #expect(xml.contains("<system-out>connections.reset = 0</system-out>"), "\(xml)")

        let passing = try FrontEndPeers.run(
            [
                Self.netsim!, "run", "--quiet", "--profile", profile, "--socks5", ":0", "--fail-if", "radio.promotions > 2", "--fail-if",
                "chunkDelays.down.added.p95Seconds > 5", "--junit", junit, "--", "sh", "-c", client,
            ], timeout: .seconds(60))
        #expect(passing.status == 0, "\(passing.output)")
        if FrontEndPeers.python(has: "junitparser") {
            let parsed = try FrontEndPeers.run([
                "python3", "-c",
                "import junitparser, sys; x = junitparser.JUnitXml.fromfile(sys.argv[1]); print(x.tests, x.failures, x.errors)",
                junit,
            ])
            #expect(parsed.output.trimmingCharacters(in: .whitespacesAndNewlines) == "3 0 0", "\(parsed.output)")
        }
        try? FileManager.default.removeItem(atPath: junit)
        try? FileManager.default.removeItem(atPath: report)
    }

    /// `--junit-in`: which test woke the radio. The wrapped "runner" makes one request per
    /// test case, 2 s apart on a radio that sleeps 0.6 s after its last byte, and writes JUnit
    /// XML with each case's timestamp and its measured time, as a test runner does (a fixed
    /// time let a request that started late on a loaded machine fall outside its case); each
    /// case gets its own promotion, nothing falls outside, and a name with markup reaches the
    /// Markdown escaped.
    @Test(.enabled(if: canRun, "needs the netsim binary (swift build), curl and python3"))
    func eachTestCaseGetsThePromotionItCaused() throws {
        let http = try FrontEndPeers.Server("http")
        defer { http.stop() }
        let profile = try Self.shortTailProfile()
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let url = "http://localhost:\(http.port)/payload?size=1000"
        let junit = FrontEndPeers.scratchFile() + ".xml"
        let report = FrontEndPeers.scratchFile() + ".json"
        // A case: its start as an ISO 8601 timestamp, and its seconds, the request's time.
        let testCase = """
            case_run() { stamp=$(date -u +%Y-%m-%dT%H:%M:%S.%NZ); from=$(date +%s.%N); curl -sS --fail -o /dev/null \(url); \
            seconds=$(echo "$from $(date +%s.%N)" | awk '{ printf "%.3f", $2 - $1 }'); }
            """
        let runner = """
            \(testCase)
            sleep 1; case_run; a=$stamp; at=$seconds; sleep 2; case_run; b=$stamp; bt=$seconds; sleep 1
            printf '<testsuite name="t"><testcase classname="api" name="first" timestamp="%s" time="%s"/><testcase classname="api" name="&lt;b&gt;second" timestamp="%s" time="%s"/></testsuite>' "$a" "$at" "$b" "$bt" > \(junit)
            """
        let result = try FrontEndPeers.run(
            [
                Self.netsim!, "run", "--quiet", "--profile", profile, "--junit-in", junit, "--report", report, "--", "sh", "-c", runner,
            ], timeout: .seconds(60))
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("which test woke the radio (promotions, awake s, J):"), "\(result.output)")
        let written = try #require(FileManager.default.contents(atPath: report))
        let json = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
        let tests = try #require(json["tests"] as? [[String: Any]])
        #expect(tests.map { $0["test"] as? String } == ["api.first", "api.<b>second", "(no test running)"], "\(tests)")
        #expect(tests.map { $0["promotions"] as? Int } == [1, 1, 0], "\(tests)")
        let markdown = try FrontEndPeers.run([Self.netsim!, "report", "show", report, "--format", "md"])
        #expect(markdown.output.contains("| api.\\<b\\>second |"), "\(markdown.output)")
        try? FileManager.default.removeItem(atPath: junit)
        try? FileManager.default.removeItem(atPath: report)
    }

    @Test(.enabled(if: canRun, "needs the netsim binary (swift build), curl and python3"))
    func aFailingCommandsStatusWinsOverTheGates() throws {
        let failed = try FrontEndPeers.run(
            [
                Self.netsim!, "run", "--quiet", "--http-proxy", ":0", "--fail-if", "radio.promotions > 100", "--", "sh", "-c",
                "test \"$HTTP_PROXY\" = \"$NETSIM_PROXY\" && test -n \"$https_proxy\" && exit 7",
            ], timeout: .seconds(30))
        #expect(failed.status == 7, "\(failed.output)")
        let missing = try FrontEndPeers.run([Self.netsim!, "run", "--quiet", "--http-proxy", ":0", "--", "no-such-command-anywhere"])
        #expect(missing.status == 127, "a shell's status for a command it cannot find: \(missing.output)")
        #expect(missing.output.contains("cannot run no-such-command-anywhere"), "\(missing.output)")
    }

    /// With a wrapped command, standard output is the command's alone: the run summary goes to
    /// standard error, quiet or not, so `netsim run -- ./emit-json > out.json` writes valid JSON.
    @Test(.enabled(if: netsim != nil, "needs the netsim binary"))
    func aWrappedCommandsStandardOutputIsItsOwn() throws {
        let json = FrontEndPeers.scratchFile() + ".json"
        defer { try? FileManager.default.removeItem(atPath: json) }
        for quiet in [["--quiet"], []] {
            let run = try FrontEndPeers.run(
                [
                    "sh", "-c", "exec \"$0\" \"$@\" > \(json)", Self.netsim!, "run", "--http-proxy", ":0",
                ] + quiet + ["--", "printf", #"{"ok": true}"#], timeout: .seconds(30))
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("netsim run: profile"), "the summary, on standard error: \(run.output)")
            let written = try #require(FileManager.default.contents(atPath: json))
            #expect(String(decoding: written, as: UTF8.self) == #"{"ok": true}"#, "\(quiet)")
            #expect((try? JSONSerialization.jsonObject(with: written)) != nil, "\(quiet)")
        }
    }

    /// A run that ends while event streams (`GET /events`, the dashboard's live feed) are open
    /// ends them before its event loops stop: it exits 0 and writes its report. Writing to a
    /// stream after the loops had shut down crashed the debug build ("leaking promise", exit 132,
    /// no report).
    @Test(.enabled(if: netsim != nil, "needs the netsim binary"))
    func aRunEndsCleanlyWithEventStreamsOpen() async throws {
        let output = FrontEndPeers.scratchFile()
        let report = FrontEndPeers.scratchFile() + ".json"
        defer {
            try? FileManager.default.removeItem(atPath: output)
            try? FileManager.default.removeItem(atPath: report)
        }
        let netsim = try FrontEndPeers.spawn(
            [Self.netsim!, "run", "--http-proxy", ":0", "--admin", "127.0.0.1:0", "--duration", "3s", "--report", report], output: output)
        defer { Self.killIfRunning(netsim) }
        let announced = "admin API and live dashboard on http://127.0.0.1:"
        var port: Int?
        let started = ContinuousClock.now
        while port == nil, ContinuousClock.now - started < .seconds(20) {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            port = text.range(of: announced).flatMap { Int(text[$0.upperBound...].prefix { $0.isNumber }) }
            try await Task.sleep(for: .milliseconds(20))
        }
        let admin = try #require(port, "the admin API never listened")
        var streams: [NIOAsyncChannel<ByteBuffer, ByteBuffer>] = []
        for _ in 0..<4 {
            let stream = try await Loopback.connect(port: admin)
            try await stream.channel.writeAndFlush(ByteBuffer(string: "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(admin)\r\n\r\n"))
            streams.append(stream)
        }
        let status = try await Self.waitStatus(of: netsim, within: .seconds(30)) ?? -1
        for stream in streams { try? await stream.channel.close() }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        #expect(status & 0x7F == 0 && (status >> 8) & 0xFF == 0, "wait status \(status): \(text)")
        #expect(FileManager.default.fileExists(atPath: report), "\(text)")
        #expect(!text.contains("leaking promise") && !text.contains("Cannot schedule tasks"), "\(text)")
    }

    /// A SIGTERM that comes while a run is still starting stops it as soon as it is up, with
    /// its report and exit status 0. It used to end the process (exit status 143, no report):
    /// the signal watch began only once the ports listened. The start is held on a `--pcap`
    /// FIFO, whose opening waits for a reader (as with `wireshark -k -i FIFO`), and the signal
    /// is sent once /proc says netsim catches SIGTERM, that is, once its watch is up.
    @Test(.enabled(if: netsim != nil, "needs the netsim binary"))
    func aSignalWhileTheRunStartsStopsItOnceItIsUp() async throws {
        #if os(Linux)
        let fifo = FrontEndPeers.scratchFile() + ".pcap"
        let report = FrontEndPeers.scratchFile() + ".json"
        let output = FrontEndPeers.scratchFile()
        defer { for path in [fifo, report, output] { try? FileManager.default.removeItem(atPath: path) } }
        try #require(mkfifo(fifo, 0o600) == 0)
        let netsim = try FrontEndPeers.spawn(
            [Self.netsim!, "run", "--http-proxy", ":0", "--pcap", fifo, "--duration", "60s", "--report", report], output: output)
        defer { Self.killIfRunning(netsim) }
        let watching = ContinuousClock.now + .seconds(20)
        while !Self.catchesSIGTERM(netsim), ContinuousClock.now < watching { try await Task.sleep(for: .milliseconds(5)) }
        try #require(Self.catchesSIGTERM(netsim), "netsim never set up its signal watch")
        let beforeSignal = String(decoding: FileManager.default.contents(atPath: output) ?? Data(), as: UTF8.self)
        #expect(!beforeSignal.contains("HTTP proxy on"), "the signal came before the run was up: \(beforeSignal)")
        kill(netsim, SIGTERM)
        // The reader the capture waits for; what netsim writes is a few records, well within the
        // FIFO's buffer, so it need not be read.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        defer { if reader >= 0 { close(reader) } }
        try #require(reader >= 0)
        let ended = try await Self.waitStatus(of: netsim, within: .seconds(20))
        let text = String(decoding: FileManager.default.contents(atPath: output) ?? Data(), as: UTF8.self)
        #expect(ended != nil, "netsim did not stop: \(text)")
        let status = ended ?? -1
        #expect(status & 0x7F == 0 && (status >> 8) & 0xFF == 0, "wait status \(status): \(text)")
        #expect(text.contains("(stopped by SIGTERM)"), "\(text)")
        #expect(FileManager.default.fileExists(atPath: report), "\(text)")
        #endif
    }

    /// Whether /proc says `pid` catches SIGTERM (its `SigCgt` mask), as Dispatch does once
    /// netsim's signal watch is up. The watch sets SIGTERM to be ignored just before Dispatch
    /// installs its handler, and a signal in between is ignored, so the ignore mask alone does
    /// not say the watch is up.
    static func catchesSIGTERM(_ pid: pid_t) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
        let bit = UInt64(1) << (UInt64(SIGTERM) - 1)
        return status.split(separator: "\n").contains { line in
            let field = line.split(separator: ":", maxSplits: 1)
            guard field.count == 2, field[0] == "SigCgt", let mask = UInt64(field[1].trimmingCharacters(in: .whitespaces), radix: 16)
            else { return false }
            return mask & bit != 0
        }
    }

    /// The wait status of the spawned `pid` once it has ended, or nil if it still runs after
    /// `limit`.
    static func waitStatus(of pid: pid_t, within limit: Duration) async throws -> Int32? {
        let deadline = ContinuousClock.now + limit
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            if waitpid(pid, &status, WNOHANG) == pid { return status }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Kills and reaps the spawned `pid` if it still runs: a test's last word on its netsim.
    static func killIfRunning(_ pid: pid_t) {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == 0 else { return }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
    }

    /// The ways a run with a wrapped command ends.
    enum RunEnding: String, CaseIterable, CustomTestStringConvertible {
        case duration, sigint, sigterm, commandExits, sigkill
        var testDescription: String { rawValue }
    }

    /// Nothing a wrapped command starts outlives the run, however it ends: the command is a
    /// shell that ignores SIGTERM (as its children then do), starts a background child, and
    /// becomes a foreground one (exec), or exits. After the run neither process lives: the
    /// group got SIGTERM, then SIGKILL a grace period (1 s) later; when netsim itself is
    /// killed, its supervisor kills the group (Linux).
    @Test(.enabled(if: netsim != nil, "needs the netsim binary"), arguments: RunEnding.allCases)
    func nothingTheCommandStartedOutlivesTheRun(_ ending: RunEnding) throws {
        #if !os(Linux)
        if ending == .sigkill { return }
        #endif
        let pids = FrontEndPeers.scratchFile()
        let output = FrontEndPeers.scratchFile()
        defer {
            try? FileManager.default.removeItem(atPath: pids)
            try? FileManager.default.removeItem(atPath: output)
        }
        // The shell becomes the foreground child (exec), so the two pids are the whole tree.
        let last = ending == .commandExits ? "exit 0" : "exec sleep 600"
        let script = "trap '' TERM; sleep 600 & echo $$ $! > \(pids).part && mv \(pids).part \(pids); \(last)"
        let duration = ending == .duration ? ["--duration", "2s"] : []
        let netsim = try FrontEndPeers.spawn(
            [Self.netsim!, "run", "--quiet", "--http-proxy", ":0", "--grace-period", "1s"] + duration + ["--", "sh", "-c", script],
            output: output)
        var status: Int32 = 0
        defer { Self.killIfRunning(netsim) }
        let started = ContinuousClock.now
        while FileManager.default.contents(atPath: pids) == nil, ContinuousClock.now - started < .seconds(20) { usleep(20_000) }
        let tree = String(decoding: FileManager.default.contents(atPath: pids) ?? Data(), as: UTF8.self)
            .split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }
        defer { for pid in tree where Self.isAlive(pid) { kill(pid, SIGKILL) } }
        try #require(tree.count == 2, "the command never started: \(String(decoding: FrontEndPeers.contents(output), as: UTF8.self))")
        switch ending {
        case .sigint: kill(netsim, SIGINT)
        case .sigterm: kill(netsim, SIGTERM)
        case .sigkill: kill(netsim, SIGKILL)
        case .duration, .commandExits: break
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while waitpid(netsim, &status, WNOHANG) == 0, ContinuousClock.now < deadline { usleep(20_000) }
        #expect(ContinuousClock.now < deadline, "netsim did not end")
        // A process killed with its parent is reaped by whoever adopts it; it is gone once dead.
        let gone = ContinuousClock.now + .seconds(5)
        while tree.contains(where: Self.isAlive), ContinuousClock.now < gone { usleep(20_000) }
        for pid in tree { #expect(!Self.isAlive(pid), "process \(pid) of the command outlived the run (\(ending))") }
    }

    /// Whether `pid` runs: on Linux, whether it exists and is not a zombie (a dead process not
    /// yet reaped).
    static func isAlive(_ pid: pid_t) -> Bool {
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else {
            return false
        }
        let state = stat[stat.index(after: end)...].drop(while: { $0 == " " }).first
        return state != "Z" && state != "X"
        #else
        return kill(pid, 0) == 0
        #endif
    }

    /// A run whose duration ends before its command stops the command with SIGTERM, which the
    /// command gets at its default (exit status 143 = 128 + 15) and neither blocked nor
    /// ignored: a command started from a task thread used to inherit the thread's blocked
    /// signals, so it ran to its own end and the run with it. What the command sees is checked
    /// from /proc on Linux.
    @Test(.enabled(if: netsim != nil, "needs the netsim binary"))
    func aRunThatEndsFirstStopsItsCommandWithSIGTERM() throws {
        let signals = FrontEndPeers.scratchFile()
        defer { try? FileManager.default.removeItem(atPath: signals) }
        let script = "grep -E '^Sig(Blk|Ign)' /proc/self/status > \(signals) 2>/dev/null; exec sleep 30"
        let start = ContinuousClock.now
        let stopped = try FrontEndPeers.run(
            [Self.netsim!, "run", "--quiet", "--http-proxy", ":0", "--duration", "1s", "--", "sh", "-c", script], timeout: .seconds(25))
        #expect(stopped.status == 143, "\(stopped.output)")
        #expect(ContinuousClock.now - start < .seconds(20), "the command ran to its own end")
        #expect(stopped.output.contains("stopped by the duration (1s)"), "\(stopped.output)")
        #if os(Linux)
        let masks = (try? String(contentsOfFile: signals, encoding: .utf8)) ?? ""
        // SIGINT is bit 1, SIGTERM bit 14 of the masks.
        for line in masks.split(separator: "\n") {
            let mask = UInt64(line.split(separator: "\t").last ?? "", radix: 16) ?? .max
            #expect(mask & (1 << 1 | 1 << 14) == 0, "\(line)")
        }
        #expect(masks.contains("SigBlk") && masks.contains("SigIgn"), "\(masks)")
        #endif
    }
    /// A part of the run that cannot start (here the admin API, on an address already taken)
    /// stops what did start, by the run's one teardown path, and the run exits 1 at once: the
    /// wrapped command, which would come next, never runs.
    @Test(.enabled(if: netsim != nil, "needs the netsim binary"))
    func aPartThatCannotStartStopsWhatDidAndExitsOne() async throws {
        let (taken, port) = try await Loopback.echoServer()
        let marker = FrontEndPeers.scratchFile()
        let result = try FrontEndPeers.run(
            [
                Self.netsim!, "run", "--quiet", "--listen", ":0", "--upstream", "127.0.0.1:1", "--admin", "127.0.0.1:\(port)", "--",
                "touch", marker,
            ], timeout: .seconds(30))
        try await taken.close()
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("cannot listen on 127.0.0.1:\(port): the address is already in use"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the command ran")
    }

    /// A trace slot is a 1500-byte packet, headers included: iperf3 through a trace
    /// of one slot a millisecond receives one full segment's payload a millisecond, 1,448,000
    /// bytes a second, where counting 1500 bytes of payload a slot gave it 3.6 % more.
    @Test(.enabled(if: netsim != nil && FrontEndPeers.has("iperf3") && FrontEndPeers.has("python3"), "needs the netsim binary and iperf3"))
    func iperf3ThroughATraceGetsOneSegmentsPayloadPerSlot() throws {
        let trace = FrontEndPeers.scratchFile() + ".trace"
        try "1\n".write(toFile: trace, atomically: true, encoding: .utf8)
        let profile = FrontEndPeers.scratchFile() + ".yaml"
        try """
        name: packet-a-millisecond
        description: one 1500-byte packet a millisecond each way
        networks:
          lte:
            radio: {model: lte}
            link: {delay: 10ms, down: {trace: \(trace)}, up: {trace: \(trace)}}
        """.write(toFile: profile, atomically: true, encoding: .utf8)
        let result = FrontEndPeers.scratchFile() + ".json"
        defer {
            for file in [trace, profile, result] { try? FileManager.default.removeItem(atPath: file) }
        }
        let free = try FrontEndPeers.run([
            "python3", "-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])",
        ])
        let port = try #require(Int(free.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        let server = try FrontEndPeers.spawn(["iperf3", "--server", "--one-off", "--bind", "127.0.0.1", "--port", "\(port)"])
        defer {
            kill(server, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(server, &status, 0)
        }
        // Downstream (--reverse) for 6 s after a first second left out (--omit) for slow start.
        let client = """
            sleep 0.5 && iperf3 --client "${NETSIM_LISTEN%:*}" --port "${NETSIM_LISTEN##*:}" --reverse --time 6 --omit 1 --json > \(result)
            """
        let run = try FrontEndPeers.run(
            [
                Self.netsim!, "run", "--quiet", "--profile", profile, "--listen", ":0", "--upstream", "127.0.0.1:\(port)", "--", "sh", "-c",
                client,
            ],
            timeout: .seconds(60))
        #expect(run.status == 0, "\(run.output)")
        let written = try #require(FileManager.default.contents(atPath: result), "\(run.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
        let received = try #require((json["end"] as? [String: Any])?["sum_received"] as? [String: Any], "\(json)")
        let bytes = try #require(received["bytes"] as? Double)
        let seconds = try #require(received["seconds"] as? Double)
        let ratio = bytes / seconds / 1_448_000
        #expect(ratio > 0.97 && ratio < 1.01, "iperf3 received \(bytes) bytes in \(seconds) s: \(ratio) of a segment's payload per slot")
    }
}
