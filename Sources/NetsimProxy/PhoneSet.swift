import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// A run's phones (`netsim run --phones N`) and the rule that gives each client one
/// (`PhoneAssignment`). Lives on the phones' one event loop, as the phones do.
final class PhoneSet {
    /// The phones, phone K at index K - 1.
    let devices: [EmulatedDevice]
    let logger: Logger
    private var assignment: PhoneAssignment

    init(devices: [EmulatedDevice], logger: Logger) {
        self.devices = devices
        self.logger = logger
        self.assignment = PhoneAssignment(count: devices.count)
    }

    /// The phone a forward rule names, else the one `client`'s source address gets.
    func device(forRule phone: Int?, client: any Channel) -> EmulatedDevice {
        device(forRule: phone, source: Self.source(of: client))
    }

    /// The phone a forward rule names, else the one the source address `source` gets.
    func device(forRule phone: Int?, source: IPAddressBytes?) -> EmulatedDevice {
        devices[(phone ?? assignment.phone(forSource: source)) - 1]
    }

    /// The phone a front end's client named (its SOCKS5 or proxy user), else the one its
    /// source address gets; a refusal when the name names no phone.
    func device(named name: String?, client: any Channel) -> Result<EmulatedDevice, PhoneAssignment.Refusal> {
        assignment.phone(forName: name, source: Self.source(of: client)).map { devices[$0 - 1] }
    }

    /// Whether clients choose among several phones: a front end then reads the name a client
    /// gives, even where it asks for no authentication.
    var clientsChoose: Bool { devices.count > 1 }

    private static func source(of client: any Channel) -> IPAddressBytes? {
        client.remoteAddress?.ipAddress.flatMap(IPAddressBytes.init)
    }

    /// The user of an HTTP `Proxy-Authorization: Basic` header (RFC 7617), if there is one.
    static func proxyUser(_ headers: HTTPHeaders) -> String? {
        guard let value = headers.first(name: "proxy-authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let decoded = Data(base64Encoded: String(parts[1])) else { return nil }
        let text = String(decoding: decoded, as: UTF8.self)
        return String(text.prefix { $0 != ":" })
    }
}
