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

extension PerDirection {
    /// A side's value, so that per-side values share the pair type of per-direction ones: it is
    /// kept under the direction the side sends (the client's under `up`, the upstream's under
    /// `down`), not the one delivered to it. Mutates in place, like the subscript by direction.
    package subscript(side: ConnectionSide) -> Value {
        get { self[side.direction] }
        _modify { yield &self[side.direction] }
    }
}
