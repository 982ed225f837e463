/// When a device's connections died and how long its app took to notice: the keepalive
/// tuner's `--verify` (detection times) and the bench's zombie seconds read both
/// off the same events the same way.
public enum ConnectionDeaths {
    /// Seconds from each death to the app noticing, from a run's events and the times the app
    /// noticed it had lost a connection (an open call ended, a request failed, a connection
    /// closed). A connection dies at a blackhole or reset outage or handover that affected
    /// connections, or when its NAT mapping expired; the first notice after a death is its
    /// detection, and later deaths before that notice died with the same connection. A death
    /// still unnoticed at `end` counts with the time it had been dead, as the model counts it.
    public static func detectionDelays(events: [DeviceEvent], noticed: [Double], end: Double) -> [Double] {
        let deaths = events.compactMap(deathTime).sorted()
        var detections: [Double] = []
        var pending = deaths[...]
        for notice in noticed.sorted() {
            guard let died = pending.first, died <= notice else { continue }
            detections.append(notice - died)
            pending = pending.drop { $0 <= notice }
        }
        if let died = pending.first { detections.append(max(0, end - died)) }
        return detections
    }

    /// When `event` killed the connections open at the time, if it did.
    public static func deathTime(_ event: DeviceEvent) -> Double? {
        switch event.kind {
        case .natExpiry:
            return event.expiredAt ?? event.at
        case .outage, .handover:
            guard (event.affectedConnections ?? 0) > 0, event.mode == .blackhole || event.mode == .reset else { return nil }
            return event.at
        case .set, .signal:
            return nil
        }
    }
}
