/// One value per direction of a connection or link. Encodes as `{"up": …, "down": …}`, the
/// shape every report gives per-direction figures.
public struct PerDirection<Value> {
    public var up: Value
    public var down: Value

    public init(up: Value, down: Value) {
        self.up = up
        self.down = down
    }

    /// Mutates in place (a get/set pair would copy a delay line's buffer on every change).
    /// Inlinable, but its two yields keep it a call and a coroutine: a hot path uses `update`.
    @inlinable
    public subscript(direction: Direction) -> Value {
        get { direction == .up ? up : down }
        _modify {
            if direction == .up { yield &up } else { yield &down }
        }
    }

    /// Changes `direction`'s value in place, as `self[direction]` does, inlined whole with the
    /// closure: the model engine counts every chunk it delivers through it.
    @inlinable
    public mutating func update(_ direction: Direction, _ change: (inout Value) -> Void) {
        if direction == .up { change(&up) } else { change(&down) }
    }
}

extension PerDirection: Sendable where Value: Sendable {}
extension PerDirection: Equatable where Value: Equatable {}
extension PerDirection: Hashable where Value: Hashable {}
extension PerDirection: Codable where Value: Codable {}
