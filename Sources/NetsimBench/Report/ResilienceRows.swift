import NetsimCore

// The comparison table's rows for the reconnection and deadline strategies, kept
// apart so the report's other rows and these change independently.
extension ReportFormatting {
    /// Events lost by skipping, the fleet's attempt peak and zombie seconds, for the transports
    /// that have them.
    static func resilienceRows(_ transports: [BenchReport.TransportReport]) -> [(String, [String])] {
        let figures = transports.map(\.resilience)
        guard figures.contains(where: { $0 != nil }) else { return [] }
        var rows: [(String, [String])] = [
            ("Events lost by skipping (subscribed from now)", figures.map { $0.map { "\($0.eventsLostBySkipping)" } ?? "–" })
        ]
        if figures.contains(where: { $0?.connectionAttempts != nil }) {
            rows.append(
                (
                    "Connection attempts (fleet): peak per second; total",
                    figures.map { figure in
                        figure?.connectionAttempts.map { "\($0.peakPerSecond)/s at \(seconds($0.peakSecond)); \($0.total)" } ?? "–"
                    }
                ))
        }
        if figures.contains(where: { $0?.zombieSeconds != nil }) {
            rows.append(
                (
                    "Zombie seconds per dead connection: mean / max (deaths)",
                    figures.map { figure in
                        guard let zombie = figure?.zombieSeconds else { return "–" }
                        return zombie.deaths == 0 ? "no deaths" : "\(seconds(zombie.mean)) / \(seconds(zombie.max)) (\(zombie.deaths))"
                    }
                ))
        }
        return rows
    }
}
