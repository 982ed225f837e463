import NetsimConnection
import NetsimCore
import Testing

@Suite("Connection sides")
struct ConnectionSidesTests {
    @Test("a side's value is the one of the direction it sends: the client's up, the upstream's down")
    func sideSubscriptReadsAndWritesTheSendingDirection() {
        var pair = PerDirection(up: "up", down: "down")
        #expect(pair[.client] == "up")
        #expect(pair[.upstream] == "down")
        pair[.client] = "client"
        pair[.upstream] += " and upstream"
        #expect(pair == PerDirection(up: "client", down: "down and upstream"))
    }
}
