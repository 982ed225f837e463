import NetsimCore

/// What a device did on the model's answers while a triggered outage may still end early
/// (`ReplannableDevice`), held until it no longer can. Each effect carries a time the model
/// planned (on air, delivered, the radio woken, a lookup answered), which ending the outage
/// early moves; a capture's closes are held too, so that its records keep their order.
///
/// A value with no I/O: `release` says what each effect becomes with the answers of a replan,
/// or with the answers first given, and the device carries that out. Generic over the
/// connection and the timer that answers a lookup or delivers a datagram, so that it is tested
/// without sockets.
///
/// Bounded as the delay lines are: every chunk held here is still in one (nothing read during
/// an outage is delivered before it ends), and the journal caps the calls.
struct HeldEffects<Connection: AnyObject, Timer> {
    /// A connection's opening, for a capture: its handshake's time is the model's.
    struct Opening: Equatable {
        var connection: ConnectionID
        var clientPort: Int
        var upstreamAddress: String?
        var upstreamPort: Int?
    }

    /// A call that may have woken the radio: `wokeAt` is when, if it did.
    struct WakeCandidate: Equatable {
        var cause: WakeCause
        var connection: ConnectionID?
        var destination: String
        var direction: Direction
        var wokeAt: Double?
    }

    enum Effect {
        case opened(Opening, handshake: LinkSchedule.Transmission)
        case chunk(Connection, Direction, payload: [UInt8]?, Delivery, readAt: Double)
        /// A FIN's delivery.
        case end(Connection, Direction, Delivery)
        case closed(ConnectionID, reset: Bool, at: Double)
        case wakeUp(WakeCandidate)
        case lookup(Timer, answeredAt: Double)
        /// A UDP datagram's delivery, by its timer, and its capture (nil without one).
        /// With what a capture records of it (nil without a capture), once its time on air is
        /// known for good.
        case datagram(Timer, Delivery, capture: DatagramRecord?)
    }

    /// What the held effects became.
    struct Release {
        /// The effects in the order they were held, with their times now.
        var effects: [Effect] = []
        /// Per connection that queued chunks or FINs meanwhile, their delivery times now, in
        /// order (only when a replan moved them: they are already queued at the first times).
        var dues: [(connection: Connection, dues: PerDirection<[Double]>)] = []
        /// The chunks and FINs whose delivery moved.
        var movedDeliveries = 0
    }

    /// Each effect with the ticket of the call that answered it (none for a close).
    private var held: [(ticket: Int?, effect: Effect)] = []

    var isEmpty: Bool { held.isEmpty }

    /// Holds `effect`, answered by the journaled call `ticket`.
    mutating func hold(_ effect: Effect, answeredBy ticket: Int?) {
        held.append((ticket, effect))
    }

    /// Empties the hold: every effect with the answer `replan` gives its call (an outage ended
    /// early), or with the answer first given (nil: the outage ran its course).
    mutating func release(_ replan: ReplannableDevice.Replan?) -> Release {
        defer { held = [] }
        var release = Release()
        var dueIndex: [ObjectIdentifier: Int] = [:]
        func due(_ delivery: Delivery, _ direction: Direction, on connection: Connection) {
            guard replan != nil else { return }
            let key = ObjectIdentifier(connection)
            if dueIndex[key] == nil {
                dueIndex[key] = release.dues.count
                release.dues.append((connection, PerDirection(up: [], down: [])))
            }
            release.dues[dueIndex[key]!].dues[direction].append(delivery.at)
        }
        /// The delivery the replan gives the call `ticket`, counted if it moved; the delivery
        /// first planned where the replan gives none. A datagram the replan drops (the queue it
        /// waited in is now shorter, never longer, so this is rare) keeps its first delivery.
        func moved(_ delivery: Delivery, _ ticket: Int?) -> Delivery {
            guard let replanned = Self.replayed(ticket, in: replan)?.answer.plannedDelivery else { return delivery }
            if replanned.at != delivery.at { release.movedDeliveries += 1 }
            return replanned
        }
        for (ticket, effect) in held {
            let replayed = Self.replayed(ticket, in: replan)
            switch effect {
            case .opened(let opening, _):
                guard case .handshake(let replanned)? = replayed?.answer else {
                    release.effects.append(effect)
                    continue
                }
                release.effects.append(.opened(opening, handshake: replanned))
            case .chunk(let connection, let direction, let payload, let delivery, let readAt):
                let now = moved(delivery, ticket)
                due(now, direction, on: connection)
                release.effects.append(.chunk(connection, direction, payload: payload, now, readAt: readAt))
            case .end(let connection, let direction, let delivery):
                let now = moved(delivery, ticket)
                due(now, direction, on: connection)
                release.effects.append(.end(connection, direction, now))
            case .closed:
                release.effects.append(effect)
            case .wakeUp(var candidate):
                if replan != nil { candidate.wokeAt = replayed?.wokeRadioAt }
                release.effects.append(.wakeUp(candidate))
            case .lookup(let lookup, _):
                guard case .lookup(let replanned)? = replayed?.answer else {
                    release.effects.append(effect)
                    continue
                }
                release.effects.append(.lookup(lookup, answeredAt: replanned))
            case .datagram(let datagram, let delivery, let capture):
                release.effects.append(.datagram(datagram, moved(delivery, ticket), capture: capture))
            }
        }
        return release
    }

    private static func replayed(_ ticket: Int?, in replan: ReplannableDevice.Replan?) -> ReplannableDevice.Replan.Replayed? {
        guard let replan, let ticket, replan.calls.indices.contains(ticket) else { return nil }
        return replan.calls[ticket]
    }
}

extension ReplannableDevice.Answer {
    /// The delivery planned for a chunk, a FIN or a datagram; nil for a drop or another call.
    fileprivate var plannedDelivery: Delivery? {
        switch self {
        case .send(.deliver(let delivery)), .datagram(.deliver(let delivery, _)): delivery
        default: nil
        }
    }
}
