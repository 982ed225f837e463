import NIOCore
import NIOPosix
import NetsimTesting
import Testing

/// The backend the app under test talks to: here a loopback echo server.
final class EchoHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.writeAndFlush(data, promise: nil) }
}

@Test("the client sees the phone's outage reset its connection, and the radio woke first")
func clientSeesOutageReset() async throws {
    let backend = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(EchoHandler()) }
        }
        .bind(host: "127.0.0.1", port: 0).get()
    // The phone lives for the closure: it stops however the closure ends.
    let names = try await withEmulatedPhone(profile: "lte-tunnel", upstream: "127.0.0.1:\(backend.localAddress!.port!)") { phone in
        let events = phone.events()  // subscribe before acting: it sees what happens from now on

        // The client under test connects to the phone's port instead of the backend's.
        let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: phone.port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        try await client.executeThenClose { inbound, outbound in
            var replies = inbound.makeAsyncIterator()
            try await outbound.write(ByteBuffer(string: "x"))
            #expect(try await replies.next() == ByteBuffer(string: "x"))  // after the radio's promotion

            try await phone.outage(.seconds(10), mode: .reset)
            let afterOutage = try? await replies.next()
            #expect(afterOutage == nil, "the connection was reset")
        }

        let report = try await phone.report()
        #expect(report.connections.reset == 1)
        #expect(report.radio.promotions >= 1)

        try await phone.stop()  // ends the event stream too
        var names: [String] = []
        for await event in events { names.append(event.name) }
        return names
    }
    #expect(names.prefix(3) == ["connection-opened", "radio-woken", "radio-state"])  // its SYN woke the radio
    #expect(names.contains("outage"))
    #expect(names.firstIndex(of: "radio-state")! < names.firstIndex(of: "outage")!)
    try await backend.close()
}
