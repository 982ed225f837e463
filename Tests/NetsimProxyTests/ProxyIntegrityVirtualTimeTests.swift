import NetsimCore
import NetsimInput
import NetsimTestSupport
import Testing

@testable import NetsimProxy

/// Integrity on virtual time: whatever the profile, bytes arrive unaltered and in order, and
/// only the profile may end a connection early. Each built-in profile plays its own timeline
/// in emulated seconds (outages, handovers, NAT timeouts), exact to the step rather than at a
/// time scale a loaded machine may miss; `ProxyIntegrityTests` keeps a few of them on real
/// sockets.
@Suite(.computes) struct ProxyIntegrityVirtualTimeTests {
    /// 10 MB of random bytes echoed through the profile's phone, played until every byte is
    /// back, the proxy ends the connection, or nothing has moved for longer than the phone's
    /// TCP waits before it gives up (924.6 s): a silence shorter than that may be TCP's
    /// backed-off retransmission through repeated outages, one longer is a connection the proxy
    /// should have failed.
    /// Where the profile kills the connection, what arrived must still be an unaltered prefix
    /// of what was sent.
    @Test(arguments: ProfileCatalog.builtinNames)
    func tenMegabytesSurviveBuiltInProfile(name: String) throws {
        let phone = try VirtualPhone(try ProfileCatalog.builtin(named: name), seed: 5)
        let connection = try phone.connect()
        let payload = Loopback.randomBytes(10_000_000, seed: 5)
        connection.write(payload)
        var received = 0
        var lastMoved = phone.now
        while connection.clientReceived.count < payload.count, connection.clientIsOpen,
            phone.now - lastMoved <= tcpRetransmissionGiveUpSeconds + 1
        {
            try phone.advance(to: phone.now + 1, step: 0.01)
            if connection.clientReceived.count != received {
                received = connection.clientReceived.count
                lastMoved = phone.now
            }
        }
        let report = try phone.stop()
        let echoed = connection.clientReceived
        #expect(Array(payload.prefix(echoed.count)) == echoed, "what arrived is a prefix of what was sent")
        #expect(connection.serverReceived == Array(payload.prefix(connection.serverReceived.count)))
        if echoed.count < payload.count {
            #expect(
                report.connections.reset + report.connections.blackholed > 0,
                "only the profile may kill a connection: \(echoed.count) bytes back by \(phone.now) s, \(report.bytes), \(report.connections)"
            )
        }
    }
}
