/// Picks the device's addresses when `--device-ip` is not given: in a phone's capture the phone
/// is an endpoint of every packet, each server only of its own flows'.
///
/// Rule, per IP version, over the first `window` IP packets: the address in the most packets;
/// a tie goes to a private address (RFC 1918, carrier-grade NAT, link-local, IPv6 unique
/// local), then to the sender of the earliest packet.
struct DeviceAddressInference {
    /// Packets looked at before deciding; the analyzer holds their summaries until then.
    static let window = 10_000

    private var counts: [IPAddress: (packets: Int, firstSeen: Int)] = [:]
    private(set) var packetsSeen = 0

    mutating func add(source: IPAddress, destination: IPAddress) {
        // The sender is counted first, so on a tie `firstSeen` favours the earliest sender.
        count(source)
        if destination != source { count(destination) }
        packetsSeen += 1
    }

    private mutating func count(_ address: IPAddress) {
        let order = counts.count
        counts[address, default: (0, order)].packets += 1
    }

    var isComplete: Bool { packetsSeen >= Self.window }

    /// The inferred addresses, at most one IPv4 and one IPv6.
    func deviceAddresses() -> [IPAddress] {
        let ranked = counts.sorted { lhs, rhs in
            if lhs.value.packets != rhs.value.packets { return lhs.value.packets > rhs.value.packets }
            if lhs.key.isPrivate != rhs.key.isPrivate { return lhs.key.isPrivate }
            return lhs.value.firstSeen < rhs.value.firstSeen
        }
        return [true, false].compactMap { ipv4 in ranked.first { $0.key.isIPv4 == ipv4 }?.key }
    }
}
