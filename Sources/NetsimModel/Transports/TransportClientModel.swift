/// A modelled app's transport: a value that takes the app's and the network's inputs and says
/// what to put on the wire, which timers to arm, and when to connect or give up. The engine
/// delivers received events and acknowledgements to the `AppLedger` before it hands a frame over.
public protocol TransportClientModel: Sendable {
    mutating func start(now: Double, ledger: inout AppLedger) -> [TransportAction]
    mutating func received(_ frame: Frame, now: Double, ledger: inout AppLedger) -> [TransportAction]
    mutating func messageProduced(now: Double, ledger: inout AppLedger) -> [TransportAction]
    mutating func timerFired(_ timer: TransportTimer, now: Double, ledger: inout AppLedger) -> [TransportAction]
    mutating func connectionEnded(_ end: ConnectionEnd, now: Double, ledger: inout AppLedger) -> [TransportAction]
    /// The phone's network went away or came back; only clients that watch it act on it.
    mutating func networkChanged(available: Bool, now: Double, ledger: inout AppLedger) -> [TransportAction]
    /// Whether a frame that arrives now reaches the app (a frame of a call the client has
    /// cancelled does not).
    func delivers(_ frame: Frame) -> Bool
}

extension TransportClientModel {
    public func delivers(_ frame: Frame) -> Bool { true }

    public mutating func networkChanged(available: Bool, now: Double, ledger: inout AppLedger) -> [TransportAction] { [] }
}

extension RESTPollingClientModel: TransportClientModel {}
extension WebSocketClientModel: TransportClientModel {}
extension GRPCClientModel: TransportClientModel {}
