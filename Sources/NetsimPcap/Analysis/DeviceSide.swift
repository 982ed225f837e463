/// Which end of a flow is the device when both ends have its address: a capture on loopback
/// beside a local proxy (`tcpdump -i lo` next to `netsim run`) shows 127.0.0.1 talking to
/// 127.0.0.1, and the lower port (the proxy's or server's listening port) used to be taken as
/// the device, swapping up and down. The device is the client: the end with a port it was
/// given, else the one ephemeral port (Linux's default range starts at 32768, IANA's at 49152;
/// listening ports sit below), else the higher port, counted as a guess.
enum DeviceSide {
    /// The lowest port an operating system hands out for an outgoing connection by default.
    static let lowestEphemeralPort: UInt16 = 32768

    static func ofSameAddressFlow(aPort: UInt16, bPort: UInt16, devicePorts: Set<UInt16>) -> (deviceIsA: Bool?, guessed: Bool) {
        if !devicePorts.isEmpty {
            if devicePorts.contains(aPort) { return (true, false) }
            if devicePorts.contains(bPort) { return (false, false) }
            return (nil, false)
        }
        let aEphemeral = aPort >= lowestEphemeralPort
        let bEphemeral = bPort >= lowestEphemeralPort
        if aEphemeral != bEphemeral { return (aEphemeral, false) }
        return (aPort > bPort, true)
    }
}
