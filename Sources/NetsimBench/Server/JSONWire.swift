import NetsimModel

/// The JSON bodies and frames of the REST and WebSocket transports (gRPC has its protobuf
/// contract in Protos/bench.proto). Keys are short, as an app's would be.
enum JSONWire {
    /// A request's `after=` value: the cursor, or `now` for `ClientSettings.Reconnect.fromNow`.
    static func cursor(_ after: UInt64) -> String {
        after == ClientSettings.Reconnect.fromNow ? "now" : String(after)
    }

    struct Event: Codable, Sendable, Equatable {
        var seq: UInt64
        var createdAt: Double
        var payload: String
    }

    struct Message: Codable, Sendable, Equatable {
        var id: UInt64
        var createdAt: Double
        var payload: String
    }

    /// A REST poll's answer.
    struct EventBatch: Codable, Sendable {
        var events: [Event]
        /// Only for a poll `after=now`: the device's latest sequence, where the naive client's
        /// next poll starts. Absent otherwise, so a resumed poll's bytes stay as they were.
        var latest: UInt64? = nil
    }

    /// What the server sends: an event (WebSocket push) or the acknowledgement of a message
    /// (WebSocket frame, or a REST POST's answer), or of a batch of them (`acks`).
    struct ServerFrame: Codable, Sendable, Equatable {
        var event: Event?
        var ack: UInt64?
        var acks: [UInt64]?

        init(event: Event? = nil, ack: UInt64? = nil, acks: [UInt64]? = nil) {
            self.event = event
            self.ack = ack
            self.acks = acks
        }

        /// Every message id this frame acknowledges.
        var acknowledged: [UInt64] { (ack.map { [$0] } ?? []) + (acks ?? []) }
    }
}

extension JSONWire.Event {
    init(_ event: EventStore.Event) {
        self.init(seq: event.sequence, createdAt: event.createdAt, payload: event.payload)
    }
}

extension JSONWire.Message {
    init(_ message: DeviceLedger.Message) {
        self.init(id: message.id, createdAt: message.createdAt, payload: message.payload)
    }
}
