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
    ///
    /// A NAT mapping that expired before a notice but was found gone only after it belonged to
    /// a connection the app was not relying on then: an idle second connection (grpc-swift 2's
    /// load balancer keeps one after a roll-over) that the app's next call moved onto. Its
    /// death counts from when the reopened call's bytes found it gone, as the model counts a
    /// connection's death from when it became the app's at the earliest: otherwise the notice of
    /// the first death swallows it, and the reopened call's wait on a dead connection goes
    /// uncounted.
    public static func detectionDelays(events: [DeviceEvent], noticed: [Double], end: Double) -> [Double] {
        let notices = noticed.sorted()
        let deaths = events.compactMap { deathTime($0, noticed: notices) }.sorted()
        var detections: [Double] = []
        var pending = deaths[...]
        for notice in notices {
            guard let died = pending.first, died <= notice else { continue }
            detections.append(notice - died)
            pending = pending.drop { $0 <= notice }
        }
        if let died = pending.first { detections.append(max(0, end - died)) }
        return detections
    }

    /// When `event` killed a connection the app relied on, given the app's sorted `notices`: a
    /// NAT mapping found gone after a notice that came after it expired counts from its finding.
    static func deathTime(_ event: DeviceEvent, noticed notices: [Double]) -> Double? {
        guard let died = deathTime(event) else { return nil }
        guard event.kind == .natExpiry, notices.contains(where: { $0 > died && $0 <= event.at }) else { return died }
        return event.at
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
