import NetsimCore

extension RadioState {
    /// The one colour each state is drawn in, by every report (`bench`'s timelines, `analyze`'s
    /// lanes): awake states warm, the most awake darkest, idle ones cool or grey, so a reader
    /// who learnt the colours in one report reads them in the other.
    public var chartColor: String {
        switch self {
        case .promotion: "#7b3294"
        case .continuousReception, .connected, .dch, .active: "#d7191c"
        case .shortDRX, .fach: "#fdae61"
        case .longDRX: "#fee08b"
        case .inactive: "#abd9e9"
        case .idle: "#e0e0e0"
        }
    }

    /// The order legends list states in: by name, the order reports have always used.
    public static func byName(_ first: RadioState, _ second: RadioState) -> Bool {
        first.rawValue < second.rawValue
    }
}
