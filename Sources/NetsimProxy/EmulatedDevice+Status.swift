import Logging
import NIOCore
import NIOPosix
import NetsimConnection
import NetsimCore

extension EmulatedDevice {
    func status() -> ProxyStatus {
        let now = clock.now()
        let listed = connections.keys.sorted().prefix(ProxyStatus.connectionListLimit).compactMap { id in
            connections[id].map { connection in
                ProxyStatus.ConnectionStatus(
                    id: id, destination: connection.destination.name, openedAt: connection.openedAt,
                    bytes: connection.bytesDelivered,
                    queuedBytes: PerDirection(up: connection.bytesWaiting(.up), down: connection.bytesWaiting(.down)))
            }
        }
        return ProxyStatus(
            elapsedSeconds: now, network: model.network.name, networks: model.profile.networks.map(\.name),
            radioState: model.radioState(at: now), radio: model.radioReport(until: now), openConnections: connections.count,
            bytes: tally.bytesDelivered,
            queuedBytes: queuedBytes, disconnected: model.isDisconnected(at: now), lastEvent: model.lastEvent,
            link: model.network.linkFigures, connections: listed, recentWakeUps: tally.recentWakeUps, timeline: timelineState)
    }

    /// Bytes read and not yet delivered, over every open connection.
    private var queuedBytes: PerDirection<Int> {
        var queued = PerDirection(up: 0, down: 0)
        for connection in connections.values {
            queued.up += connection.bytesWaiting(.up)
            queued.down += connection.bytesWaiting(.down)
        }
        return queued
    }

    func metricsSnapshot() -> ProxyMetrics.Snapshot {
        let now = clock.now()
        let radio = model.radioReport(until: now)
        let queued = queuedBytes
        let counts = datagrams.counts
        return ProxyMetrics.Snapshot(
            bytes: tally.bytesDelivered, connectionsOpened: tally.connections.opened, openConnections: connections.count,
            radioState: model.radioState(at: now), wakeSeconds: radio.wakeSeconds, promotions: radio.promotions,
            energyJoules: radio.energyJoules, queuedBytes: queued, eventCounts: model.eventCounts,
            datagramsDelivered: PerDirection(up: counts.up.delivered, down: counts.down.delivered),
            datagramsDropped: PerDirection(
                up: counts.up.dropped.values.reduce(0, +), down: counts.down.dropped.values.reduce(0, +)))
    }

    func report() -> RunReport {
        let now = clock.now()
        return RunReport(
            netsimVersion: NetsimVersion.current, profile: model.profile.name, seed: seed, durationSeconds: now,
            connections: tally.connections, bytes: tally.bytesDelivered, segments: tally.segmentsDelivered,
            radio: model.radioReport(until: now),
            radioLatency: model.radioWaits(until: now), chunkDelays: model.chunkDelays(until: now),
            destinations: tally.destinationFigures(until: now), events: model.events,
            eventCounts: model.eventCounts,
            eventsNotListed: model.eventCounts.values.reduce(0, +) - model.events.count, phone: number,
            timelinePauses: model.timelinePauses.isEmpty ? nil : model.timelinePauses,
            timelineDelaySeconds: model.timelineDelay > 0 ? model.timelineDelay : nil, datagrams: datagrams.figures,
            readerWait: tally.readerWait)
    }

    /// Where the profile's timeline is, for `/status`.
    private var timelineState: ProxyStatus.TimelineState {
        if model.profile.timeline.events.isEmpty { return .none }
        if model.isTimelinePaused { return .paused }
        return model.timelineHasEventsAhead ? .playing : .over
    }
}
