import Logging
import NIOCore
import NetsimCore
import NetsimInput
import NetsimProxy

extension AdminServer {
    /// An admin server whose `/set` bodies are read by the profile reader, as `netsim run`'s are
    /// (the proxy itself reads no YAML).
    static func start(
        at address: HostPort, proxy: NetsimProxy, group: any EventLoopGroup, limits: AdminLimits = AdminLimits(),
        access: AdminAccess = AdminAccess(), logger: Logger = Logger(label: "netsim.admin")
    ) async throws -> AdminServer {
        try await start(
            at: address, proxy: proxy, readSetChange: ProfileLoader.setChange, group: group, limits: limits, access: access,
            logger: logger)
    }
}

extension NetsimProxy {
    /// A timeline `set` step now, read from YAML by the profile reader (as `EmulatedPhone.set`).
    func set(_ change: String) async throws -> DeviceEvent? {
        try await trigger(ProfileLoader.setChange(yaml: change, source: "the change", networkNames: profile.networks.map(\.name)))
    }
}
