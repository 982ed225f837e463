import Logging
import NIOCore
import NIOPosix
import NetsimConnection
import NetsimCore

extension EmulatedDevice {
    /// A new UDP flow of the phone (one client address and port), on a fresh NAT mapping.
    func openDatagramFlow() -> DatagramFlowID {
        let now = clock.now()
        applyTimeline(upTo: now)
        datagrams.flowOpened()
        return phone.openDatagramFlow(at: now)
    }

    func closeDatagramFlow(_ flow: DatagramFlowID) {
        phone.closeDatagramFlow(flow)
    }

    /// A flow's datagram left on a new NAT mapping: the server sees a new source port.
    func datagramFlowRemapped() {
        datagrams.flowRemapped()
    }

    /// Counts a datagram the proxy dropped before the model saw it (`DatagramDrop.tooLarge`).
    func datagramDropped(_ bytes: Int, _ direction: Direction, _ why: DatagramDrop) {
        datagrams.count(bytes, direction, droppedBy: why)
    }

    /// Sends a datagram read now on `flow` through the phone (`DeviceModel.sendDatagram`):
    /// between the client's `clientPort` and `peer`, the upstream it goes to or came from;
    /// going down, `mapping` is the NAT mapping it was sent to. When the model says it arrives
    /// (later, if an outage triggered through the admin API ends early), `deliver` gets the
    /// mapping it left on and writes it, returning false if the socket had no room for it.
    func sendDatagram(
        _ payload: ByteBuffer, _ direction: Direction, on flow: DatagramFlowID, mapping: Int?, clientPort: Int, peer: SocketAddress,
        deliver: @escaping (_ mapping: Int) -> Bool
    ) -> DatagramVerdict {
        let now = clock.now()
        applyTimeline(upTo: now)
        let bytes = payload.readableBytes
        guard datagrams.fits(bytes, direction) else {
            datagrams.count(bytes, direction, droppedBy: .overflow)
            return .drop(.overflow)
        }
        let ticket = phone.nextTicket
        let name = "udp \(peer.ipAddress ?? "?"):\(peer.port ?? 0)"
        let verdict = publishingWakeUp(by: .datagram, of: nil, to: name, direction) {
            $0.sendDatagram(bytes, direction, on: flow, mapping: mapping, at: now)
        }
        switch verdict {
        case .drop(let why):
            datagrams.count(bytes, direction, droppedBy: why)
        case .deliver(let delivery, let leftOn):
            let capture = options.observer.map { _ in
                DatagramRecord(
                    direction: direction, payload: Array(payload.readableBytesView), clientPort: clientPort,
                    upstreamAddress: peer.ipAddress, upstreamPort: peer.port, readAt: now)
            }
            if ticket == nil, delivery.at <= now {
                // Due already (a link with no delay): written now, without a timer.
                if let capture { options.observer?.datagram(capture, onAir: delivery.onAir) }
                let written = deliver(leftOn)
                datagrams.count(bytes, direction, droppedBy: written ? nil : .overflow)
                break
            }
            datagrams.wait(bytes, direction)
            let timer = MovableTimer(loop: loop, at: clock.deadline(delivery.at))
            // Captured when its time is known for good: an outage may end early and move it.
            if let ticket {
                held.hold(.datagram(timer, delivery, capture: capture), answeredBy: ticket)
            } else if let capture {
                options.observer?.datagram(capture, onAir: delivery.onAir)
            }
            timer.fired.futureResult.assumeIsolated().whenComplete { [self] fired in
                datagrams.stopWaiting(bytes, direction)
                guard case .success = fired, !stopped else { return }
                // Written first: writing may count a remapping in `datagrams`.
                let written = deliver(leftOn)
                datagrams.count(bytes, direction, droppedBy: written ? nil : .overflow)
            }
        }
        modelChanged(at: now)
        return verdict
    }
}
