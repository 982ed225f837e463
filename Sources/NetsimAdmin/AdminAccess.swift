import NIOHTTP1
import NetsimCore
import NetsimProxy

/// Who may use the admin API, checked on every request before it is answered.
///
/// The admin API drives the phone (outages, network moves, `set` steps) and tells what crossed
/// it (destinations), so it is shut to everyone but its user:
/// - **Beyond loopback, a token.** Listening on another address needs a token of at least
///   `minimumTokenLength` characters, and every request but the dashboard's own files (which
///   hold no data) must carry it as `Authorization: Bearer TOKEN` (the scheme in any case, as
///   RFC 7235 has it); `AdminServer.serve` refuses such an address without one.
/// - **On loopback, no other site.** A web page the user has open elsewhere can send requests
///   to `127.0.0.1`: without a token, a request must name a loopback host (`Host: localhost`,
///   `127.0.0.1`, `[::1]`, so that a DNS name rebound to loopback is refused), and a POST from
///   a browser must come from the admin API's own page (its `Origin` is this host).
/// - **One reading of every request.** A request whose target is not a path (the absolute
///   form `http://host/status` a proxy is sent, `*`, an authority) or that carries two `Host`,
///   `Origin` or `Authorization` headers is refused with a 400: two readings of one request
///   (the first header or the last, the target's host or the header's) are how a check is
///   passed by one and the request served by the other.
///
/// The rules are a value over the request's method, target and headers, apart from the HTTP
/// library that parsed them (`refusal(method:target:headers:needsToken:)`).
public struct AdminAccess: Sendable {
    /// The bearer token every data request must carry; nil on loopback without one.
    public var token: String?

    /// The shortest token taken. A token guards an API that anyone who reaches the port may
    /// ask as often as they like, so it must not be guessable by trying: 16 characters even of
    /// lowercase hex (`openssl rand -hex 16` gives 32) are 64 bits, years of guessing at any
    /// rate a socket allows; a word, a PIN or an empty string is not.
    public static let minimumTokenLength = 16

    public init(token: String? = nil) {
        self.token = token
    }

    /// Why `token` cannot guard the API (empty, or shorter than `minimumTokenLength`); nil
    /// when it can. `source` names where it came from (`--admin-token`, `NETSIM_ADMIN_TOKEN`).
    public static func weakness(of token: String, source: String) -> AdminTokenTooWeak? {
        token.count >= minimumTokenLength ? nil : AdminTokenTooWeak(source: source, length: token.count)
    }

    /// Why a request may not be answered: the HTTP status and the message to answer with.
    public struct Refusal: Sendable, Equatable {
        public var status: Int
        public var message: String
    }

    /// Why the request may not be answered; nil when it may. `headers` are the request's, as
    /// sent (names in any case); `needsToken` whether the endpoint holds data a token guards.
    public func refusal(method: String, target: String, headers: [(name: String, value: String)], needsToken: Bool) -> Refusal? {
        if !target.hasPrefix("/") || target.hasPrefix("//") {
            return Refusal(
                status: 400,
                message:
                    "the request target must be a path such as /status, not '\(target.escapingControlCharacters)': the admin API is not a proxy"
            )
        }
        func values(_ name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name }.map(\.value)
        }
        let hosts = values("host")
        let origins = values("origin")
        let authorizations = values("authorization")
        for (name, given) in [("Host", hosts), ("Origin", origins), ("Authorization", authorizations)] where given.count > 1 {
            return Refusal(status: 400, message: "the request carries \(given.count) \(name) headers: send one")
        }
        let host = hosts.first
        if let token {
            if needsToken, !Self.carries(token, authorizations.first) {
                return Refusal(
                    status: 401, message: "this admin API needs its token: send 'Authorization: Bearer TOKEN' (netsim run --admin-token)")
            }
        } else if let host, !Self.namesLoopback(host) {
            return Refusal(
                status: 403,
                message:
                    "the admin API answers only to a loopback host name (localhost, 127.0.0.1, [::1]), not '\(host.escapingControlCharacters)': a page on another site may not reach it"
            )
        }
        if method == "POST", let origin = origins.first, origin != "http://\(host ?? "")" {
            return Refusal(
                status: 403,
                message:
                    "a POST from another site's page (Origin '\(origin.escapingControlCharacters)') is refused; use the admin API's own page or a client without an Origin"
            )
        }
        return nil
    }

    /// `refusal(method:target:headers:needsToken:)` of a request NIO parsed.
    func refusal(of head: HTTPRequestHead, needsToken: Bool) -> Refusal? {
        refusal(method: head.method.rawValue, target: head.uri, headers: head.headers.map { ($0.name, $0.value) }, needsToken: needsToken)
    }

    /// Whether `authorization` is the `Bearer` scheme (in any case: RFC 7235 makes auth schemes
    /// case-insensitive) with `token`, compared in time that does not depend on where they
    /// differ.
    private static func carries(_ token: String, _ authorization: String?) -> Bool {
        guard let authorization else { return false }
        let scheme = authorization.prefix { $0 != " " }
        guard scheme.lowercased() == "bearer" else { return false }
        let given = Array(authorization.dropFirst(scheme.count).drop { $0 == " " }.utf8)
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

/// A token too short to guard the admin API (`AdminAccess.minimumTokenLength`).
public struct AdminTokenTooWeak: Error, CustomStringConvertible, Equatable {
    /// Where the token came from: `--admin-token`, `NETSIM_ADMIN_TOKEN`.
    public let source: String
    public let length: Int

    public var description: String {
        let given = length == 0 ? "is empty" : "has \(length) character\(length == 1 ? "" : "s")"
        return
            "\(source) \(given): an admin token needs at least \(AdminAccess.minimumTokenLength) characters, so that it cannot be guessed by trying (e.g. openssl rand -hex 16)"
    }
}
