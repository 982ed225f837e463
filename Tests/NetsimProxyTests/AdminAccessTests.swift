import NetsimProxy
import NetsimTestSupport
import Testing

@testable import NetsimAdmin

/// `AdminAccess` as a value: what it says of a request's method, target and headers, with no
/// socket. (What the server does with its answer is `AdminDashboardTests`'.)
@Suite(.computes) struct AdminAccessTests {
    static let token = "0123456789abcdef0123"

    func status(_ access: AdminAccess, _ headers: [(String, String)], method: String = "GET", target: String = "/status") -> Int? {
        access.refusal(method: method, target: target, headers: headers.map { (name: $0.0, value: $0.1) }, needsToken: true)?.status
    }

    @Test func theBearerSchemeIsMatchedInAnyCase() {
        let access = AdminAccess(token: Self.token)
        for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
            #expect(status(access, [("Host", "h"), ("Authorization", "\(scheme) \(Self.token)")]) == nil, "\(scheme)")
        }
        #expect(status(access, [("authorization", "Bearer  \(Self.token)")]) == nil, "more than one space after the scheme")
        #expect(status(access, [("Authorization", "Basic \(Self.token)")]) == 401)
        #expect(status(access, [("Authorization", "Bearer\(Self.token)")]) == 401)
        #expect(status(access, [("Authorization", "Bearer \(Self.token)x")]) == 401)
        #expect(status(access, [("Authorization", "Bearer")]) == 401)
        #expect(status(access, [(String, String)]()) == 401)
    }

    @Test func tokensTooShortToResistGuessingAreRefused() {
        #expect(AdminAccess.weakness(of: "", source: "--admin-token") == AdminTokenTooWeak(source: "--admin-token", length: 0))
        #expect(AdminAccess.weakness(of: "", source: "--admin-token")?.description.hasPrefix("--admin-token is empty: ") == true)
        #expect(AdminAccess.weakness(of: "s3cret", source: "NETSIM_ADMIN_TOKEN")?.length == 6)
        #expect(AdminAccess.weakness(of: String(repeating: "x", count: AdminAccess.minimumTokenLength - 1), source: "t") != nil)
        #expect(AdminAccess.weakness(of: String(repeating: "x", count: AdminAccess.minimumTokenLength), source: "t") == nil)
    }

    /// Two readings of one request: a check passed by the first header and the request served
    /// by the last, or the target's host against the header's.
    @Test func twoHostsTwoOriginsAndTargetsThatAreNotPathsAre400s() {
        let loopback = AdminAccess()
        #expect(status(loopback, [("Host", "localhost"), ("Host", "attacker.example")]) == 400)
        #expect(status(loopback, [("host", "localhost"), ("HOST", "localhost")]) == 400)
        #expect(
            status(loopback, [("Host", "localhost"), ("Origin", "http://localhost"), ("Origin", "https://a.example")], method: "POST")
                == 400)
        #expect(status(AdminAccess(token: Self.token), [("Authorization", "Bearer \(Self.token)"), ("Authorization", "Bearer x")]) == 400)
        for target in ["http://127.0.0.1:8474/status", "*", "127.0.0.1:8474", "//attacker.example/status", ""] {
            let refusal = loopback.refusal(method: "GET", target: target, headers: [(name: "Host", value: "localhost")], needsToken: true)
            #expect(refusal?.status == 400 && refusal?.message.contains("must be a path") == true, "\(target)")
        }
        #expect(status(loopback, [("Host", "localhost")]) == nil)
        #expect(status(loopback, [("Host", "localhost"), ("Origin", "http://localhost")], method: "POST") == nil)
        #expect(status(loopback, [("Host", "attacker.example")]) == 403)
    }
}
