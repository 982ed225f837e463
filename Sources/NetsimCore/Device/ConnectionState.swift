struct ConnectionState: Sendable {
    enum Fate: Sendable { case open, silenced, reset }
    var lastActivity: Double
    var fate = Fate.open
    /// When the SYN got through (later than the connect when an outage held it). Until then
    /// the phone's TCP is still retransmitting its SYN: an outage or handover that starts
    /// meanwhile has no connection to kill, and the handshake completes after it.
    var establishedAt: Double
}
