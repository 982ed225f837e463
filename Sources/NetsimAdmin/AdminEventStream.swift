import AsyncAlgorithms
import Hummingbird
import NIOCore
import NetsimProxy
import ServiceLifecycle

/// `GET /events`: the proxy's events as server-sent events, one JSON object per `data:` line,
/// each under its `event:` name, with a comment line every heartbeat interval, until the proxy
/// stops, the client goes or the server shuts down.
///
/// The events are written one at a time, each once the connection took the previous one: a
/// client that does not read holds them in its subscription's bounded buffer, where later ones
/// are dropped and counted (an `event: dropped`), never in memory without bound; and its
/// waiting write is what `EventStreamRoster` reads to push it out for a newer stream. The
/// heartbeat finds a client gone without a word (the write fails) and ends its subscription.
struct AdminEventStream {
    let proxy: NetsimProxy
    let connections: AdminConnections
    let heartbeat: TimeAmount

    private enum Item: Sendable {
        case event(NumberedPhoneEvent)
        case heartbeat
        /// The proxy stopped, the connection closed (the client went, or a newer stream took
        /// its place) or the server shuts down.
        case end
    }

    /// The stream of `phone`'s events (every phone's without one), subscribed before the
    /// answer's head goes out, so whatever happens after the 200 is in it.
    func response(phone: Int?, channel: any Channel) -> Response {
        connections.becomeStream(channel)
        let events = proxy.events(phone: phone)
        // One phone's events are as a one-phone run's; all of several phones' name theirs.
        let numbered = phone == nil && proxy.phoneCount > 1
        let connections = connections
        let interval = Duration.nanoseconds(heartbeat.nanoseconds)
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream"],
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: ": netsim events\n\n"))
                let ticks = AsyncTimerSequence(interval: interval, clock: .continuous).map { _ in Item.heartbeat }
                let (end, ender) = AsyncStream<Item>.makeStream()
                channel.closeFuture.whenComplete { _ in ender.yield(.end) }
                // A stream is meant never to end by itself: the server's shutdown ends it too.
                try await withGracefulShutdownHandler {
                    for await item in merge(chain(events.map { Item.event($0) }, [Item.end].async), ticks, end) {
                        let text: String
                        switch item {
                        case .end: return
                        case .heartbeat:
                            connections.stream(channel, .heartbeat)
                            text = ": heartbeat\n\n"
                        case .event(let numberedEvent):
                            if numberedEvent.event.isDroppedNotice { connections.stream(channel, .dropped) }
                            let data = numbered ? numberedEvent.jsonWithPhone : numberedEvent.event.json
                            text = "event: \(numberedEvent.event.name)\ndata: \(data)\n\n"
                        }
                        connections.stream(channel, .writeStarted)
                        defer { connections.stream(channel, .writeFinished) }
                        try await writer.write(ByteBuffer(string: text))
                    }
                } onGracefulShutdown: {
                    ender.yield(.end)
                }
                try await writer.finish(nil)
            })
    }
}
