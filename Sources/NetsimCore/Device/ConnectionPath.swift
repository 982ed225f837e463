/// How the emulated path treats one TCP connection's two ends once something went wrong: the
/// part of a connection's lifecycle that both engines share, so that a blackhole, a NAT that
/// forgot the connection, or a write to an end that is gone plays out the same in the proxy
/// (`ConnectionStateMachine`, on sockets) and in the model engine (`DeviceSimulation`'s links,
/// on its agenda). Each engine keeps the rest of the lifecycle its own way: the proxy its
/// channels and delay lines, the model which ends have closed.
///
/// The rules:
/// - A silenced path (blackhole, NAT expiry) swallows everything from then on, bytes already
///   on their way included, and tells nobody.
/// - The first bytes it swallows from an end start that end's TCP retransmitting them; past
///   `tcp_retries2` (`tcpRetransmissionGiveUpSeconds`) the end gives up and its connection
///   fails. Later bytes ride on the same retransmissions: the give-up is armed once per end.
/// - An end that writes towards an end that is gone gets a RST, as the gone end's TCP stack
///   would answer: once, since the RST ends the connection for the writer.
package struct ConnectionPath: Sendable, Equatable {
    package private(set) var isSilenced = false
    /// The ends whose TCP is retransmitting swallowed bytes, towards its give-up.
    private var givingUp = PerDirection(up: false, down: false)
    /// The ends a RST is on its way to.
    private var resetOwed = PerDirection(up: false, down: false)

    package init() {}

    /// The path swallows everything from now on. False if it already did.
    @discardableResult
    package mutating func silence() -> Bool {
        guard !isSilenced else { return false }
        isSilenced = true
        return true
    }

    /// The silenced path swallowed bytes from `side`. True the first time: its give-up is to be
    /// armed now.
    package mutating func swallowed(from side: ConnectionSide) -> Bool {
        guard !givingUp[side] else { return false }
        givingUp[side] = true
        return true
    }

    /// Whether `side`'s TCP is retransmitting swallowed bytes (its give-up is armed).
    package func isGivingUp(_ side: ConnectionSide) -> Bool { givingUp[side] }

    /// `side` wrote towards an end that is gone, or is being reset: a RST goes to it. True the
    /// first time; after that the RST is on its way and what `side` still writes is dropped.
    @discardableResult
    package mutating func owesReset(to side: ConnectionSide) -> Bool {
        guard !resetOwed[side] else { return false }
        resetOwed[side] = true
        return true
    }

    /// Whether a RST is on its way to `side`.
    package func isResetOwed(to side: ConnectionSide) -> Bool { resetOwed[side] }
}
