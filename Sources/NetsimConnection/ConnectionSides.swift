import NetsimCore

/// One end of a proxied connection.
package enum ConnectionSide: CaseIterable, Sendable {
    /// The app, on the phone.
    case client
    /// The server the app talks to.
    case upstream

    /// The direction of the bytes this side sends.
    package var direction: Direction { self == .client ? .up : .down }
    package var opposite: ConnectionSide { self == .client ? .upstream : .client }
}

extension Direction {
    /// The side that sends the bytes of this direction.
    package var source: ConnectionSide { self == .up ? .client : .upstream }
    /// The side the bytes of this direction are delivered to.
    package var destination: ConnectionSide { source.opposite }
}

/// One value per side of a connection: two stored properties rather than a dictionary, since
/// they are read for every chunk.
package struct BothSides<Value> {
    package var client: Value
    package var upstream: Value

    package init(client: Value, upstream: Value) {
        self.client = client
        self.upstream = upstream
    }

    package subscript(side: ConnectionSide) -> Value {
        get { side == .client ? client : upstream }
        _modify {
            if side == .client { yield &client } else { yield &upstream }
        }
    }
}

extension BothSides: Sendable where Value: Sendable {}
