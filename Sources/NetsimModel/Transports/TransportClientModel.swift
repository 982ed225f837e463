/// A modelled app's transport: a value that takes the app's and the network's inputs and says
/// what to put on the wire, which timers to arm, and when to connect or give up. The engine
/// delivers received events and acknowledgements to the `AppLedger` before it hands a frame over.
///
/// Each input appends what the machine asks for to `actions`, in order, rather than returning
/// an array: the engine hands over millions of inputs a run, and an array allocated and freed
/// per answer was a large part of its time. The engine passes one buffer it keeps.
public protocol TransportClientModel: Sendable {
    mutating func start(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction])
    mutating func received(_ frame: Frame, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction])
    mutating func messageProduced(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction])
    mutating func timerFired(_ timer: TransportTimer, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction])
    mutating func connectionEnded(_ end: ConnectionEnd, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction])
    /// The phone's network went away or came back; only clients that watch it act on it.
    mutating func networkChanged(available: Bool, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction])
    /// A handover changed the phone's address; only a client whose connection can migrate
    /// (QUIC) acts on it.
    mutating func addressChanged(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction])
    /// A frame arrived on the spare connection (`TransportAction.openSpareConnection`); only
    /// a client that opens one acts on it.
    mutating func spareReceived(_ frame: Frame, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction])
    /// The spare connection is gone.
    mutating func spareEnded(_ end: ConnectionEnd, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction])
    /// Whether a frame that arrives now reaches the app (a frame of a call the client has
    /// cancelled does not).
    func delivers(_ frame: Frame) -> Bool
}

extension TransportClientModel {
    public func delivers(_ frame: Frame) -> Bool { true }

    public mutating func networkChanged(
        available: Bool, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]
    ) {}

    public mutating func addressChanged(now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {}

    public mutating func spareReceived(_ frame: Frame, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {}

    public mutating func spareEnded(_ end: ConnectionEnd, now: Double, ledger: inout AppLedger, into actions: inout [TransportAction]) {}
}

extension RESTPollingClientModel: TransportClientModel {}
extension WebSocketClientModel: TransportClientModel {}
extension GRPCClientModel: TransportClientModel {}
