import NIOCore

/// A time the model planned for something to happen (a front end's lookup answered, a datagram
/// delivered), as a timer that ending an outage early moves (`HeldEffects`). `fired` succeeds
/// at the deadline last set; it fails, as a timer does, if the event loop stops first.
final class MovableTimer {
    let fired: EventLoopPromise<Void>
    private let loop: any EventLoop
    private var timer: Scheduled<Void>?
    /// Which timer counts: a moved one's cancellation is not a firing.
    private var generation = 0

    init(loop: any EventLoop, at deadline: NIODeadline) {
        self.loop = loop
        self.fired = loop.makePromise()
        arm(deadline)
    }

    func move(to deadline: NIODeadline) {
        timer?.cancel()
        arm(deadline)
    }

    private func arm(_ deadline: NIODeadline) {
        generation += 1
        let armed = generation
        let timer = loop.assumeIsolated().scheduleTask(deadline: deadline) {}
        self.timer = timer
        timer.futureResult.assumeIsolated().whenComplete { [self] result in
            guard armed == generation else { return }
            fired.completeWith(result)
        }
    }
}
