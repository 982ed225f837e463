import Foundation
import NetsimBench
import NetsimCore
import Synchronization

/// The bench's progress: on a terminal, one line per transport redrawn in place every second;
/// otherwise a plain log line per transport every ten seconds.
final class BenchProgressDisplay: Sendable {
    enum Mode {
        case off, terminal, lines
    }

    private let mode: Mode
    /// Lines drawn last time (to move back over them) and when a log line was last written.
    private let state = Mutex((drawnLines: 0, lastLogged: -Double.infinity))
    /// The model engine's time left, from its pace so far.
    private let remaining = RemainingTime()

    init(mode: Mode) {
        self.mode = mode
    }

    func show(_ progress: BenchProgress) {
        switch mode {
        case .off:
            return
        case .terminal:
            let lines = Self.lines(progress, remaining: remaining)
            let drawn = state.withLock { state in
                defer { state.drawnLines = lines.count }
                return state.drawnLines
            }
            let rewind = drawn > 0 ? "\u{1B}[\(drawn)A" : ""
            FileHandle.standardError.write(Data((rewind + lines.map { "\r\u{1B}[2K\($0)\n" }.joined()).utf8))
        case .lines:
            let due = state.withLock { state in
                // Every ten seconds, and once more when the duration is over.
                let finished = progress.draining && state.lastLogged < progress.durationSeconds
                guard progress.elapsedSeconds - state.lastLogged >= 10 || finished else { return false }
                state.lastLogged = progress.elapsedSeconds
                return true
            }
            if due {
                FileHandle.standardError.write(Data(Self.lines(progress, remaining: remaining).map { "netsim: \($0)\n" }.joined().utf8))
            }
        }
    }

    static func lines(_ progress: BenchProgress, remaining: RemainingTime) -> [String] {
        let clock =
            String(format: "%5.1fs / %@", min(progress.elapsedSeconds, progress.durationSeconds), formatSeconds(progress.durationSeconds))
            + (progress.draining ? " (draining)" : "")
        if let played = progress.devicesPlayed {
            return ["model \(progressBar(played, remaining: remaining)) of the devices played"]
        }
        return progress.transports.map { transport in
            let states = transport.radioStates.sorted { ($0.value, $1.key.reportName) > ($1.value, $0.key.reportName) }
                .map { "\($0.key.reportName) \($0.value)" }.joined(separator: ", ")
            var line =
                "\(transport.transport.title.padding(toLength: 12, withPad: " ", startingAt: 0)) \(clock) | "
                + "events \(transport.eventsDelivered)/\(transport.eventsCreated) | messages \(transport.messagesDelivered)/\(transport.messagesProduced)"
            if !states.isEmpty { line += " | radio \(states)" }
            if transport.disconnectedDevices > 0 { line += " | \(transport.disconnectedDevices) offline" }
            return line
        }
    }

    static func formatSeconds(_ seconds: Double) -> String { String(format: "%.0fs", seconds) }
}

/// The tuner's one-line progress: redrawn in place on a terminal; elsewhere (a CI log, a file)
/// a plain line at every tenth of the work, so a log gets no carriage returns and no flood.
final class ProgressLine: Sendable {
    private let label: String
    private let terminal: Bool
    private let write: @Sendable (String) -> Void
    private let remaining = RemainingTime()
    /// The tenth of the work last logged (lines mode), and whether a line is left unfinished
    /// (terminal mode).
    private let state = Mutex((loggedTenth: -1, lineOpen: false))

    init(
        _ label: String, terminal: Bool = standardErrorIsTerminal,
        write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        self.label = label
        self.terminal = terminal
        self.write = write
    }

    func show(_ fraction: Double) {
        let line = "\(label) \(progressBar(fraction, remaining: remaining))"
        if terminal {
            state.withLock { $0.lineOpen = fraction < 1 }
            write("\r" + line + (fraction >= 1 ? "\n" : ""))
            return
        }
        let tenth = Int((min(max(fraction, 0), 1) * 10).rounded(.down))
        let due = state.withLock { state in
            guard tenth > state.loggedTenth else { return false }
            state.loggedTenth = tenth
            return true
        }
        if due { write(line + "\n") }
    }

    /// Ends a line left unfinished on a terminal (the work stopped early).
    func finish() {
        let lineOpen = state.withLock { state in
            defer { state.lineOpen = false }
            return state.lineOpen
        }
        if lineOpen { write("\n") }
    }
}

/// `[#########.....................]  30%, 2m 10s left`: the model engine's and the tuner's
/// progress, with the time left once some of the work is done.
func progressBar(_ fraction: Double, remaining: RemainingTime) -> String {
    let filled = Int((min(max(fraction, 0), 1) * 30).rounded(.down))
    return "[\(String(repeating: "#", count: filled))\(String(repeating: ".", count: 30 - filled))] "
        + String(format: "%3.0f%%", fraction * 100) + (remaining.estimate(done: fraction).map { ", \($0) left" } ?? "")
}

/// The time a piece of work has left at its pace so far (the ETA of a progress display): a run
/// too big for the machine shows it at once instead of sitting at 0%.
final class RemainingTime: Sendable {
    private let start = ContinuousClock.now

    /// `1h 05m`, `3m 20s`, `12s`; nil before any of the work is done or once all of it is.
    func estimate(done fraction: Double) -> String? {
        guard fraction > 0, fraction < 1 else { return nil }
        let left = Int(((ContinuousClock.now - start) / .seconds(1) * (1 - fraction) / fraction).rounded(.up))
        if left >= 3600 { return String(format: "%dh %02dm", left / 3600, left % 3600 / 60) }
        if left >= 60 { return String(format: "%dm %02ds", left / 60, left % 60) }
        return "\(left)s"
    }
}
