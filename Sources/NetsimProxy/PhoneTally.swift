import NetsimCore

/// What one phone's report, status and metrics count beside the model's own figures:
/// connections by how they ended, the bytes and segments delivered, each destination's
/// connections and waits, and the latest radio wake-ups. A value with no I/O and no clock:
/// `EmulatedDevice` tells it what happened, and when.
struct PhoneTally {
    private(set) var connections = ConnectionCounters()
    private(set) var bytesDelivered = PerDirection<Int>(up: 0, down: 0)
    private(set) var segmentsDelivered = SegmentCounts()
    private(set) var readerWait = PerDirection(up: ReaderWaitFigures(), down: ReaderWaitFigures())
    /// The latest wake-ups, for `/status` (`ProxyStatus.wakeUpListLimit` of them at most).
    private(set) var recentWakeUps: [WakeUp] = []
    private var destinations = DestinationWaitLedger()

    mutating func connectionOpened() { connections.opened += 1 }
    mutating func connectionReset() { connections.reset += 1 }
    mutating func connectionSilenced() { connections.blackholed += 1 }
    mutating func connectionClosed() { connections.closed += 1 }

    /// Bytes written to the side they were going to.
    mutating func delivered(_ bytes: Int, _ direction: Direction) {
        bytesDelivered[direction] += bytes
        segmentsDelivered.add(bytes, direction)
    }

    /// A chunk of `bytes` the link had delivered waited `seconds` for the receiving socket to
    /// take it.
    mutating func waitedForReader(_ bytes: Int, _ direction: Direction, seconds: Double) {
        readerWait[direction].add(bytes: bytes, waited: seconds)
    }

    /// A connection to `destination` carried its first chunk: counted under that name. Its
    /// first chunk, not its opening, because a proxied connection is named by its first
    /// bytes (a `Host` header, a TLS server name).
    mutating func firstChunk(to destination: String) {
        destinations.connectionOpened(to: destination)
    }

    /// A chunk (or a FIN, a chunk of no bytes) to `destination`, read by `now`, is delivered
    /// at `delivery.at` after its waits.
    mutating func carried(_ delivery: Delivery, _ direction: Direction, to destination: String, now: Double) {
        destinations.settle(through: now)
        destinations.add(destination, direction, deliveredAt: delivery.at, waits: delivery.waits)
    }

    /// The radio woke: kept among the latest, the oldest dropped past the list's limit.
    mutating func wokeUp(_ wake: WakeUp) {
        if recentWakeUps.count == ProxyStatus.wakeUpListLimit { recentWakeUps.removeFirst() }
        recentWakeUps.append(wake)
    }

    /// `connection`'s first bytes named it `name`: its wake-ups (its SYN's, read before) take
    /// the name, so `/status` names them as the report does.
    mutating func rename(wakeUpsOf connection: ConnectionID, to name: String) {
        for index in recentWakeUps.indices where recentWakeUps[index].connection == connection {
            recentWakeUps[index].destination = name
        }
    }

    /// Each destination's connections and waits, of the chunks delivered by `time`.
    func destinationFigures(until time: Double) -> [DestinationFigures] {
        destinations.figures(until: time)
    }
}
