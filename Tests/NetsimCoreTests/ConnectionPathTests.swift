import NetsimCore
import NetsimTestSupport
import Testing

@Suite("Connection sides and the path's rules", .computes)
struct ConnectionPathTests {
    @Test("a side's value is the one of the direction it sends: the client's up, the upstream's down")
    func sideSubscriptReadsAndWritesTheSendingDirection() {
        var pair = PerDirection(up: "up", down: "down")
        #expect(pair[.client] == "up")
        #expect(pair[.upstream] == "down")
        pair[.client] = "client"
        pair[.upstream] += " and upstream"
        #expect(pair == PerDirection(up: "client", down: "down and upstream"))
    }

    @Test("a silenced path arms each side's give-up once, at its first swallowed bytes, and the other side's apart")
    func giveUpIsArmedOncePerSide() {
        var path = ConnectionPath()
        #expect(!path.isSilenced)
        let silencings = [path.silence(), path.silence()]
        #expect(silencings == [true, false])
        #expect(path.isSilenced)
        #expect(!path.isGivingUp(.client))
        let clientArmings = [path.swallowed(from: .client), path.swallowed(from: .client)]
        #expect(clientArmings == [true, false])
        #expect(path.isGivingUp(.client))
        #expect(!path.isGivingUp(.upstream))
        let upstreamArming = path.swallowed(from: .upstream)
        #expect(upstreamArming)
        #expect(path.isGivingUp(.upstream))
    }

    @Test("a write to a gone side earns its writer one RST; what it writes after is dropped")
    func resetIsOwedOncePerSide() {
        var path = ConnectionPath()
        #expect(!path.isResetOwed(to: .upstream))
        let upstreamResets = [path.owesReset(to: .upstream), path.owesReset(to: .upstream)]
        #expect(upstreamResets == [true, false])
        #expect(path.isResetOwed(to: .upstream))
        #expect(!path.isResetOwed(to: .client))
        let clientReset = path.owesReset(to: .client)
        #expect(clientReset)
        #expect(!path.isSilenced)
    }
}
