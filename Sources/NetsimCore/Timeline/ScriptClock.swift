/// The clock a profile's timeline (its script) runs on. It runs with the emulated clock until
/// the timeline is paused (the admin API's `POST /timeline/pause`), stands still while it is,
/// and runs again, behind by the time paused, once resumed: a scripted event (or scripted
/// outage) due after the pause happens that much later. An event that began before the pause
/// runs its course (a scripted outage in force ends when planned).
///
/// Without a pause it is the identity, exactly: `emulated(x) == x` and `scriptTime(at: t) == t`,
/// so a run that never pauses computes every time as before.
public struct ScriptClock: Sendable, Equatable {
    /// From script time `from` on, the script runs `behind` seconds behind the emulated clock
    /// (the total paused by then).
    private struct Shift: Sendable, Equatable {
        var from: Double
        var behind: Double
    }

    private var shifts: [Shift] = []
    /// The script time at which a pause in force stopped the script; nil while it runs.
    public private(set) var pausedAt: Double?

    /// A clock for a timeline that starts `delay` seconds into the run (`Timeline.staggerDelay`):
    /// the script is that far behind from its start.
    public init(delay: Double = 0) {
        if delay > 0 { shifts = [Shift(from: -.infinity, behind: delay)] }
    }

    /// Whether script and emulated time are the same (never paused).
    public var isIdentity: Bool { shifts.isEmpty && pausedAt == nil }

    /// How far behind the emulated clock the script runs at script time `x`. What the script
    /// had at the very moment of a pause happened before it: only later times are shifted.
    private func behind(at x: Double) -> Double {
        shifts.last { $0.from < x }?.behind ?? 0
    }

    /// The emulated time at which the script reaches `x`; nil while a pause in force holds it
    /// before `x`.
    public func emulated(_ x: Double) -> Double? {
        if let pausedAt, x > pausedAt { return nil }
        return x + behind(at: x)
    }

    /// The script time at emulated time `time`: during a pause, where the pause stopped it.
    public func scriptTime(at time: Double) -> Double {
        var behind = 0.0
        for shift in shifts {
            // A pause stopped the script at `shift.from` until `shift.from + shift.behind`.
            if time >= shift.from + shift.behind {
                behind = shift.behind
            } else if time >= shift.from + behind {
                return shift.from
            } else {
                break
            }
        }
        if let pausedAt, time >= pausedAt + behind { return pausedAt }
        return time - behind
    }

    /// Stops the script at emulated `time` (it must be running).
    public mutating func pause(at time: Double) {
        pausedAt = scriptTime(at: time)
    }

    /// Runs the script again from emulated `time` (it must be paused, and `time` at or after
    /// the pause's start); returns how long it stood still.
    @discardableResult
    public mutating func resume(at time: Double) -> Double {
        guard let pausedAt else { return 0 }
        // Shifts come in script-time order, and the script never runs backwards.
        let before = shifts.last?.behind ?? 0
        let paused = max(0, time - (pausedAt + before))
        shifts.append(Shift(from: pausedAt, behind: before + paused))
        self.pausedAt = nil
        return paused
    }
}
