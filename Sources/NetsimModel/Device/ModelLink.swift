import NetsimCore

/// One connection as both ends see it.
struct ModelLink: Sendable {
    var clientOpen = true
    var serverOpen = true
    /// When the profile killed it silently (blackhole, NAT expiry), for detection times.
    var diedAt: Double?
    /// Silenced (the path swallows everything on it from now on, bytes already on their way
    /// included, as the proxy drops its queues), the sides whose give-up is armed, and the
    /// sides a write to a closed receiver earned a RST: the rules the proxy's connections follow.
    var path = ConnectionPath()
    /// The last time bytes crossed it, for the NAT's idle timer.
    var lastActivity: Double
    /// When it became the app's connection after waiting idle as the client's spare: a NAT
    /// mapping that expired before then killed nothing the app relied on until bytes found it
    /// gone, which is when its death counts (as `ConnectionDeaths` dates it live).
    var promotedAt: Double?

    /// Uplink bytes got through at `time`: they refresh the NAT's mapping then, never backwards.
    mutating func bytesGotThrough(at time: Double) {
        lastActivity = max(lastActivity, time)
    }
}
