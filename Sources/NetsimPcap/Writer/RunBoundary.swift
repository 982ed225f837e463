import Foundation
import NetsimCore

/// Where a `netsim run` began or ended, recorded in its capture so that `netsim analyze` covers
/// exactly the run: the radio starts IDLE at the start record and the figures stop at the end
/// record, as the run's own report does (a capture otherwise shows neither: the radio was idle
/// before the first packet, and the run may have stopped in the middle of a tail or an outage).
/// The start record also says which profile, seed and radio the run played (`RunStart`), so
/// that analyze runs the capture through the run's own radio, not a default one.
///
/// The record is an Ethernet frame with the IEEE 802 Local Experimental EtherType 1 (0x88B5)
/// and an ASCII payload, `netsim run-start {JSON}` or `netsim run-end`: tcpdump, tshark and
/// Wireshark read it as an ordinary frame of an unknown protocol ("Local Experimental Ethertype
/// 1"), and `netsim analyze` counts it as neither a packet of the device nor one of another
/// host. A start record without its JSON (a capture of an earlier netsim) is a start all the
/// same.
public enum RunBoundary: Sendable, Equatable {
    /// The run's start, with what it played when the record says.
    case start(RunStart?)
    case end

    static let etherType: UInt16 = 0x88B5
    private static let prefix = Array("netsim ".utf8)
    private static let startWord = "run-start"
    private static let endWord = "run-end"

    /// The frame that records this boundary.
    var frame: [UInt8] {
        var frame = FrameEncoder.deviceMAC + FrameEncoder.gatewayMAC
        frame += [UInt8(Self.etherType >> 8), UInt8(Self.etherType & 0xFF)]
        switch self {
        case .start(let run):
            frame += Self.prefix + Array(Self.startWord.utf8)
            if let run, let json = try? JSONEncoder().encode(run) { frame += Array(" ".utf8) + Array(json) }
        case .end:
            frame += Self.prefix + Array(Self.endWord.utf8)
        }
        // Padded to Ethernet's 60-byte minimum, as a NIC would send it.
        if frame.count < 60 { frame += Array(repeating: 0, count: 60 - frame.count) }
        return frame
    }

    /// The boundary `frame` records, if it is one (an Ethernet capture's frame that is not IP).
    /// A start record whose JSON cannot be read is a start that says nothing of the run.
    static func recognize(_ frame: UnsafeRawBufferPointer, linkType: LinkType) -> RunBoundary? {
        guard linkType == .ethernet, frame.uint16(at: 12) == etherType else { return nil }
        let payload = frame.dropFirst(14)
        guard payload.starts(with: prefix) else { return nil }
        let text = Array(payload.dropFirst(prefix.count).prefix { $0 != 0 })
        let word = String(decoding: text.prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)
        switch word {
        case endWord: return .end
        case startWord:
            let json = text.drop { $0 != UInt8(ascii: " ") }.dropFirst()
            return .start(json.isEmpty ? nil : try? JSONDecoder().decode(RunStart.self, from: Data(json)))
        default: return nil
        }
    }
}

/// What a run's start record says of the run: its profile, seed, and the network it started on
/// with that network's radio (every parameter, a profile's own overrides included).
public struct RunStart: Sendable, Codable, Equatable {
    public var profile: String
    public var seed: UInt64
    public var network: String
    public var radio: RadioParameters

    /// The run of `profile` with `seed`, on the network the profile starts on.
    public init(profile: Profile, seed: UInt64) {
        let network = profile.network(named: profile.start) ?? profile.networks[0]
        self.profile = profile.name
        self.seed = seed
        self.network = network.name
        self.radio = network.radio
    }
}
