/// New delivery times for a connection's latest chunks in one direction
/// (`DeviceModel.takeRetimedDeliveries`).
public struct RetimedDeliveries: Sendable, Equatable {
    public var direction: Direction
    public var connection: ConnectionID
    public var dues: [Double]
}
