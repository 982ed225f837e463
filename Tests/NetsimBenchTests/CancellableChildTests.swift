import NetsimTestSupport
import Testing

@testable import NetsimBench

/// The gRPC client's retry timer is a child of the client's task group that its handle cancels
/// alone: cancelling one child leaves its siblings running, the group's cancellation reaches
/// it, and a child that ends by itself ends its task (the group does not wait on it).
@Suite(.playsLive(timeLimit: .seconds(60))) struct CancellableChildTests {
    /// A child that sleeps for an hour and says how its sleep ended.
    static func sleeper(_ name: String, telling events: AsyncStream<String>.Continuation) -> @Sendable () async -> Void {
        {
            do {
                try await Task.sleep(for: .seconds(3600))
                events.yield("\(name) woke")
            } catch {
                events.yield("\(name) cancelled")
            }
        }
    }

    @Test func cancellingOneChildLeavesItsSiblingRunningAndTheGroupCancelsTheRest() async {
        let (events, event) = AsyncStream.makeStream(of: String.self)
        var told = events.makeAsyncIterator()
        await withDiscardingTaskGroup { group in
            let first = group.addCancellableTask(Self.sleeper("first", telling: event))
            _ = group.addCancellableTask(Self.sleeper("second", telling: event))
            first.cancel()
            #expect(await told.next() == "first cancelled")
            group.cancelAll()
            #expect(await told.next() == "second cancelled")
        }
    }

    @Test func aChildThatEndsByItselfEndsItsTaskAndALaterCancelDoesNothing() async {
        let (events, event) = AsyncStream.makeStream(of: String.self)
        var told = events.makeAsyncIterator()
        var handle: CancellableChild?
        // The group returns only once the child's task has ended, which nothing cancels here.
        await withDiscardingTaskGroup { group in
            handle = group.addCancellableTask { event.yield("done") }
        }
        #expect(await told.next() == "done")
        handle?.cancel()
    }
}
