import NIOHTTP1

/// Who may use the admin API, checked on every request before it is answered.
///
/// The admin API drives the phone (outages, network moves, `set` steps) and tells what crossed
/// it (destinations), so it is shut to everyone but its user:
/// - **Beyond loopback, a token.** Listening on another address needs a token, and every
///   request but the dashboard's own files (which hold no data) must carry it as
///   `Authorization: Bearer TOKEN`; `AdminServer.start` refuses such an address without one.
/// - **On loopback, no other site.** A web page the user has open elsewhere can send requests
///   to `127.0.0.1`: without a token, a request must name a loopback host (`Host: localhost`,
///   `127.0.0.1`, `[::1]`, so that a DNS name rebound to loopback is refused), and a POST from
///   a browser must come from the admin API's own page (its `Origin` is this host).
public struct AdminAccess: Sendable {
    /// The bearer token every data request must carry; nil on loopback without one.
    public var token: String?

    public init(token: String? = nil) {
        self.token = token
    }

    /// Why the request may not be answered, as the status and message to answer it with; nil
    /// when it may.
    func refusal(of head: HTTPRequestHead, needsToken: Bool) -> (status: HTTPResponseStatus, message: String)? {
        let host = head.headers.first(name: "host")
        if let token {
            if needsToken, !Self.carries(token, head) {
                return (.unauthorized, "this admin API needs its token: send 'Authorization: Bearer TOKEN' (netsim run --admin-token)")
            }
        } else if let host, !Self.namesLoopback(host) {
            return (
                .forbidden,
                "the admin API answers only to a loopback host name (localhost, 127.0.0.1, [::1]), not '\(host)': a page on another site may not reach it"
            )
        }
        if head.method == .POST, let origin = head.headers.first(name: "origin"), origin != "http://\(host ?? "")" {
            return (
                .forbidden,
                "a POST from another site's page (Origin '\(origin)') is refused; use the admin API's own page or a client without an Origin"
            )
        }
        return nil
    }

    /// Whether the request's `Authorization` is `Bearer` with `token`, compared in time that does
    /// not depend on where they differ.
    private static func carries(_ token: String, _ head: HTTPRequestHead) -> Bool {
        guard let authorization = head.headers.first(name: "authorization"), authorization.hasPrefix("Bearer ") else { return false }
        let given = Array(authorization.utf8.dropFirst("Bearer ".utf8.count))
        let expected = Array(token.utf8)
        var difference = given.count ^ expected.count
        for index in expected.indices {
            difference |= Int(expected[index] ^ (index < given.count ? given[index] : 0))
        }
        return difference == 0
    }

    /// Whether a `Host` header names loopback: `localhost`, an IPv4 loopback address or `[::1]`,
    /// with or without a port.
    static func namesLoopback(_ host: String) -> Bool {
        let name: Substring
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            name = host[host.index(after: host.startIndex)..<close]
        } else {
            name = host.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        }
        return HostPort(host: String(name), port: 0).isLoopback
    }
}

/// The admin API may not listen beyond loopback without a token.
public struct AdminNeedsToken: Error, CustomStringConvertible {
    let address: HostPort

    public var description: String {
        "the admin API on \(address) listens beyond loopback: give it a token (--admin-token, or NETSIM_ADMIN_TOKEN), or listen on loopback"
    }
}
