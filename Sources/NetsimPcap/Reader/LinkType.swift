import CPcap

/// The link layers netsim reads, by their libpcap DLT values (what `pcap_datalink` reports;
/// libpcap maps the file's LINKTYPE_ values to these, e.g. LINKTYPE_RAW 101 to DLT_RAW).
public enum LinkType: Sendable, Equatable, CustomStringConvertible {
    case ethernet
    /// Linux cooked capture v1 (`tcpdump -i any` before libpcap 1.10).
    case linuxCooked
    /// Linux cooked capture v2 (`tcpdump -i any` since libpcap 1.10).
    case linuxCookedV2
    /// Raw IP: the version nibble tells IPv4 from IPv6 (DLT_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6).
    case rawIP
    /// BSD loopback (DLT_NULL, host byte order) and OpenBSD loopback (DLT_LOOP).
    case loopback

    /// The link type for a libpcap DLT value, or nil when netsim cannot read it.
    public init?(dataLinkType: Int32) {
        switch dataLinkType {
        case DLT_EN10MB: self = .ethernet
        case DLT_LINUX_SLL: self = .linuxCooked
        case DLT_LINUX_SLL2: self = .linuxCookedV2
        case DLT_RAW, DLT_IPV4, DLT_IPV6: self = .rawIP
        case DLT_NULL, DLT_LOOP: self = .loopback
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .ethernet: "Ethernet"
        case .linuxCooked: "Linux cooked (SLL)"
        case .linuxCookedV2: "Linux cooked v2 (SLL2)"
        case .rawIP: "raw IP"
        case .loopback: "BSD loopback"
        }
    }

    /// What `netsim analyze` says when a capture has another link type.
    static let supportedList = "Ethernet, Linux cooked (SLL, SLL2), raw IP and BSD loopback"
}
