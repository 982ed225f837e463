import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import NetsimCore
import NetsimInput
import NetsimProxy
import NetsimReport

/// An emulated phone in the test process: a netsim proxy for one profile in front of one
/// upstream, for a Swift test suite to point its client at, drive and assert on (as
/// toxiproxy's clients do for a toxiproxy server). See docs/swift-api.md.
///
/// ```swift
/// let report = try await withEmulatedPhone(profile: "lte-tunnel", upstream: "127.0.0.1:8080") { phone in
///     // connect the client under test to 127.0.0.1:\(phone.port)
///     try await phone.outage(.seconds(10), mode: .reset)
///     return try await phone.report()
/// }
/// ```
///
/// `withEmulatedPhone` stops the phone however its body ends, as `withTaskGroup` ends its
/// tasks: a test that throws does not leave a proxy listening. `EmulatedPhone.start` and
/// `stop()` are the same phone for a lifetime that is not a scope (a suite's fixture).
///
/// Every live change has the profile timeline's rules and effects (and the admin API's: it is
/// the same code). Phones are independent: several may run in one process.
public final class EmulatedPhone: Sendable {
    /// The proxy behind the phone. Not public: what a test may do to a phone is this type's
    /// API, so that the proxy's own can change without breaking users' suites.
    let proxy: NetsimProxy
    /// The report `stop()` returned: stopping again returns it rather than stopping twice.
    private let finalReport = NIOLockedValueBox<RunReport?>(nil)

    /// Where the client under test connects.
    public var address: HostPort { proxy.listeningAddresses[0] }

    /// The loopback port the client under test connects to.
    public var port: Int { address.port }

    private init(proxy: NetsimProxy) {
        self.proxy = proxy
    }

    /// Starts a phone for `profile` (a built-in name such as `lte-tunnel`, or a path to a
    /// profile file) forwarding to `upstream` (`HOST:PORT`), listening on `listen` (loopback on
    /// a port the system picks unless given).
    ///
    /// - Parameters:
    ///   - seed: every random draw of the emulation; the same seed replays the same conditions.
    ///   - timeScale: emulated seconds per wall-clock second; above 1 plays a long timeline quickly.
    public static func start(
        profile: String, upstream: String, listen: String = "127.0.0.1:0", seed: UInt64 = 1, timeScale: Double = 1,
        logger: Logger = Logger(label: "netsim.phone")
    ) async throws -> EmulatedPhone {
        let loaded = try ProfileCatalog.resolve(profile, workingDirectory: FileManager.default.currentDirectoryPath)
        guard let upstreamAddress = HostPort(upstream), upstreamAddress.port > 0 else {
            throw EmulatedPhoneError("upstream '\(upstream)' is not HOST:PORT")
        }
        guard let listenAddress = HostPort(listen) else { throw EmulatedPhoneError("listen '\(listen)' is not HOST:PORT") }
        return try await start(
            profile: loaded, upstream: upstreamAddress, listen: listenAddress, seed: seed, timeScale: timeScale, logger: logger)
    }

    /// Starts a phone for a profile built in code.
    public static func start(
        profile: Profile, upstream: HostPort, listen: HostPort = HostPort(host: "127.0.0.1", port: 0), seed: UInt64 = 1,
        timeScale: Double = 1, logger: Logger = Logger(label: "netsim.phone")
    ) async throws -> EmulatedPhone {
        guard timeScale > 0, timeScale.isFinite else { throw EmulatedPhoneError("timeScale must be above zero, not \(timeScale)") }
        var options = ProxyOptions()
        options.timeScale = timeScale
        let proxy = try await NetsimProxy.start(
            profile: profile, seed: seed, forwards: [ForwardRule(listen: listen, upstream: upstream)], options: options,
            group: MultiThreadedEventLoopGroup.singleton, logger: logger)
        return EmulatedPhone(proxy: proxy)
    }

    /// An outage now, as a profile timeline's `outage`: nothing crosses for `duration`; `mode`
    /// says what happens to the open connections (`stall`: they wait; `blackhole`: they go
    /// silent; `reset`: both sides get a RST).
    @discardableResult
    public func outage(_ duration: Duration, mode: OutageMode = .stall) async throws -> DeviceEvent? {
        try await proxy.outage(seconds: duration.seconds, mode: mode)
    }

    /// Ends the outage (or handover gap) this phone was given that is in force, now: what it
    /// held arrives as if it had been this long from its start (`NetsimProxy.endOutage`).
    @discardableResult
    public func endOutage() async throws -> OutageEnd {
        try await proxy.endOutage()
    }

    /// A move to another of the profile's networks now, as a timeline's `handover`.
    @discardableResult
    public func handover(to network: String, mode: HandoverMode = .keep, gap: Duration = .zero) async throws -> DeviceEvent? {
        try await proxy.handover(to: network, mode: mode, gapSeconds: gap.seconds)
    }

    /// A timeline `set` step now, in the profile's YAML (or JSON): `"link: {delay: 200ms}"`,
    /// `"link: {down: {rate: 1Mbps}}"`, `"network: wifi\nlink: {loss: 2%}"`. Checked as a
    /// profile is, with the same messages.
    @discardableResult
    public func set(_ change: String) async throws -> DeviceEvent? {
        let kind = try ProfileLoader.setChange(
            yaml: change, source: "the change", networkNames: proxy.profile.networks.map(\.name))
        return try await proxy.trigger(kind)
    }

    /// Pauses the profile's timeline: no scripted event or scripted outage begins until
    /// `resumeTimeline`, and each then begins that much later (an outage in force runs its
    /// course). Throws when the profile has no timeline, has played it all, or it is paused.
    @discardableResult
    public func pauseTimeline() async throws -> TimelinePause {
        try await proxy.pauseTimeline()
    }

    /// Runs the paused timeline again; returns the pause with its end.
    @discardableResult
    public func resumeTimeline() async throws -> TimelinePause {
        try await proxy.resumeTimeline()
    }

    /// Takes back the latest `set` of this phone not yet undone: the fields it set get their
    /// earlier values. Throws if there is none left to undo.
    @discardableResult
    public func undoSet() async throws -> DeviceEvent {
        try await proxy.undoSet()
    }

    /// The live status: network, radio state, open connections, bytes.
    public func status() async throws -> ProxyStatus {
        try await proxy.status()
    }

    /// The run report so far (as `netsim run --report` writes it: docs/run-report.md).
    public func report() async throws -> RunReport {
        try await proxy.report()
    }

    /// The gates `netsim run --fail-if` applies, on the report so far: each expression
    /// (`radio.promotions > 3`, `radio.energyJoules >= 40`, docs/ci.md) that holds, as the
    /// breach line the command prints (with the measured value); empty when none does. An
    /// expression naming a key the run report cannot have throws `Threshold.ParseError`.
    public func breaches(_ gates: String...) async throws -> [String] {
        let thresholds = try gates.map { try Threshold(parsing: $0, schema: .run) }
        let json = try JSONEncoder().encode(try await report())
        let report = try ReportTree(json: json)
        return thresholds.compactMap { $0.breach(in: report) }
    }

    /// What the phone does from now on: radio state changes, timeline events, connections
    /// opening and closing, in order. Each call is a new subscription, which ends when the
    /// phone stops or its consumer stops iterating: subscribe before acting.
    public func events() -> AsyncMapSequence<AsyncStream<NumberedPhoneEvent>, PhoneEvent> { proxy.events().map(\.event) }

    /// The metrics in the Prometheus text format (what `GET /metrics` serves).
    public func metrics() async throws -> String {
        try await proxy.metricsText()
    }

    /// Whether `stop()` has run (by the test, or by `withEmulatedPhone` at the end of its scope).
    public var isStopped: Bool { finalReport.withLockedValue { $0 != nil } }

    /// Stops listening, closes every connection and ends the event streams; returns the final
    /// report. Stopping a stopped phone returns the same report. Throws only if the phone's
    /// event loop has gone (its process is shutting down).
    @discardableResult
    public func stop() async throws -> RunReport {
        if let report = finalReport.withLockedValue({ $0 }) { return report }
        let report = try await proxy.stop()
        finalReport.withLockedValue { $0 = report }
        return report
    }
}

/// Starts a phone as `EmulatedPhone.start(profile:upstream:listen:seed:timeScale:logger:)`
/// does, runs `body` with it, and stops it however `body` ends: returned, thrown or cancelled.
/// `body`'s error is the one thrown; the phone's own stop error only when `body` succeeded.
public func withEmulatedPhone<Result>(
    profile: String, upstream: String, listen: String = "127.0.0.1:0", seed: UInt64 = 1, timeScale: Double = 1,
    logger: Logger = Logger(label: "netsim.phone"), isolation: isolated (any Actor)? = #isolation,
    _ body: (EmulatedPhone) async throws -> Result
) async throws -> Result {
    let phone = try await EmulatedPhone.start(
        profile: profile, upstream: upstream, listen: listen, seed: seed, timeScale: timeScale, logger: logger)
    let result: Result
    do {
        result = try await body(phone)
    } catch {
        _ = try? await phone.stop()
        throw error
    }
    try await phone.stop()
    return result
}

/// A phone that cannot start as asked.
public struct EmulatedPhoneError: Error, CustomStringConvertible, Equatable {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension Duration {
    /// Seconds as the models count them.
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
