import Foundation
import Logging
import NIOCore
import NetsimAdmin
import NetsimCore
import NetsimInput
import NetsimProxy

extension AdminServer {
    /// An admin server whose `/set` bodies are read by the profile reader, as `netsim run`'s are
    /// (the proxy itself reads no YAML).
    init(proxy: NetsimProxy, limits: AdminLimits = AdminLimits(), access: AdminAccess = AdminAccess()) {
        self.init(proxy: proxy, readSetChange: ProfileLoader.setChange, limits: limits, access: access, logger: Loopback.logger)
    }

    /// Serves the admin API at `address` while `body` runs, given the address it listens at;
    /// then shuts it down (its streams ended, its connections closed) and returns once it has,
    /// whatever `body` throws. The server is a child task of this scope (`serve`).
    static func with<Result>(
        at address: HostPort = HostPort(host: "127.0.0.1", port: 0), proxy: NetsimProxy, limits: AdminLimits = AdminLimits(),
        access: AdminAccess = AdminAccess(), _ body: (HostPort) async throws -> Result
    ) async throws -> Result {
        try await AdminServer(proxy: proxy, limits: limits, access: access).serve(at: address, body)
    }
}

/// Requests written to an admin connection as bytes, and its answers read as HTTP/1.1 frames
/// them (a head, then `Content-Length` bytes): what a client that keeps the connection sees.
enum AdminWire {
    /// Writes `request` (one or several requests, as written) on a new connection and reads
    /// `count` whole answers, or what came before the server closed or `limit` passed; closes.
    static func exchange(
        _ request: String, port: Int, answers count: Int = 1, within limit: Duration = .seconds(10)
    ) async throws
        -> [String]
    {
        let channel = try await Loopback.connect(port: port)
        return try await reading(channel, within: limit) {
            var answers: [String] = []
            var bytes: [UInt8] = []
            do {
                try await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(ByteBuffer(string: request))
                    for try await chunk in inbound {
                        bytes += chunk.readableBytesView
                        while let answer = takeAnswer(&bytes) {
                            answers.append(answer)
                            if answers.count == count { return }
                        }
                    }
                }
            } catch {}
            // Closed early: what came, whole or not.
            return bytes.isEmpty ? answers : answers + [String(decoding: bytes, as: UTF8.self)]
        } ?? []
    }

    /// What `read` returns from `channel`, or nil if it has not returned within `limit` (a
    /// guard against a hang, not a timing assertion); the channel is closed after either.
    static func reading<Value: Sendable>(
        _ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, within limit: Duration, _ read: @escaping @Sendable () async -> Value
    ) async throws -> Value? {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { await read() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            try? await channel.channel.close()
            return first
        }
    }

    /// The first whole answer in `bytes`, taken out of them; nil until it has all arrived.
    static func takeAnswer(_ bytes: inout [UInt8]) -> String? {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let length =
            head.split(separator: "\r\n").compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }.first ?? 0
        let total = end + separator.count + length
        guard bytes.count >= total else { return nil }
        defer { bytes.removeFirst(total) }
        return String(decoding: bytes[..<total], as: UTF8.self)
    }
}

extension NetsimProxy {
    /// A timeline `set` step now, read from YAML by the profile reader (as `EmulatedPhone.set`).
    func set(_ change: String) async throws -> DeviceEvent? {
        try await trigger(ProfileLoader.setChange(yaml: change, source: "the change", networkNames: profile.networks.map(\.name)))
    }
}

/// An echo server behind a proxy, and the admin API over the proxy on a free port: where the
/// admin API's end-to-end tests start.
struct AdminRig {
    let proxy: NetsimProxy
    /// The proxy's forward rule to the echo server.
    let port: Int
    /// The admin API's base URL.
    let base: String

    /// Runs `body` on a rig for `profile`, then stops the admin API, the proxy and the echo
    /// server, whatever `body` throws.
    static func with<Result>(_ profile: Profile, _ body: (AdminRig) async throws -> Result) async throws -> Result {
        let (server, serverPort) = try await Loopback.echoServer()
        let (proxy, port) = try await Loopback.proxy(profile, upstreamPort: serverPort)
        let outcome: Swift.Result<Result, any Error>
        do {
            outcome = .success(
                try await AdminServer.with(proxy: proxy) { admin in
                    try await body(AdminRig(proxy: proxy, port: port, base: "http://127.0.0.1:\(admin.port)"))
                })
        } catch {
            outcome = .failure(error)
        }
        _ = try await proxy.stop()
        try await server.close()
        return try outcome.get()
    }

    /// A connection through the proxy that has made one 10-byte round trip (open, the radio
    /// awake), handed to `body` as its reply iterator and writer; closed after it.
    func withOpenConnection(
        _ body: (
            inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, NIOAsyncChannelOutboundWriter<ByteBuffer>
        ) async throws -> Void
    ) async throws {
        let channel = try await Loopback.connect(port: port)
        try await channel.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            _ = try await Loopback.roundTrip(10, inbound: &iterator, outbound: outbound)
            try await body(&iterator, outbound)
        }
    }
}
