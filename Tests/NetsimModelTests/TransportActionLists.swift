import NetsimCore

@testable import NetsimModel

/// Each input's actions as a list of their own, for tests that check a machine alone: the
/// engine passes one buffer it keeps (`TransportClientModel`).
extension TransportClientModel {
    mutating func start(now: Double, ledger: inout AppLedger) -> [TransportAction] {
        var actions: [TransportAction] = []
        start(now: now, ledger: &ledger, into: &actions)
        return actions
    }

    mutating func received(_ frame: Frame, now: Double, ledger: inout AppLedger) -> [TransportAction] {
        var actions: [TransportAction] = []
        received(frame, now: now, ledger: &ledger, into: &actions)
        return actions
    }

    mutating func messageProduced(now: Double, ledger: inout AppLedger) -> [TransportAction] {
        var actions: [TransportAction] = []
        messageProduced(now: now, ledger: &ledger, into: &actions)
        return actions
    }

    mutating func timerFired(_ timer: TransportTimer, now: Double, ledger: inout AppLedger) -> [TransportAction] {
        var actions: [TransportAction] = []
        timerFired(timer, now: now, ledger: &ledger, into: &actions)
        return actions
    }

    mutating func connectionEnded(_ end: ConnectionEnd, now: Double, ledger: inout AppLedger) -> [TransportAction] {
        var actions: [TransportAction] = []
        connectionEnded(end, now: now, ledger: &ledger, into: &actions)
        return actions
    }

    mutating func spareReceived(_ frame: Frame, now: Double, ledger: inout AppLedger) -> [TransportAction] {
        var actions: [TransportAction] = []
        spareReceived(frame, now: now, ledger: &ledger, into: &actions)
        return actions
    }

    mutating func networkChanged(available: Bool, now: Double, ledger: inout AppLedger) -> [TransportAction] {
        var actions: [TransportAction] = []
        networkChanged(available: available, now: now, ledger: &ledger, into: &actions)
        return actions
    }
}

extension QUICClientModel {
    mutating func addressChanged(now: Double, ledger: inout AppLedger) -> [TransportAction] {
        var actions: [TransportAction] = []
        addressChanged(now: now, ledger: &ledger, into: &actions)
        return actions
    }
}
