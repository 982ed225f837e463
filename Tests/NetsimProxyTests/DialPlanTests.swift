import NetsimTestSupport
import Testing

@testable import NetsimProxy

/// The steps of dialing a front end's destination, without sockets or a resolver.
@Suite(.computes) struct DialPlanTests {
    static func plan(_ destination: String, port: Int = 443, _ access: AccessPolicy = AccessPolicy()) -> DialPlan {
        DialPlan(destination: HostPort(host: destination, port: port), access: access)
    }

    @Test("an address is dialed at once; a name is looked up first")
    func addressesAndNames() {
        #expect(Self.plan("203.0.113.7").first == .connect(IPAddressBytes("203.0.113.7")!))
        #expect(Self.plan("api.example.com").first == .lookUp(name: "api.example.com"))
        #expect(
            Self.plan("api.example.com").afterLookup(resolvedTo: IPAddressBytes("203.0.113.7")) == .connect(IPAddressBytes("203.0.113.7")!))
        #expect(Self.plan("api.example.com").afterLookup(resolvedTo: nil) == .refuse(.unresolvable))
    }

    @Test("a name no --allow-to rule can allow is refused without a lookup")
    func refusedBeforeTheLookup() {
        let onlyExample = AccessPolicy(allowTo: [DestinationPattern("*.example.com")!])
        #expect(Self.plan("tracker.invalid", onlyExample).first == .refuse(.notAllowed(.notAllowed)))
        #expect(Self.plan("api.example.com", onlyExample).first == .lookUp(name: "api.example.com"))
        #expect(Self.plan("198.51.100.1", onlyExample).first == .refuse(.notAllowed(.notAllowed)))
    }

    @Test("a name that resolves to netsim's own listener, or to loopback on an exposed front end, is refused then")
    func refusedOnTheAddressItResolvedTo() {
        var policy = AccessPolicy()
        policy.ownListeners = [OwnListener(address: IPAddressBytes("127.0.0.1")!, port: 8474)]
        #expect(Self.plan("admin.example", port: 8474, policy).first == .lookUp(name: "admin.example"))
        #expect(
            Self.plan("admin.example", port: 8474, policy).afterLookup(resolvedTo: IPAddressBytes("127.0.0.1"))
                == .refuse(.notAllowed(.ownListener)))
        let exposed = AccessPolicy(refusesLocalDestinations: true)
        #expect(
            Self.plan("localhost.example", exposed).afterLookup(resolvedTo: IPAddressBytes("127.0.0.1"))
                == .refuse(.notAllowed(.localDestination)))
        #expect(Self.plan("127.0.0.1", exposed).first == .refuse(.notAllowed(.localDestination)))
    }
}
